package full_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/gen/golang/internal/full"
	"github.com/rpcgen/rpcgen/idl"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// TestArrayUnionsDecode checks that arrays decode into the array variant
// their first item chooses, an empty one into the first array variant,
// and encode back to the same JSON.
func TestArrayUnionsDecode(t *testing.T) {
	for _, tc := range []struct{ in, want, inner string }{
		{`[]`, "Definition", "Array"},
		{`[{"uri":"a","line":1}]`, "Definition", "Array"},
		{`{"uri":"a","line":1}`, "Definition", "Location"},
		{`[{"targetUri":"a","targetLine":1},{"targetUri":"b","targetLine":2,"originLine":0}]`, "Array", ""},
	} {
		var v full.DefinitionResult
		roundTrip(t, tc.in, &v)
		if got := setField(v); got != tc.want {
			t.Errorf("DefinitionResult %s: %s, want %s", tc.in, got, tc.want)
		}
		if v.Definition != nil && setField(*v.Definition) != tc.inner {
			t.Errorf("DefinitionResult %s: Definition holds %s, want %s", tc.in, setField(*v.Definition), tc.inner)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{`[]`, "SymbolInformationList"},
		{`[{"name":"f","location":{"uri":"a","line":1}}]`, "SymbolInformationList"}, // a tie: the first
		{`[{"name":"f","location":{"uri":"a","line":1},"containerName":"p"}]`, "SymbolInformationList"},
		{`[{"name":"f","location":{"uri":"a","line":1},"data":7},{"name":"g","location":{"uri":"a","line":2}}]`, "WorkspaceSymbolList"},
	} {
		var v full.WorkspaceSymbols
		roundTrip(t, tc.in, &v)
		if got := setField(v); got != tc.want {
			t.Errorf("WorkspaceSymbols %s: %s, want %s", tc.in, got, tc.want)
		}
	}
}

// roundTrip decodes in into v and checks that v encodes back as in.
func roundTrip(t *testing.T, in string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(in), v); err != nil {
		t.Fatalf("%s: %v", in, err)
	}
	if out, err := json.Marshal(v); err != nil || string(out) != in {
		t.Errorf("%s encodes back as %s (%v)", in, out, err)
	}
}

// TestArrayUnionErrors checks that an item that does not fit the array
// variant the first item chose is an error at its index, and a first item
// that no variant takes an error at [0].
func TestArrayUnionErrors(t *testing.T) {
	for _, tc := range []struct{ in, field, reason string }{
		{`{"contents":"x","definition":[{"targetUri":"a","targetLine":1},{"uri":"a","line":1}]}`, "definition[1].targetUri", "required field is missing"},
		{`{"contents":"x","definition":[1]}`, "definition[0]", "expected an item of Location[] or DefinitionLink[], got JSON number"},
		{`{"contents":"x","symbols":[{"name":"f"}]}`, "symbols[0]", `object matches the items of no array variant of WorkspaceSymbols; an item needs every required member of one item type: SymbolInformation ("name", "location") or WorkspaceSymbol ("name", "location")`},
		{`{"contents":"x","symbols":[{"name":"f","location":{"uri":"a","line":1},"data":1},{"name":"g"}]}`, "symbols[1].location", "required field is missing"},
	} {
		var p full.HoverShowParams
		err := json.Unmarshal([]byte(tc.in), &p)
		var fe *jsonrpc.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || fe.Reason != tc.reason {
			t.Errorf("%s: got %v, want %s: %s", tc.in, err, tc.field, tc.reason)
		}
	}
}

// TestArrayDecoderFollowsTheRule decodes random arrays into the unions of
// full.yaml with several array variants and checks that the generated
// decoder picks the variant that the rule of idl.ItemUnion, which checks
// examples, picks for the first item.
func TestArrayDecoderFollowsTheRule(t *testing.T) {
	p, err := idl.Load("../../../../idl/testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	unions := map[string]func() any{
		"DefinitionResult": func() any { return new(full.DefinitionResult) },
		"WorkspaceSymbols": func() any { return new(full.WorkspaceSymbols) },
	}
	values := map[string]string{"line": `1`, "targetLine": `2`, "originLine": `3`, "location": `{"uri":"u","line":4}`, "data": `[5]`}
	for name, alloc := range unions {
		u := p.Type(name).Type
		arrays := idl.ArrayChoices(u)
		items := idl.Choices(idl.ItemUnion(u))
		var names []string
		for _, c := range items {
			for _, f := range c.Object.Fields {
				if !contains(names, f.Name) {
					names = append(names, f.Name)
				}
			}
		}
		for range 300 {
			var members []string
			var vals [][]byte
			var parts []string
			for _, m := range names {
				if rng.IntN(3) == 0 {
					continue
				}
				v, ok := values[m]
				if !ok {
					v = `"s"`
				}
				parts = append(parts, fmt.Sprintf("%q:%s", m, v))
				members, vals = append(members, m), append(vals, []byte(v))
			}
			in := "[{" + strings.Join(parts, ",") + "}]"
			want := ""
			if i := idl.ChooseObject(items, members, func(i int) []byte { return vals[i] }); i >= 0 {
				v := reflect.ValueOf(alloc()).Elem()
				want = v.Type().Field(arrays[items[i].Variant].Variant).Name
			}
			v := alloc()
			got := ""
			if err := json.Unmarshal([]byte(in), v); err == nil {
				got = setField(reflect.ValueOf(v).Elem().Interface())
			}
			if got != want {
				t.Errorf("%s %s: decoder chose %q, the rule %q", name, in, got, want)
			}
		}
	}
}
