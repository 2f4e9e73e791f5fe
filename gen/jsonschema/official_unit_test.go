package jsonschema_test

import (
	"slices"
	"testing"
)

// TestComparer checks the comparison of official and generated schemas on
// small documents: what compares equal and what is reported.
func TestComparer(t *testing.T) {
	for _, tc := range []struct {
		name, off, ours string
		want            []string // keys of the differences
	}{
		{"same object, inline and named", `{"A": {"type": "object", "properties": {"b": {"type": "object", "properties": {"c": {"type": "string"}}}}}}`,
			`{"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B", "description": "x"}}}, "B": {"type": "object", "properties": {"c": {"type": "string"}}}}`, nil},
		{"required member made optional", `{"A": {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}}`,
			`{"A": {"type": "object", "properties": {"b": {"type": "string"}}}}`, []string{"A.b required"}},
		{"type list and nested union", `{"A": {"type": ["string", "integer", "null"]}}`,
			`{"A": {"anyOf": [{"$ref": "#/$defs/B"}, {"type": "null"}]}, "B": {"oneOf": [{"type": "integer"}, {"type": "string"}]}}`, nil},
		{"variant missing", `{"A": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}`,
			`{"A": {"oneOf": [{"type": "string"}]}}`, []string{"A variants"}},
		{"allOf merged", `{"A": {"allOf": [{"$ref": "#/$defs/R"}, {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}]}, "R": {"type": "object", "additionalProperties": {}}}`,
			`{"A": {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"], "additionalProperties": true}, "R": {"type": "object", "additionalProperties": true}}`, nil},
		{"extra members dropped", `{"A": {"type": "object", "additionalProperties": {}}}`, `{"A": {"type": "object"}}`, []string{"A additionalProperties"}},
		{"format, bounds and enum", `{"A": {"type": "object", "properties": {"b": {"type": "string", "format": "byte"}, "c": {"type": "number", "maximum": 1}, "d": {"type": "string", "enum": ["x", "y"]}}}}`,
			`{"A": {"type": "object", "properties": {"b": {"type": "string", "format": "uri"}, "c": {"type": "number"}, "d": {"type": "string", "enum": ["y", "x"]}}}}`,
			[]string{"A.b format", "A.c maximum"}},
		{"union of objects differing in one member", `{"A": {"anyOf": [{"type": "object", "properties": {"k": {"const": "a"}, "m": {"type": "string"}}}, {"type": "object", "properties": {"k": {"const": "a"}, "m": {"type": "integer"}}}]}}`,
			`{"A": {"type": "object", "properties": {"k": {"const": "a"}, "m": {"oneOf": [{"type": "integer"}, {"type": "string"}]}}}}`, nil},
		{"union of objects differing in two members", `{"A": {"anyOf": [{"type": "object", "properties": {"k": {"const": "a"}, "m": {"type": "string"}}}, {"type": "object", "properties": {"k": {"const": "b"}, "m": {"type": "integer"}}}]}}`,
			`{"A": {"type": "object", "properties": {"k": {"type": "string"}, "m": {"oneOf": [{"type": "integer"}, {"type": "string"}]}}}}`, []string{"A variants"}},
		{"definition missing and extra", `{"A": {"type": "string"}}`, `{"B": {"type": "string"}}`, []string{"A definition", "B definition"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			off, err := parseSchemaDoc([]byte(`{"$defs": ` + tc.off + `}`))
			if err != nil {
				t.Fatal(err)
			}
			ours, err := parseSchemaDoc([]byte(`{"$defs": ` + tc.ours + `}`))
			if err != nil {
				t.Fatal(err)
			}
			c := newComparer(off, ours, nil)
			for _, name := range []string{"A", "R"} {
				if off.defs[name] != nil {
					c.definition(name)
				}
			}
			c.unreached()
			var got []string
			for _, d := range c.diffs {
				got = append(got, d.key())
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("differences %v, want %v (%v)", got, tc.want, c.diffs)
			}
		})
	}
}
