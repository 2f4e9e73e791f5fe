package idl

import "testing"

// TestFullNamesKeysExtras checks how full.yaml's names that are not Go
// identifiers, typed map keys and inherited extra members resolve.
func TestFullNamesKeysExtras(t *testing.T) {
	p := loadFull(t)
	edits := mustType(t, p, "_Edits")
	eq(t, "_Edits GoName", edits.GoName, "XEdits")
	fields := map[string]*Field{}
	for _, f := range edits.Type.Fields {
		fields[f.Name] = f
	}
	eq(t, "$schema GoName", fields["$schema"].GoName, "Schema")
	eq(t, "_meta GoName", fields["_meta"].GoName, "Meta")
	eq(t, "inherited additional", edits.Type.Additional.String(), "any")
	eq(t, "changes", fields["changes"].Type.String(), "map<DocumentUri, []string>")
	eq(t, "changes key", fields["changes"].Type.Key.Ref.Name, "DocumentUri")
	eq(t, "byLine", fields["byLine"].Type.Key.Kind, KindInteger)
	eq(t, "bySeverity", fields["bySeverity"].Type.String(), "map<Severity, string>")
	eq(t, "plain keys", mustType(t, p, "Scores").Type.Key == nil, true)
	eq(t, "folders", [2]any{fields["folders"].Optional, fields["folders"].Type.Nullable}, [2]any{true, true})
}
