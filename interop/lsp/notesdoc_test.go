package lsp_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"reflect"
	"testing"

	"github.com/rpcgen/rpcgen/examples/lsp/notes"
)

// notesDoc is what notes-doc.js expects of a notes server.
type notesDoc struct {
	Text1, Text2 string
	Diagnostics1 []diagnostic
	Diagnostics2 []diagnostic
	Hovers       []struct {
		Position struct{ Line, Character int }
		Want     *struct {
			Contents struct{ Kind, Value string }
			Range    lspRange
		}
	}
	Completion []struct {
		Label string
		Kind  int
	}
	Count struct{ Words, Distinct int }
}

type lspRange struct {
	Start, End struct{ Line, Character int }
}

type diagnostic struct {
	Range    lspRange
	Severity int
	Source   string
	Message  string
}

func rangeOf(w notes.Word) lspRange {
	var r lspRange
	r.Start.Line, r.Start.Character = w.Line, w.Start
	r.End.Line, r.End.Character = w.Line, w.End
	return r
}

// The notes package that examples/lsp/server answers with computes, for
// the document of notes-doc.js, exactly what client.js expects.
func TestNotesPackageMeetsNotesDoc(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "-e", `process.stdout.write(JSON.stringify(require("./notes-doc.js")))`)
	cmd.Dir = here
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node notes-doc.js: %v", err)
	}
	var doc notesDoc
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("notes-doc.js: %v", err)
	}
	diagnostics := func(d *notes.Doc) []diagnostic {
		var out []diagnostic
		for _, w := range d.Markers(notes.DefaultMarker) {
			out = append(out, diagnostic{Range: rangeOf(w), Severity: 2, Source: "notes", Message: notes.MarkerMessage(notes.DefaultMarker)})
		}
		return out
	}
	d1, d2 := notes.NewDoc(1, doc.Text1), notes.NewDoc(2, doc.Text2)
	if got := diagnostics(d1); !reflect.DeepEqual(got, doc.Diagnostics1) {
		t.Errorf("diagnostics after didOpen: %+v, client.js wants %+v", got, doc.Diagnostics1)
	}
	if got := diagnostics(d2); !reflect.DeepEqual(got, doc.Diagnostics2) {
		t.Errorf("diagnostics after didChange: %+v, client.js wants %+v", got, doc.Diagnostics2)
	}
	for _, h := range doc.Hovers {
		w, ok := d1.At(h.Position.Line, h.Position.Character)
		switch {
		case h.Want == nil && ok:
			t.Errorf("hover at %+v: the word %v, client.js wants null", h.Position, w)
		case h.Want != nil && (!ok || rangeOf(w) != h.Want.Range || d1.Hover(w.Text) != h.Want.Contents.Value || h.Want.Contents.Kind != "markdown"):
			t.Errorf("hover at %+v: %v %q, client.js wants %+v", h.Position, w, d1.Hover(w.Text), *h.Want)
		}
	}
	var labels []string
	for _, c := range doc.Completion {
		labels = append(labels, c.Label)
		if c.Kind != 1 {
			t.Errorf("completion item %+v: client.js wants kind 1 (Text)", c)
		}
	}
	if got := d1.Distinct(); !reflect.DeepEqual(got, labels) {
		t.Errorf("completion %q, client.js wants %q", got, labels)
	}
	if w, dd := len(d2.Words), len(d2.Distinct()); w != doc.Count.Words || dd != doc.Count.Distinct {
		t.Errorf("notes.count {%d %d}, client.js wants %+v", w, dd, doc.Count)
	}
}
