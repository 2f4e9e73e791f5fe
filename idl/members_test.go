package idl

import (
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

func TestMemberVariantsOfFull(t *testing.T) {
	p := loadFull(t)
	contents := mustType(t, p, "Contents").Type
	var got [][2]any
	for _, v := range contents.Variants {
		got = append(got, [2]any{v.Type.String(), v.Distinguishing})
	}
	eq(t, "Contents variants", got, [][2]any{
		{"TextContents", []string{"text"}},
		{"BlobContents", []string{"blob"}},
		{"string", []string(nil)},
	})
	eq(t, "Contents members", DistinguishingMembers(contents), `TextContents ("text") or BlobContents ("blob")`)
	// Unions told apart by kind alone, or by a tag, have none.
	for _, name := range []string{"Id", "Block"} {
		for _, v := range mustType(t, p, name).Type.Variants {
			if v.Distinguishing != nil {
				t.Errorf("%s: variant %s has distinguishing members %v", name, v.Type, v.Distinguishing)
			}
		}
	}
}

func TestMemberVariants(t *testing.T) {
	p, err := loadString(t, `types:
  TextEdit: {fields: {range: string, newText: string}}
  InsertReplaceEdit: {fields: {newText: string, insert: string, replace: string}}
  Edit: TextEdit | InsertReplaceEdit | []string
  Base: {fields: {uri: string, mimeType?: string}}
  Text: {extends: Base, fields: {text: string}}
  Blob: {extends: Base, fields: {blob: string, text?: string}}
  Link: {fields: {href: string}}
  Alias: Link
  Resource: Text | Alias
  Single: Text | string
`)
	if err != nil {
		t.Fatal(err)
	}
	members := func(name string) [][]string {
		var out [][]string
		for _, v := range mustType(t, p, name).Type.Variants {
			out = append(out, v.Distinguishing)
		}
		return out
	}
	eq(t, "Edit", members("Edit"), [][]string{{"range"}, {"insert", "replace"}, nil})
	// Inherited members count; an alias of an object is an object variant.
	eq(t, "Resource", members("Resource"), [][]string{{"uri", "text"}, {"href"}})
	// One object variant is told apart by its JSON kind alone.
	eq(t, "Single", members("Single"), [][]string{nil, nil})

	// Blob declares text as optional, so text does not tell Text apart.
	_, err = loadString(t, `types:
  Base: {fields: {uri: string, mimeType?: string}}
  Text: {extends: Base, fields: {text: string}}
  Blob: {extends: Base, fields: {blob: string, text?: string}}
  Contents: Text | Blob
`)
	want := "t.yaml:6:13: object variants Text and Blob of union Contents cannot be told apart: every required member of Text (uri, text) is also a member of Blob; give Text a required member that no other object variant has, or tell the variants apart with discriminator:"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}

	// Each required member of TextEdit is declared by another variant.
	_, err = loadString(t, `types:
  TextEdit: {fields: {range: string, newText: string}}
  InsertReplaceEdit: {fields: {newText: string, insert: string, replace: string}}
  Snippet: {fields: {snippet: string, range?: string}}
  Edit: Snippet | TextEdit | InsertReplaceEdit
`)
	want = "t.yaml:6:19: object variants TextEdit, Snippet and InsertReplaceEdit of union Edit cannot be told apart: every required member of TextEdit (range, newText) is also a member of Snippet and InsertReplaceEdit; give TextEdit a required member that no other object variant has, or tell the variants apart with discriminator:"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestMemberVariantExamples(t *testing.T) {
	body := `types:
  Text: {fields: {uri: string, text: string}}
  Blob: {fields: {uri: string, blob: string}}
  Contents: Text | Blob | string
methods:
  read:
    from: a
    kind: request
    result: Contents
    examples:
`
	for _, tc := range []struct{ result, err string }{
		{`{uri: a, text: b}`, ""},
		{`{uri: a, blob: b}`, ""},
		{`plain`, ""},
		{`{uri: a}`, "result matches no variant of union Contents; want the members of exactly one variant: Text (\"text\") or Blob (\"blob\")"},
		{`{uri: a, text: b, blob: c}`, "result matches several variants of union Contents"},
		{`{text: b}`, "result is missing required field uri"},
		{`{uri: a, blob: 1}`, "result.blob must be a string"},
	} {
		_, err := loadString(t, body+"      - result: "+tc.result+"\n")
		var errs Errors
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.result, err)
		case tc.err != "" && (!errors.As(err, &errs) || len(errs) != 1 || !strings.HasPrefix(errs[0].Msg, tc.err)):
			t.Errorf("%s: got %v, want one error starting %q", tc.result, err, tc.err)
		}
	}
}
