package framing

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"
	"unsafe"
)

// TestReaderReleasesBuffer checks that a reader holds its pooled buffer
// only while bytes of a message are buffered: after a message that ended
// its read it holds none, and it keeps the buffer while the next message
// is already buffered.
func TestReaderReleasesBuffer(t *testing.T) {
	for _, f := range []Framing{NDJSON, ContentLength} {
		var in bytes.Buffer
		w := f.NewWriter(&in)
		long := `{"s":"` + strings.Repeat("x", 3*firstRead) + `"}`
		for _, m := range []string{`{"a":1}`, `{"b":2}`, long} {
			if err := w.Write([]byte(m)); err != nil {
				t.Fatal(err)
			}
		}
		r := f.NewReader(&in, Limits{})
		src := func() *source {
			switch r := r.(type) {
			case *ndReader:
				return &r.src
			case *clReader:
				return &r.src
			}
			t.Fatalf("%T", r)
			return nil
		}
		// The first read takes in both short messages and part of the long one.
		for i, want := range []string{`{"a":1}`, `{"b":2}`, long} {
			got, err := r.Read()
			if err != nil || string(got) != want {
				t.Fatalf("%s: message %d: %.40q, %v", f.Name(), i, got, err)
			}
			if held := src().br != nil; held != (i < 2) {
				t.Errorf("%s: after message %d the reader holds a buffer: %v", f.Name(), i, held)
			}
		}
		if _, err := r.Read(); err != io.EOF {
			t.Fatalf("%s: at the end: %v, want io.EOF", f.Name(), err)
		}
	}
}

// TestWriterBufferedSame checks that writing to a buffered destination,
// in pieces, gives the same bytes as writing to an unbuffered one.
func TestWriterBufferedSame(t *testing.T) {
	msgs := []string{`{"a":1}`, "{\"a\":\r\n1,\n\"b\":\r2}\n", `{"s":"` + strings.Repeat("y", 70<<10) + `"}`}
	for _, f := range []Framing{NDJSON, ContentLength} {
		var plain, buffered bytes.Buffer
		pw := f.NewWriter(&plain)
		bw := bufio.NewWriterSize(&buffered, 4096)
		fw := f.NewWriter(bw)
		for _, m := range msgs {
			if err := pw.Write([]byte(m)); err != nil {
				t.Fatal(err)
			}
			if err := fw.Write([]byte(m)); err != nil {
				t.Fatal(err)
			}
		}
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(plain.Bytes(), buffered.Bytes()) {
			t.Errorf("%s: buffered writes differ from plain ones", f.Name())
		}
	}
}

// idleReaderBudget is the most bytes a reader may take, its first-read
// buffer included: what a connection waiting for its next message holds
// for its reader. Each is a size class: the NDJSON reader fits 384 bytes
// since it keeps the ends of a line skipped as too long apart (448
// before).
var idleReaderBudget = map[string]uintptr{"ndjson": 384, "content-length": 448}

// TestIdleReaderSmall checks the size of each framing's reader against
// idleReaderBudget.
func TestIdleReaderSmall(t *testing.T) {
	for name, size := range map[string]uintptr{
		"ndjson":         unsafe.Sizeof(ndReader{}),
		"content-length": unsafe.Sizeof(clReader{}),
	} {
		if size > idleReaderBudget[name] {
			t.Errorf("a %s reader takes %d bytes, budget %d", name, size, idleReaderBudget[name])
		}
	}
}

// FuzzWriterBufferedSame checks, for any message, that writing it to a
// buffered destination gives the bytes writing it to an unbuffered one
// gives, the line ends it holds replaced alike.
func FuzzWriterBufferedSame(f *testing.F) {
	for _, seed := range []string{`{"a":1}`, "{\"a\":\r\n1,\n\"b\":\r2}\n", "\r\r\n\n{}\n\r", "x\ny", "\n\n\nz"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		for _, fr := range []Framing{NDJSON, ContentLength} {
			var plain, buffered bytes.Buffer
			bw := bufio.NewWriterSize(&buffered, 16)
			perr := fr.NewWriter(&plain).Write(msg)
			berr := fr.NewWriter(bw).Write(msg)
			if (perr == nil) != (berr == nil) {
				t.Fatalf("%s: plain write: %v, buffered: %v", fr.Name(), perr, berr)
			}
			if err := bw.Flush(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(plain.Bytes(), buffered.Bytes()) {
				t.Fatalf("%s: buffered write %q, plain %q", fr.Name(), buffered.Bytes(), plain.Bytes())
			}
		}
	})
}
