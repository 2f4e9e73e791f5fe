package idl

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// loadString loads an IDL held in a string, with a protocol header
// prepended.
func loadString(t *testing.T, body string) (*Protocol, error) {
	t.Helper()
	head := "protocol: {name: x, roles: {a: , b: }, framing: ndjson}\n"
	return parse("t.yaml", []byte(head+body), os.ReadFile)
}

// chosen returns the label of the choice of the union t that the decision
// rule picks for the JSON object obj, or "" for none.
func chosen(t *testing.T, u *Type, obj string) string {
	t.Helper()
	var members []string
	var values [][]byte
	dec := json.NewDecoder(strings.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		members, values = append(members, k.(string)), append(values, v)
	}
	choices := Choices(u)
	i := ChooseObject(choices, members, func(i int) []byte { return values[i] })
	if i < 0 {
		return ""
	}
	return choices[i].Label()
}

func TestChoicesOfFull(t *testing.T) {
	p := loadFull(t)
	type row struct {
		Label    string
		Variant  int
		Object   bool
		CatchAll bool
	}
	rows := func(name string) []row {
		var out []row
		for _, c := range Choices(mustType(t, p, name).Type) {
			out = append(out, row{c.Label(), c.Variant, c.Object != nil, c.CatchAll})
		}
		return out
	}
	// A nested union's choices are the outer union's, held by its variant.
	eq(t, "HoverContents", rows("HoverContents"), []row{
		{"MarkupContent", 0, true, false}, {"string", 1, false, false}, {"MarkedCode", 1, true, false}, {"array", 2, false, false},
	})
	eq(t, "ProgressValue", rows("ProgressValue"), []row{
		{"ProgressBegin", 0, true, false}, {"ProgressEnd", 1, true, false}, {"any", 2, false, true},
	})
	for name, want := range map[string]bool{"HoverContents": true, "Contents": true, "HoverProvider": true, "ProgressValue": true, "MarkedString": false, "Id": false} {
		eq(t, name+" by members", ByMembers(mustType(t, p, name).Type), want)
	}
	eq(t, "Contents requirements", ObjectRequirements(mustType(t, p, "Contents").Type), `TextContents ("uri", "text") or BlobContents ("uri", "blob")`)
	eq(t, "FormField requirements", ObjectRequirements(mustType(t, p, "FormField").Type), `TextField ("type": "string"), NumberField ("type": "number" or "integer") or FlagField ("type": "boolean")`)
	eq(t, "FormField exclusive", Exclusive(mustType(t, p, "FormField").Type), true)
	eq(t, "ProgressValue requirements", ObjectRequirements(mustType(t, p, "ProgressValue").Type), `ProgressBegin ("kind": "begin", "label") or ProgressEnd ("kind": "end")`)
}

func TestChooseObject(t *testing.T) {
	p := loadFull(t)
	for _, tc := range []struct{ union, obj, want string }{
		{"Contents", `{"uri":"a","text":"b"}`, "TextContents"},
		{"Contents", `{"uri":"a","blob":"b"}`, "BlobContents"},
		{"Contents", `{"uri":"a"}`, ""},
		// Both match and explain two of three members: the first wins.
		{"Contents", `{"uri":"a","text":"b","blob":"c"}`, "TextContents"},
		{"HoverContents", `{"kind":"markdown","value":"x"}`, "MarkupContent"},
		{"HoverContents", `{"language":"go","value":"x"}`, "MarkedCode"},
		{"HoverProvider", `{}`, "HoverOptions"},
		{"HoverProvider", `{"workDoneProgress":true}`, "HoverOptions"},
		{"HoverProvider", `{"documentSelector":null}`, "HoverRegistrationOptions"},
		{"HoverProvider", `{"workDoneProgress":true,"id":"x"}`, "HoverOptions"}, // documentSelector is required
		{"HoverProvider", `{"id":"x","documentSelector":[]}`, "HoverRegistrationOptions"},
		{"TextDocumentFilter", `{"language":"go"}`, "TextDocumentFilterLanguage"},
		{"TextDocumentFilter", `{"scheme":"file"}`, "TextDocumentFilterScheme"},
		{"TextDocumentFilter", `{"pattern":"*"}`, "TextDocumentFilterPattern"},
		{"TextDocumentFilter", `{"scheme":"file","pattern":"*"}`, "TextDocumentFilterScheme"},
		{"TextDocumentFilter", `{"pattern":"*","language":"go","scheme":"file"}`, "TextDocumentFilterLanguage"},
		{"TextDocumentFilter", `{"other":1}`, ""},
		{"ProgressValue", `{"kind":"begin","label":"t"}`, "ProgressBegin"},
		{"ProgressValue", `{"kind":"b\u0065gin","label":"t"}`, "ProgressBegin"},
		{"ProgressValue", `{"kind":"end"}`, "ProgressEnd"},
		{"ProgressValue", `{"kind":"report"}`, ""},
		{"ProgressValue", `{"label":"t"}`, ""},
		// A member declared as a closed enum decides like a constant.
		{"FormField", `{"type":"integer","minimum":1}`, "NumberField"},
		{"FormField", `{"type":"number"}`, "NumberField"},
		{"FormField", `{"type":"boolean","minimum":1}`, "FlagField"},
		{"FormField", `{"type":"string","minimum":1,"label":"t"}`, "TextField"},
		{"FormField", `{"type":"array"}`, ""},
		{"FormField", `{"type":null}`, ""},
	} {
		if got := chosen(t, mustType(t, p, tc.union).Type, tc.obj); got != tc.want {
			t.Errorf("%s %s: chose %q, want %q", tc.union, tc.obj, got, tc.want)
		}
	}
}

func TestShadowedVariants(t *testing.T) {
	for _, tc := range []struct{ types, want string }{
		{`  A: {fields: {x: string}}
  B: {fields: {x: string, y?: string}}
  U: A | B
`, ""}, // {x, y} is B
		{`  A: {fields: {x: string}}
  B: {fields: {x: string, y?: string}}
  U: B | A
`, "t.yaml:5:10: object variant A of union U can never be chosen: B, listed before it, matches every object A matches and declares every member A declares; give A a required member that B does not declare, or remove A"},
		{`  A1: {fields: {x: string}}
  A2: {fields: {x: string, y: string}}
  B: {fields: {x: string, y?: string}}
  U: A1 | A2 | B
`, "t.yaml:6:16: object variant B of union U can never be chosen: every object it matches goes to A1 or A2, which match it too and leave fewer of its members unexplained or are listed before it; give B a required member that they do not declare, or remove B"},
		{`  P: {fields: {kind: "'a'", v?: string}}
  Q: {fields: {kind: string, v?: string}}
  U: P | Q
`, ""}, // {kind: b} is Q
		{`  P: {fields: {kind: "'a'", v?: string}}
  Q: {fields: {kind: string, v?: string}}
  U: Q | P
`, "t.yaml:5:10: object variant P of union U can never be chosen: Q, listed before it, matches every object P matches and declares every member P declares; give P a required member that Q does not declare, or remove P"},
		{`  A: {fields: {kind: "'a' | 'b'", v?: string}}
  B: {fields: {kind: "'c'"}}
  U: A | B
`, ""}, // {kind: c} is B: A's kind is a or b
		{`  A: {fields: {kind: "'a' | 'b'", v?: string}}
  B: {fields: {kind: "'b'"}}
  U: A | B
`, "t.yaml:5:10: object variant B of union U can never be chosen: A, listed before it, matches every object B matches and declares every member B declares; give B a required member that A does not declare, or remove B"},
		{`  K: {type: enum, open: true, values: [a, b]}
  A: {fields: {kind: K, v?: string}}
  B: {fields: {kind: "'c'"}}
  U: A | B
`, "t.yaml:6:10: object variant B of union U can never be chosen: A, listed before it, matches every object B matches and declares every member B declares; give B a required member that A does not declare, or remove B"},
		{`  A: {fields: {x: string}}
  B: {fields: {y: string}}
  N: B | string
  U: A | N
`, ""},
		{`  A: {fields: {x?: string}}
  B: {fields: {x: string}}
  N: B | string
  U: A | N
`, "t.yaml:6:10: object variant B (in N) of union U can never be chosen: A, listed before it, matches every object B matches and declares every member B declares; give B a required member that A does not declare, or remove B"},
	} {
		_, err := loadString(t, "types:\n"+tc.types)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.types, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want):
			t.Errorf("%s: got %v\nwant %s", tc.types, err, tc.want)
		}
	}
}

func TestNestedAndCatchAllErrors(t *testing.T) {
	_, err := loadString(t, `types:
  A: {fields: {a: string}}
  N: A | any
  U: N | string
  W: any | string
  X: string | any
  C1: C2 | string
  C2: C1 | integer
  S: string | N2
  N2: string | boolean
`)
	want := []string{
		"t.yaml:5:6: variant type N (union) of union U ends in any, which takes every value, so the variants after it could never be chosen; list type N (union) last in U",
		"t.yaml:6:6: variant any of union W accepts any JSON value, so the other variants could never be told apart; use any alone, or list it last to take the values no other variant takes",
		"t.yaml:8:7: union C1 contains itself through C2 -> C1; a union's variants cannot lead back to it: remove one variant of the cycle",
		"t.yaml:9:7: union C2 contains itself through C1 -> C2; a union's variants cannot lead back to it: remove one variant of the cycle",
		"t.yaml:10:15: variants string and type N2 (union) of union S are both JSON strings, so a reader could not tell them apart; add a discriminator: field, or merge them",
	}
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("got %v", err)
	}
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	eq(t, "errors", got, want)
}

func TestMemberVariantExamples(t *testing.T) {
	body := `types:
  Text: {fields: {uri: string, text: string}}
  Blob: {fields: {uri: string, blob: string}}
  Contents: Text | Blob | string
  Begin: {fields: {kind: "'begin'", title: string}}
  Progress: Begin | any
methods:
  read:
    from: a
    kind: request
    params: {fields: {p?: Progress}}
    result: Contents
    examples:
`
	for _, tc := range []struct{ params, result, err string }{
		{`{}`, `{uri: a, text: b}`, ""},
		{`{}`, `{uri: a, blob: b}`, ""},
		{`{}`, `plain`, ""},
		{`{}`, `{uri: a}`, "result matches no variant of union Contents; an object needs every required member of one variant: Text (\"uri\", \"text\") or Blob (\"uri\", \"blob\")"},
		{`{}`, `{uri: a, text: b, blob: c}`, `result has no field "blob"`}, // a tie: Text, listed first
		{`{}`, `{text: b}`, "result matches no variant of union Contents"},
		{`{}`, `{uri: a, blob: 1}`, "result.blob must be a string"},
		{`{p: {kind: begin, title: 1}}`, `plain`, "params.p.title must be a string"},
		{`{p: {kind: end, title: 1}}`, `plain`, ""}, // any other object
		{`{p: [1]}`, `plain`, ""},
	} {
		_, err := loadString(t, body+"      - {params: "+tc.params+", result: "+tc.result+"}\n")
		var errs Errors
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s %s: %v", tc.params, tc.result, err)
		case tc.err != "" && (!errors.As(err, &errs) || len(errs) != 1 || !strings.HasPrefix(errs[0].Msg, tc.err)):
			t.Errorf("%s %s: got %v, want one error starting %q", tc.params, tc.result, err, tc.err)
		}
	}
}

func TestSameJSON(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{`"a"`, `"a"`, true}, {`"\u0061"`, `"a"`, true}, {` 1.0`, `1`, true}, {`"a"`, `"b"`, false}, {`1`, `"1"`, false}, {`{`, `{`, true}, {`{`, `}`, false},
	} {
		if got := SameJSON([]byte(tc.a), []byte(tc.b)); got != tc.want {
			t.Errorf("SameJSON(%s, %s) = %v", tc.a, tc.b, got)
		}
	}
}

func TestTaggedUnionNestedInUntagged(t *testing.T) {
	p, err := loadString(t, `types:
  T1: {fields: {type: "'one'", x: string}}
  T2: {fields: {type: "'two'", y?: string}}
  Tagged: {type: union, discriminator: type, variants: [T2, T1]}
  Loose: {fields: {z: string, type?: string}}
  Mixed: Tagged | Loose | string
`)
	if err != nil {
		t.Fatal(err)
	}
	u := mustType(t, p, "Mixed").Type
	for obj, want := range map[string]string{
		`{"type":"one","x":"a"}`: "T1",
		`{"type":"two"}`:         "T2",
		`{"type":"three"}`:       "",
		`{"type":"two","z":"q"}`: "Loose", // explains both members
		`{"z":"q"}`:              "Loose",
	} {
		if got := chosen(t, u, obj); got != want {
			t.Errorf("%s: chose %q, want %q", obj, got, want)
		}
	}
}

// overlapRows describes the property tests of overlapping unions for
// RELIABILITY.md.
func overlapRows() []string {
	return []string{
		"| property: random overlapping unions, checked | 400 random unions (seed of `-seed`) of two to four object types over four members, optional, required, constant or closed enum, some nested in a union, some beside a string or a catch-all `any` | `rpcgen check` rejects a union exactly when an object variant is chosen for no object (every object over the members tried with `idl.ChooseObject`), naming the first such variant | `TestPropertyShadowedVariants` (package idl_test) |",
		"| property: random overlapping unions, decoded | the random unions of the row above that check accepts (up to 40, in one protocol) | their generated Go decoders choose, for each of 64 objects over the members, the variant `idl.ChooseObject` (the rule of the checks of examples) chooses, the catch-all included | `TestPropertyOverlappingDecoders` (package idl_test) |",
	}
}
