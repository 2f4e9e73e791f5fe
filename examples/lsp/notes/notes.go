// Package notes is the language of the example LSP server: plain text in
// which every line holding a marker word (TODO by default) gets a warning,
// a word's hover tells how often it occurs, and completion offers the
// document's words. interop/lsp/README.md defines the behaviour.
//
// Positions count UTF-16 code units, LSP's default encoding.
package notes

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
)

// DefaultMarker is the word diagnostics look for until the client's
// configuration names another.
const DefaultMarker = "TODO"

// Word is one maximal run of letters and digits, with its place: its line
// and its first and past-the-end character (UTF-16 code units) there.
type Word struct {
	Text       string
	Line       int
	Start, End int
}

// Words returns the words of text in order. Lines end at "\n"; a "\r"
// before it is not part of any word.
func Words(text string) []Word {
	var words []Word
	for n, line := range strings.Split(text, "\n") {
		col, start, begin := 0, -1, 0
		for i, r := range line {
			if unicode.IsLetter(r) || unicode.IsNumber(r) {
				if start < 0 {
					start, begin = col, i
				}
			} else if start >= 0 {
				words = append(words, Word{Text: line[begin:i], Line: n, Start: start, End: col})
				start = -1
			}
			col += units(r)
		}
		if start >= 0 {
			words = append(words, Word{Text: line[begin:], Line: n, Start: start, End: col})
		}
	}
	return words
}

// units is the number of UTF-16 code units of r.
func units(r rune) int {
	if n := utf16.RuneLen(r); n > 0 {
		return n
	}
	return 1 // an invalid byte, decoded as U+FFFD
}

// Doc is one open document.
type Doc struct {
	Version int32
	Text    string
	Words   []Word
}

// NewDoc returns the document with its words.
func NewDoc(version int32, text string) *Doc {
	return &Doc{Version: version, Text: text, Words: Words(text)}
}

// Markers returns the occurrences of marker, one warning each.
func (d *Doc) Markers(marker string) []Word {
	var out []Word
	for _, w := range d.Words {
		if w.Text == marker {
			out = append(out, w)
		}
	}
	return out
}

// MarkerMessage is the message of a marker's warning.
func MarkerMessage(marker string) string {
	return marker + " left in the note"
}

// At returns the word the character at (line, char) belongs to.
func (d *Doc) At(line, char int) (Word, bool) {
	for _, w := range d.Words {
		if w.Line == line && w.Start <= char && char < w.End {
			return w, true
		}
	}
	return Word{}, false
}

// Count returns how often word occurs.
func (d *Doc) Count(word string) int {
	n := 0
	for _, w := range d.Words {
		if w.Text == word {
			n++
		}
	}
	return n
}

// Hover is the markdown shown over word: how often it occurs.
func (d *Doc) Hover(word string) string {
	n := d.Count(word)
	unit := "times"
	if n == 1 {
		unit = "time"
	}
	return fmt.Sprintf("**%s** occurs %d %s", word, n, unit)
}

// Distinct returns the document's words without repeats, in order of
// first occurrence.
func (d *Doc) Distinct() []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range d.Words {
		if !seen[w.Text] {
			seen[w.Text] = true
			out = append(out, w.Text)
		}
	}
	return out
}

// The bounds of a Store: a client cannot make the server keep more than
// these, whatever it opens.
const (
	MaxDocBytes   = 256 << 10 // the text of one document
	MaxDocs       = 256       // documents open at once
	MaxTotalBytes = 4 << 20   // the text of all open documents
)

// ErrTooBig is the error of a document the store does not keep because it
// is past one of its bounds.
var ErrTooBig = errors.New("past the server's bounds")

// Store holds the open documents by URI and the marker; it is safe for
// concurrent use.
type Store struct {
	mu     sync.Mutex
	docs   map[string]*Doc
	total  int // bytes of text of docs
	marker string
}

// NewStore returns an empty store with the default marker.
func NewStore() *Store {
	return &Store{docs: map[string]*Doc{}, marker: DefaultMarker}
}

// Set stores the text of uri at version and returns the document. A text
// past [MaxDocBytes], a new document past [MaxDocs], or a text that would
// take all open documents past [MaxTotalBytes] is not kept: uri is then
// closed and the error wraps ErrTooBig.
func (s *Store) Set(uri string, version int32, text string) (*Doc, error) {
	if len(text) > MaxDocBytes {
		s.Close(uri)
		return nil, fmt.Errorf("%w: a document of %d bytes, at most %d", ErrTooBig, len(text), MaxDocBytes)
	}
	d := NewDoc(version, text)
	s.mu.Lock()
	defer s.mu.Unlock()
	old, open := s.docs[uri]
	total := s.total + len(text)
	if open {
		total -= len(old.Text)
	}
	var err error
	switch {
	case !open && len(s.docs) >= MaxDocs:
		err = fmt.Errorf("%w: %d documents open, at most %d", ErrTooBig, len(s.docs), MaxDocs)
	case total > MaxTotalBytes:
		err = fmt.Errorf("%w: %d bytes in open documents, at most %d", ErrTooBig, total, MaxTotalBytes)
	}
	if err != nil {
		s.close(uri)
		return nil, err
	}
	s.docs[uri], s.total = d, total
	return d, nil
}

// Get returns the document of uri, if open.
func (s *Store) Get(uri string) (*Doc, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[uri]
	return d, ok
}

// Close forgets uri.
func (s *Store) Close(uri string) {
	s.mu.Lock()
	s.close(uri)
	s.mu.Unlock()
}

// close forgets uri; the caller holds s.mu.
func (s *Store) close(uri string) {
	if d, ok := s.docs[uri]; ok {
		s.total -= len(d.Text)
		delete(s.docs, uri)
	}
}

// SetMarker sets the marker word; an empty one keeps the current marker.
func (s *Store) SetMarker(marker string) {
	if marker == "" {
		return
	}
	s.mu.Lock()
	s.marker = marker
	s.mu.Unlock()
}

// Marker returns the marker word.
func (s *Store) Marker() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.marker
}
