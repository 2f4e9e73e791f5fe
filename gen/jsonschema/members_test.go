package jsonschema_test

import (
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/gen/jsonschema"
	"github.com/rpcgen/rpcgen/idl"
)

// TestOverlappingVariants checks that a union whose object variants may
// match the same object is an anyOf accepting what some variant accepts,
// that object variants told apart by constants stay a oneOf, and that a
// catch-all any is the true schema, last.
func TestOverlappingVariants(t *testing.T) {
	src := `protocol: {name: members, roles: {a: , b: }, framing: ndjson}
types:
  TextEdit: {fields: {range: string, newText: string}}
  InsertReplaceEdit: {fields: {newText: string, insert: string, replace: string}}
  Snippet: {fields: {snippet: string, label?: string}}
  Edit: TextEdit | InsertReplaceEdit | Snippet | integer
  Begin: {fields: {kind: "'begin'", title: string}}
  End: {fields: {kind: "'end'", message?: string}}
  Progress: Begin | End | string
  Value: Begin | End | any
`
	p, err := idl.Parse("members.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	files, err := jsonschema.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"schema/Edit.json":     `"anyOf"`,
		"schema/Progress.json": `"oneOf"`,
		"schema/Value.json":    `"anyOf"`,
	} {
		for _, f := range files {
			if f.Path == name && !strings.Contains(string(f.Content), want) {
				t.Errorf("%s lacks %s:\n%s", name, want, f.Content)
			}
		}
	}
	s := compileAll(t, p, files)
	for _, c := range []struct {
		file, instance string
		valid          bool
	}{
		{"Edit", `{"range":"r","newText":"x"}`, true},
		{"Edit", `{"newText":"x","insert":"i","replace":"r"}`, true},
		{"Edit", `{"snippet":"s","label":"l"}`, true},
		{"Edit", `3`, true},
		{"Edit", `{"range":"r","newText":"x","insert":"i"}`, true}, // a TextEdit, with one member unexplained
		{"Edit", `{"newText":"x"}`, false},                         // no variant
		{"Edit", `{"insert":"i"}`, false},
		{"Progress", `{"kind":"begin","title":"t"}`, true},
		{"Progress", `{"kind":"end"}`, true},
		{"Progress", `{"kind":"report"}`, false},
		{"Value", `{"kind":"report"}`, true},
		{"Value", `[1]`, true},
	} {
		err := s.validate(t, "schema/"+c.file+".json", "", []byte(c.instance))
		if (err == nil) != c.valid {
			t.Errorf("%s %s: valid %v, got %v", c.file, c.instance, c.valid, err)
		}
	}
}
