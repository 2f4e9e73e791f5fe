package idl

import (
	"errors"
	"strings"
	"testing"
)

// TestArrayVariants checks which array variant the first item of an
// array chooses, through the examples checked against each union.
func TestArrayVariants(t *testing.T) {
	body := `types:
  Location: {fields: {uri: string, line: integer}}
  Link: {fields: {targetUri: string, originLine?: integer}}
  Definition: Location | []Location
  Result: Definition | []Link
  Sym: {fields: {name: string, kind: integer}}
  WSym: {fields: {name: string, kind: integer, data?: any}}
  Syms: "[]Sym | []WSym"
  Mixed: "[]string | []integer | []Sym | any"
methods:
  m:
    from: a
    kind: notification
    params: {fields: {r?: Result, s?: Syms, x?: Mixed}}
    examples:
`
	for _, tc := range []struct{ params, err string }{
		{`{r: []}`, ""},
		{`{r: [{uri: a, line: 1}, {uri: b, line: 2}]}`, ""},
		{`{r: [{targetUri: a}, {targetUri: b, originLine: 2}]}`, ""},
		{`{r: [{targetUri: a}, {targetUri: 1}]}`, `params.r[1].targetUri must be a string`},
		{`{r: [{uri: b, line: 2}, {uri: c}]}`, `params.r[1] is missing required field line`},
		{`{r: [1]}`, `params.r[0]: 1 matches the items of no array variant of union Result (Location[] or Link[])`},
		{`{r: [{line: 1}]}`, `params.r[0]: a mapping matches the items of no array variant of union Result`},
		{`{s: [{name: f, kind: 1}, {name: g, kind: 2, data: 3}]}`, `params.s[1] has no field "data"`}, // a tie: Sym, listed first
		{`{s: [{name: f, kind: 1, data: 3}, {name: g, kind: 2}]}`, ""},
		{`{x: []}`, ""},
		{`{x: [a, b]}`, ""},
		{`{x: [1, b]}`, "params.x[1] must be an integer"},
		{`{x: [{name: f, kind: 1}]}`, ""},
		{`{x: [true, 1]}`, ""}, // the catch-all
	} {
		_, err := loadString(t, body+"      - {params: "+tc.params+"}\n")
		var errs Errors
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.params, err)
		case tc.err != "" && (!errors.As(err, &errs) || len(errs) != 1 || !strings.HasPrefix(errs[0].Msg, tc.err)):
			t.Errorf("%s: got %v, want one error starting %q", tc.params, err, tc.err)
		}
	}
}

// TestItemUnion checks the array choices of a union and the union of
// their items.
func TestItemUnion(t *testing.T) {
	p, err := loadString(t, `types:
  Location: {fields: {uri: string}}
  Link: {fields: {targetUri: string}}
  Definition: Location | []Location
  Result: Definition | []Link | boolean
  One: "[]Link | string"
`)
	if err != nil {
		t.Fatal(err)
	}
	r := p.Type("Result").Type
	if !ByItems(r) || ByItems(p.Type("One").Type) || ByItems(p.Type("Definition").Type) {
		t.Error("ByItems: want true for Result only")
	}
	var labels []string
	for _, c := range ArrayChoices(r) {
		labels = append(labels, ArrayLabel(c))
	}
	eq(t, "array choices", labels, []string{"Location[]", "Link[]"})
	items := Choices(ItemUnion(r))
	if len(items) != 2 || items[0].Label() != "Location" || items[1].Label() != "Link" || items[1].Variant != 1 {
		t.Errorf("item choices: %+v", items)
	}
	if Exclusive(r) {
		t.Error("Exclusive: an empty array matches both array variants")
	}
}
