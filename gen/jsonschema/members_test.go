package jsonschema_test

import (
	"testing"

	"github.com/rpcgen/rpcgen/gen/jsonschema"
	"github.com/rpcgen/rpcgen/idl"
)

// TestObjectVariantsExcludeEachOther checks that a union of object
// variants told apart by their members accepts exactly the objects the
// generated decoders accept: those holding the distinguishing members of
// one variant only.
func TestObjectVariantsExcludeEachOther(t *testing.T) {
	src := `protocol: {name: members, roles: {a: , b: }, framing: ndjson}
types:
  TextEdit: {fields: {range: string, newText: string}}
  InsertReplaceEdit: {fields: {newText: string, insert: string, replace: string}}
  Snippet: {fields: {snippet: string, label?: string}}
  Edit: TextEdit | InsertReplaceEdit | Snippet | integer
`
	p, err := idl.Parse("members.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	files, err := jsonschema.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	s := compileAll(t, p, files)
	for _, c := range []struct {
		instance string
		valid    bool
	}{
		{`{"range":"r","newText":"x"}`, true},
		{`{"newText":"x","insert":"i","replace":"r"}`, true},
		{`{"snippet":"s","label":"l"}`, true},
		{`3`, true},
		{`{"newText":"x"}`, false},                                          // no variant
		{`{"range":"r","newText":"x","insert":"i"}`, false},                 // TextEdit and InsertReplaceEdit
		{`{"newText":"x","insert":"i","replace":"r","snippet":"s"}`, false}, // two variants
		{`{"range":"r","newText":"x","snippet":"s"}`, false},                // a TextEdit holding Snippet's member
		{`{"insert":"i"}`, false},                                           // InsertReplaceEdit missing members
	} {
		err := s.validate(t, "schema/Edit.json", "", []byte(c.instance))
		if (err == nil) != c.valid {
			t.Errorf("%s: valid %v, got %v", c.instance, c.valid, err)
		}
	}
}
