package jsonschema

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	invopop "github.com/invopop/jsonschema"

	"github.com/rpcgen/rpcgen/idl"
)

// viaReflection encodes s the slow way Encode must match: encoding/json,
// then Indent, then HTML escapes undone.
func viaReflection(t *testing.T, s *invopop.Schema) []byte {
	t.Helper()
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	buf.WriteByte('\n')
	return unescapeHTML(buf.Bytes())
}

// awkward holds strings that need every kind of escape.
var awkward = []string{
	"", "plain", `quote " and \ backslash`, "<tag> & amp", "tab\tnl\ncr\rbs\bff\f",
	"nul\x00 unit\x1f del\x7f", "bad \xff utf8 \xe2\x82", "line\u2028para\u2029",
	"é ü 日本 😀", `\u003c literally`,
}

func TestEncodeMatchesEncodingJSON(t *testing.T) {
	one := uint64(1)
	props := invopop.NewProperties()
	props.Set("a b", &invopop.Schema{Type: "string", Description: awkward[4]})
	props.Set("<k>", nil)
	props.Set("empty", &invopop.Schema{})
	emptyProps := invopop.NewProperties()
	schemas := map[string]*invopop.Schema{
		"nil":          nil,
		"empty":        {},
		"true":         invopop.TrueSchema,
		"false":        invopop.FalseSchema,
		"empty enum":   {Enum: []any{}},
		"empty props":  {Properties: emptyProps},
		"empty defs":   {Definitions: invopop.Definitions{}},
		"extras":       {Type: "object", Extras: map[string]any{"x-a": 1, "x-b": "<b>"}},
		"only extras":  {Extras: map[string]any{"x": true}},
		"numbers":      {Type: "integer", Minimum: "1", MaxLength: &one, MultipleOf: "2"},
		"bounds":       {Type: "number", Minimum: "-0.5", Maximum: "1e3", Pattern: "x"},
		"only bounds":  {Minimum: "0"},
		"dep required": {DependentRequired: map[string][]string{"a": {"b"}}},
		"everything": {
			Version: draft, ID: "https://x/<y>", Anchor: "a", Ref: "#/$defs/T", DynamicRef: "#d",
			Definitions: invopop.Definitions{"Z": {Type: "null"}, "A": {}, "M": nil, "B": invopop.TrueSchema},
			Comments:    awkward[2],
			AllOf:       []*invopop.Schema{{Type: "string"}, nil, {}},
			AnyOf:       []*invopop.Schema{{Type: "null"}},
			OneOf:       []*invopop.Schema{{Required: []string{"a", "<b>"}}},
			Not:         &invopop.Schema{Required: []string{"x"}},
			If:          &invopop.Schema{}, Then: &invopop.Schema{Type: "array"}, Else: invopop.FalseSchema,
			DependentSchemas:     map[string]*invopop.Schema{"q": {}, "p": {Type: "object"}},
			PrefixItems:          []*invopop.Schema{{Type: "number"}},
			Items:                &invopop.Schema{Items: &invopop.Schema{Type: "boolean"}},
			Contains:             &invopop.Schema{Const: json.RawMessage(`{"a": [1, 2, {}], "b": "<&>"}`)},
			Properties:           props,
			PatternProperties:    map[string]*invopop.Schema{"^x": {Type: "string"}},
			AdditionalProperties: &invopop.Schema{Type: "integer"},
			PropertyNames:        &invopop.Schema{Pattern: "^[a-z]+$"},
			Type:                 "object",
			Enum:                 []any{"a", 1, 2.5, nil, json.RawMessage(`[]`), map[string]any{"k": []any{}}},
			Const:                json.RawMessage(`"x\u0026y"`),
			Pattern:              "^\\d+$", UniqueItems: true,
			Required: []string{"a"}, Format: "uri", ContentEncoding: "base64", ContentMediaType: "text/plain",
			ContentSchema: &invopop.Schema{Type: "string"},
			Title:         "T", Description: strings.Join(awkward, " | "),
			Default:    json.RawMessage(` { "a" : 1 } `),
			Deprecated: true, ReadOnly: true, WriteOnly: true,
			Examples: []any{json.RawMessage(`{"x": "<y>"}`), "s", 3, json.RawMessage(`[]`)},
		},
	}
	for i, s := range awkward {
		schemas["awkward "+s] = &invopop.Schema{Title: s, Enum: []any{s}, Required: []string{s}, Examples: []any{json.RawMessage(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`)}}
		if !json.Valid([]byte(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`)) {
			schemas["awkward "+s].Examples = []any{i}
		}
	}
	for name, s := range schemas {
		got, err := Encode(s)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if want := viaReflection(t, s); !bytes.Equal(got, want) {
			t.Errorf("%s: got\n%s\nwant\n%s", name, got, want)
		}
	}
}

// TestGenerateMatchesEncodingJSON checks the files Generate writes, whose
// $defs entries are encoded once and shared, against the reflection-based
// encoding of the schemas they come from.
func TestGenerateMatchesEncodingJSON(t *testing.T) {
	p, err := idl.Load(filepath.Join("..", "..", "idl", "testdata", "full.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		var s *invopop.Schema
		name, _ := strings.CutPrefix(f.Path, "schema/")
		if td := typeNamed(p, strings.TrimSuffix(name, ".json")); td != nil {
			s, err = typeFile(p, td, nil)
		} else if name == p.Name+".schema.json" {
			s, err = Bundle(p)
		} else {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if want := viaReflection(t, s); !bytes.Equal(f.Content, want) {
			t.Errorf("%s differs from its reflection-based encoding", f.Path)
		}
		checked++
	}
	if checked <= len(p.Types)/2 {
		t.Errorf("checked %d files of %d types", checked, len(p.Types))
	}
}

// typeNamed returns the named type of p called name, or nil.
func typeNamed(p *idl.Protocol, name string) *idl.TypeDef {
	for _, td := range p.Types {
		if td.Name == name {
			return td
		}
	}
	return nil
}

func FuzzAppendString(f *testing.F) {
	for _, s := range awkward {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(buf.String(), "\n")
		if got := string(appendString(nil, s)); got != want {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	})
}
