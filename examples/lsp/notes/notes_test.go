package notes

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// The document of interop/lsp/README.md (and its notes-doc.js), with the
// answers the README gives for it.
var (
	text1 = "milk and eggs\ncall Zoë TODO soon\n𝄞 milk again\nTODO write the notes server\n"
	text2 = strings.Replace(text1, "TODO write", "done: write", 1)
)

func TestREADMEDocument(t *testing.T) {
	d := NewDoc(1, text1)
	if got, want := d.Markers(DefaultMarker), []Word{{"TODO", 1, 9, 13}, {"TODO", 3, 0, 4}}; !reflect.DeepEqual(got, want) {
		t.Errorf("markers = %v, want %v (UTF-16 columns: ë is one unit)", got, want)
	}
	for _, c := range []struct {
		line, char int
		word       Word
		hover      string
	}{
		{2, 4, Word{"milk", 2, 3, 7}, "**milk** occurs 2 times"},
		{1, 7, Word{"Zoë", 1, 5, 8}, "**Zoë** occurs 1 time"},
		{2, 3, Word{"milk", 2, 3, 7}, "**milk** occurs 2 times"},
	} {
		w, ok := d.At(c.line, c.char)
		if !ok || w != c.word || d.Hover(w.Text) != c.hover {
			t.Errorf("At(%d, %d) = %v, %v, hover %q; want %v, %q", c.line, c.char, w, ok, d.Hover(w.Text), c.word, c.hover)
		}
	}
	for _, p := range [][2]int{{0, 4}, {2, 7}, {2, 0}, {2, 1}, {9, 0}} {
		if w, ok := d.At(p[0], p[1]); ok {
			t.Errorf("At(%d, %d) = %v, want no word", p[0], p[1], w)
		}
	}
	want := []string{"milk", "and", "eggs", "call", "Zoë", "TODO", "soon", "again", "write", "the", "notes", "server"}
	if got := d.Distinct(); !reflect.DeepEqual(got, want) {
		t.Errorf("Distinct = %q, want %q", got, want)
	}

	d2 := NewDoc(2, text2)
	if got := d2.Markers(DefaultMarker); len(got) != 1 || got[0] != (Word{"TODO", 1, 9, 13}) {
		t.Errorf("markers after the change = %v, want only 1:9-1:13", got)
	}
	if words, distinct := len(d2.Words), len(d2.Distinct()); words != 14 || distinct != 13 {
		t.Errorf("notes.count = {words: %d, distinct: %d}, want {14, 13}", words, distinct)
	}
	if got := MarkerMessage("TODO"); got != "TODO left in the note" {
		t.Errorf("MarkerMessage = %q", got)
	}
}

func TestWords(t *testing.T) {
	for _, c := range []struct {
		text string
		want []Word
	}{
		{"", nil},
		{"don't x2 42", []Word{{"don", 0, 0, 3}, {"t", 0, 4, 5}, {"x2", 0, 6, 8}, {"42", 0, 9, 11}}},
		{"a\r\nb", []Word{{"a", 0, 0, 1}, {"b", 1, 0, 1}}},
		{"𝒜b c", []Word{{"𝒜b", 0, 0, 3}, {"c", 0, 4, 5}}}, // a letter outside the BMP: two units
		{"Ⅻ½", []Word{{"Ⅻ½", 0, 0, 2}}},                   // letter-like and other numbers count
		{"\n\n  end", []Word{{"end", 2, 2, 5}}},
	} {
		if got := Words(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Words(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

func TestStore(t *testing.T) {
	s := NewStore()
	if s.Marker() != DefaultMarker {
		t.Errorf("marker = %q", s.Marker())
	}
	s.SetMarker("")
	s.SetMarker("FIXME")
	if s.Marker() != "FIXME" {
		t.Errorf("marker after SetMarker = %q", s.Marker())
	}
	if _, err := s.Set("file:///a", 1, "x FIXME"); err != nil {
		t.Fatal(err)
	}
	d, ok := s.Get("file:///a")
	if !ok || d.Version != 1 || len(d.Markers(s.Marker())) != 1 {
		t.Errorf("Get = %+v, %v", d, ok)
	}
	s.Close("file:///a")
	if _, ok := s.Get("file:///a"); ok {
		t.Error("the closed document is still there")
	}
}

// A Store keeps at most MaxDocs documents of at most MaxDocBytes each and
// MaxTotalBytes in all; a document past a bound is closed.
func TestStoreBounds(t *testing.T) {
	s := NewStore()
	if _, err := s.Set("file:///big", 1, strings.Repeat("a ", MaxDocBytes/2+1)); !errors.Is(err, ErrTooBig) {
		t.Fatalf("a document past MaxDocBytes: %v", err)
	}
	if _, ok := s.Get("file:///big"); ok {
		t.Error("the document past MaxDocBytes is kept")
	}
	full := strings.Repeat("w", MaxDocBytes)
	n := MaxTotalBytes / MaxDocBytes
	for i := range n {
		if _, err := s.Set(fmt.Sprintf("file:///%d", i), 1, full); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
	}
	if _, err := s.Set("file:///one-more", 1, "x"); !errors.Is(err, ErrTooBig) {
		t.Fatalf("a byte past MaxTotalBytes: %v", err)
	}
	// Replacing a document counts its new text only.
	if _, err := s.Set("file:///0", 2, full); err != nil {
		t.Fatalf("replacing a document: %v", err)
	}
	// A change past the bounds closes the document, freeing its bytes.
	if _, err := s.Set("file:///0", 3, full+"x"); !errors.Is(err, ErrTooBig) {
		t.Fatalf("a change past MaxDocBytes: %v", err)
	}
	if _, ok := s.Get("file:///0"); ok {
		t.Error("the document changed past MaxDocBytes is still open")
	}
	for i := range n {
		s.Close(fmt.Sprintf("file:///%d", i))
	}
	for i := range MaxDocs {
		if _, err := s.Set(fmt.Sprintf("file:///empty-%d", i), 1, ""); err != nil {
			t.Fatalf("empty document %d: %v", i, err)
		}
	}
	if _, err := s.Set("file:///one-more", 1, ""); !errors.Is(err, ErrTooBig) {
		t.Fatalf("a document past MaxDocs: %v", err)
	}
}
