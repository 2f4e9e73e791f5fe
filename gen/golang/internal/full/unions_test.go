package full_test

import (
	"bytes"
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

// setField returns the name of the one field of the union struct u that is
// set, "" when none is, or "several".
func setField(u any) string {
	v := reflect.ValueOf(u)
	name := ""
	for i := range v.NumField() {
		if !v.Field(i).IsNil() {
			if name != "" {
				return "several"
			}
			name = v.Type().Field(i).Name
		}
	}
	return name
}

// TestOverlappingUnionsDecode checks that each value decodes into the
// variant the decision rule picks, ties and nested unions included, and
// encodes back to the same JSON.
func TestOverlappingUnionsDecode(t *testing.T) {
	decode := func(t *testing.T, in string, v any) {
		t.Helper()
		if err := json.Unmarshal([]byte(in), v); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		out, err := json.Marshal(v)
		if err != nil || !bytes.Equal(out, []byte(in)) {
			t.Errorf("%s encodes back as %s (%v)", in, out, err)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{`true`, "Boolean"},
		{`{}`, "HoverOptions"},
		{`{"workDoneProgress":true}`, "HoverOptions"},
		{`{"documentSelector":null}`, "HoverRegistrationOptions"},
		{`{"workDoneProgress":true,"documentSelector":[{"language":"go"}],"id":"h"}`, "HoverRegistrationOptions"},
	} {
		var v full.HoverProvider
		decode(t, tc.in, &v)
		if got := setField(v); got != tc.want {
			t.Errorf("HoverProvider %s: %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{`{"language":"go"}`, "TextDocumentFilterLanguage"},
		{`{"scheme":"file"}`, "TextDocumentFilterScheme"},
		{`{"pattern":"*.go"}`, "TextDocumentFilterPattern"},
		{`{"scheme":"file","pattern":"*.go"}`, "TextDocumentFilterScheme"},                // a tie: the first listed
		{`{"language":"go","scheme":"file","pattern":"*"}`, "TextDocumentFilterLanguage"}, // a tie of three
	} {
		var v full.TextDocumentFilter
		decode(t, tc.in, &v)
		if got := setField(v); got != tc.want {
			t.Errorf("TextDocumentFilter %s: %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want, nested string }{
		{`{"kind":"markdown","value":"# hi"}`, "MarkupContent", ""},
		{`{"language":"go","value":"x"}`, "MarkedString", "MarkedCode"},
		{`"hi"`, "MarkedString", "String"},
		{`["hi",{"language":"go","value":"x"}]`, "Array", ""},
	} {
		var v full.HoverContents
		decode(t, tc.in, &v)
		if got := setField(v); got != tc.want {
			t.Errorf("HoverContents %s: %s, want %s", tc.in, got, tc.want)
		}
		if tc.nested != "" {
			if got := setField(*v.MarkedString); got != tc.nested {
				t.Errorf("HoverContents %s: MarkedString holds %s, want %s", tc.in, got, tc.nested)
			}
		}
	}
	for _, tc := range []struct{ in, want string }{
		{`{"kind":"begin","label":"Indexing"}`, "ProgressBegin"},
		{`{"kind":"end"}`, "ProgressEnd"},
		{`{"kind":"report","percentage":50}`, "Other"}, // no constant matches
		{`{"label":"t"}`, "Other"},                     // kind is required
		{`[1,2]`, "Other"},
		{`42`, "Other"},
		{`null`, "Other"},
	} {
		var v full.ProgressValue
		decode(t, tc.in, &v)
		if got := setField(v); got != tc.want {
			t.Errorf("ProgressValue %s: %s, want %s", tc.in, got, tc.want)
		}
	}
	// A union nested last keeps its catch-all: what no choice takes goes
	// to ProgressValue, in its Other.
	for _, tc := range []struct{ in, want, nested string }{
		{`"tok"`, "String", ""},
		{`{"kind":"end"}`, "ProgressValue", "ProgressEnd"},
		{`{"kind":"report"}`, "ProgressValue", "Other"},
		{`7`, "ProgressValue", "Other"},
	} {
		var v full.TokenOrProgress
		decode(t, tc.in, &v)
		if got := setField(v); got != tc.want {
			t.Errorf("TokenOrProgress %s: %s, want %s", tc.in, got, tc.want)
		}
		if tc.nested != "" {
			if got := setField(*v.ProgressValue); got != tc.nested {
				t.Errorf("TokenOrProgress %s: ProgressValue holds %s, want %s", tc.in, got, tc.nested)
			}
		}
	}
	// An escaped constant is the constant.
	var p full.ProgressValue
	if err := json.Unmarshal([]byte(`{"kind":"b\u0065gin","label":"t"}`), &p); err != nil || p.ProgressBegin == nil {
		t.Errorf("escaped constant: %+v, %v", p, err)
	}
	if b, err := json.Marshal(full.NewProgressValue(json.RawMessage(`{"x":1}`))); err != nil || string(b) != `{"x":1}` {
		t.Errorf("Other encodes as %s, %v", b, err)
	}
	// A member declared as a closed enum decides like a constant: an object
	// goes to the variant whose values of type hold its type, even when
	// another declares more of its members.
	for _, tc := range []struct{ in, want string }{
		{`{"type":"string","minLength":1}`, "TextField"},
		{`{"type":"integer","minimum":1}`, "NumberField"},
		{`{"type":"boolean","label":"t"}`, "FlagField"},
	} {
		var v full.FormField
		decode(t, tc.in, &v)
		if got := setField(v); got != tc.want {
			t.Errorf("FormField %s: %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{`{"type":"string","minimum":1}`, "TextField"},
		{`{"type":"boolean","minimum":1,"label":"t"}`, "FlagField"},
		{`{"type":"numb\u0065r"}`, "NumberField"},
	} {
		var v full.FormField
		if err := json.Unmarshal([]byte(tc.in), &v); err != nil || setField(v) != tc.want {
			t.Errorf("FormField %s: %s (%v), want %s", tc.in, setField(v), err, tc.want)
		}
	}
}

// TestOverlappingUnionErrors checks the errors of objects matching no
// variant, and of a chosen variant that does not decode.
func TestOverlappingUnionErrors(t *testing.T) {
	var f full.TextDocumentFilter
	err := json.Unmarshal([]byte(`{"other":1}`), &f)
	want := `object matches no variant of TextDocumentFilter; an object needs every required member of one variant: TextDocumentFilterLanguage ("language"), TextDocumentFilterScheme ("scheme") or TextDocumentFilterPattern ("pattern")`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	var ff full.FormField
	err = json.Unmarshal([]byte(`{"type":"array","minimum":1}`), &ff)
	want = `object matches no variant of FormField; an object needs every required member of one variant: TextField ("type": "string"), NumberField ("type": "number" or "integer") or FlagField ("type": "boolean")`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	var h full.HoverShowParams
	err = json.Unmarshal([]byte(`{"contents":"x","provider":{"documentSelector":3}}`), &h)
	var fe *jsonrpc.FieldError
	if !errors.As(err, &fe) || !strings.HasPrefix(fe.Field, "provider.documentSelector") {
		t.Errorf("a chosen variant's bad member: %v, want an error at provider.documentSelector", err)
	}
}

// TestExamplesDecodeAsChecked checks that every example of hover/show
// decodes into the generated types and encodes back to the same JSON.
func TestExamplesDecodeAsChecked(t *testing.T) {
	p, err := idl.Load("../../../../idl/testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range p.Method("hover/show").Examples {
		var v full.HoverShowParams
		if err := json.Unmarshal(x.Params.JSON, &v); err != nil {
			t.Fatalf("%s: %v", x.Params.JSON, err)
		}
		if out, err := json.Marshal(v); err != nil || !bytes.Equal(out, x.Params.JSON) {
			t.Errorf("%s encodes back as %s (%v)", x.Params.JSON, out, err)
		}
	}
}

// TestDecoderFollowsTheRule decodes random objects over the members of the
// overlapping unions of full.yaml and checks that the generated decoder
// picks the variant idl.ChooseObject, which checks examples, picks.
func TestDecoderFollowsTheRule(t *testing.T) {
	p, err := idl.Load("../../../../idl/testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(12, 12))
	unions := map[string]func() any{
		"HoverProvider":      func() any { return new(full.HoverProvider) },
		"TextDocumentFilter": func() any { return new(full.TextDocumentFilter) },
		"ProgressValue":      func() any { return new(full.ProgressValue) },
		"Contents":           func() any { return new(full.Contents) },
		"HoverContents":      func() any { return new(full.HoverContents) },
		"TokenOrProgress":    func() any { return new(full.TokenOrProgress) },
		"FormField":          func() any { return new(full.FormField) },
	}
	// Values that decode in every member of these unions that may hold
	// them, and the constants' rivals.
	values := map[string][]string{
		"documentSelector": {`null`, `[]`}, "workDoneProgress": {`true`}, "kind": {`"begin"`, `"end"`, `"report"`, `"markdown"`},
		"label": {`"t"`}, "message": {`"m"`}, "uri": {`"u"`}, "mimeType": {`"m"`}, "blob": {`"aGk="`},
		"type": {`"string"`, `"number"`, `"integer"`, `"boolean"`, `"array"`, `"numb\u0065r"`}, "minimum": {`1`}, "minLength": {`2`},
	}
	for name, alloc := range unions {
		u := p.Type(name).Type
		choices := idl.Choices(u)
		var names []string
		for _, c := range choices {
			if c.Object == nil {
				continue
			}
			for _, f := range c.Object.Fields {
				if !contains(names, f.Name) {
					names = append(names, f.Name)
				}
			}
		}
		names = append(names, "extra")
		for range 300 {
			var members []string
			var vals [][]byte
			var b strings.Builder
			b.WriteByte('{')
			for _, m := range names {
				if rng.IntN(2) == 0 {
					continue
				}
				v := `"s"`
				if vs := values[m]; len(vs) > 0 {
					v = vs[rng.IntN(len(vs))]
				}
				if len(members) > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, "%q:%s", m, v)
				members, vals = append(members, m), append(vals, []byte(v))
			}
			b.WriteByte('}')
			want := ""
			if i := idl.ChooseObject(choices, members, func(i int) []byte { return vals[i] }); i >= 0 {
				want = variantField(u, choices[i])
			} else if last := choices[len(choices)-1]; last.CatchAll {
				want = "Other" // or the union holding it
				if t := u.Variants[last.Variant].Type; t.Kind == idl.KindRef {
					want = t.Ref.GoName
				}
			}
			v := alloc()
			err := json.Unmarshal([]byte(b.String()), v)
			got := ""
			if err == nil {
				got = setField(reflect.ValueOf(v).Elem().Interface())
			}
			if got != want {
				t.Errorf("%s %s: decoder chose %q (%v), the rule %q", name, b.String(), got, err, want)
			}
		}
	}
}

// variantField returns the Go field of the union u that holds choice c.
func variantField(u *idl.Type, c idl.Choice) string {
	t := u.Variants[c.Variant].Type
	if t.Kind == idl.KindRef {
		return t.Ref.GoName
	}
	return strings.ToUpper(t.Kind.String()[:1]) + t.Kind.String()[1:]
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
