package framing_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// fuzzLimits are small so fuzzed inputs reach them.
var fuzzLimits = framing.Limits{MaxMessageSize: 64, MaxHeaderSize: 256}

// More seeds, covering malformed input, are in testdata/fuzz.
func FuzzContentLengthReader(f *testing.F) {
	f.Add([]byte(""))
	f.Add([]byte("Content-Length: 2\r\n\r\n{}Content-Length: 1\r\n\r\n1"))
	f.Add([]byte("content-type: x\ncontent-length:\t3 \n\n[1]"))
	f.Add([]byte("Content-Length: 70\r\n\r\n" + strings.Repeat("x", 70) + "Content-Length: 1\r\n\r\n1"))
	f.Add([]byte("Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got := drain(t, framing.ContentLength, bytes.NewReader(data), len(data), false)
		oneByte := drain(t, framing.ContentLength, iotest.OneByteReader(bytes.NewReader(data)), len(data), true)
		if !equalResults(got, oneByte) {
			t.Fatalf("reading whole gave %v,\nreading one byte at a time gave %v", got, oneByte)
		}
	})
}

// More seeds, covering malformed input, are in testdata/fuzz.
func FuzzNDJSONReader(f *testing.F) {
	f.Add([]byte(""))
	f.Add([]byte("{}\n[1]\r\n\n  \n\"x\""))
	f.Add([]byte(strings.Repeat("7", 70) + "\r\n1\n"))
	f.Add([]byte("\r\r\n\r"))
	f.Add([]byte("\"héllo ✓\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got := drain(t, framing.NDJSON, bytes.NewReader(data), len(data), false)
		oneByte := drain(t, framing.NDJSON, iotest.OneByteReader(bytes.NewReader(data)), len(data), true)
		if !equalResults(got, oneByte) {
			t.Fatalf("reading whole gave %v,\nreading one byte at a time gave %v", got, oneByte)
		}
		if want := ndjsonModel(data, fuzzLimits.MaxMessageSize); !equalResults(got, want) {
			t.Fatalf("reader gave %v,\nmodel gave %v", got, want)
		}
	})
}

// FuzzRoundTrip writes the JSON values in data, separated by NUL bytes
// (which valid JSON cannot contain), with each framing and reads them
// back.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"x","params":[1,2]}`))
	f.Add([]byte("1\x00\"héllo ✓\"\x00{\n \"a\" :\r\n [ ] }\x00 [\t] "))
	f.Add([]byte("\"\\n\\r\\u2028\"\x00null\x00\x00true"))
	f.Add([]byte("{}\x00not json\x00[]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var msgs [][]byte
		for m := range bytes.SplitSeq(data, []byte{0}) {
			if json.Valid(m) {
				msgs = append(msgs, m)
			}
		}
		for _, fr := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
			var wire bytes.Buffer
			cw := &countingWriter{w: &wire}
			w := fr.NewWriter(cw)
			for _, m := range msgs {
				if err := w.Write(m); err != nil {
					t.Fatalf("%s: Write(%q): %v", fr.Name(), m, err)
				}
			}
			if cw.calls != len(msgs) {
				t.Fatalf("%s: %d Write calls for %d messages", fr.Name(), cw.calls, len(msgs))
			}
			if fr == framing.NDJSON && bytes.Count(wire.Bytes(), []byte{'\n'}) != len(msgs) {
				t.Fatalf("ndjson: wire %q does not hold one line per message", wire.Bytes())
			}
			r := fr.NewReader(&wire, framing.Limits{})
			for _, m := range msgs {
				want := m
				if fr == framing.NDJSON {
					// Byte-wise, as json.Valid accepts invalid UTF-8.
					want = bytes.ReplaceAll(bytes.ReplaceAll(m, []byte{'\n'}, []byte{' '}), []byte{'\r'}, []byte{' '})
				}
				got, err := r.Read()
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%s: Read = %q, %v; want %q", fr.Name(), got, err, want)
				}
			}
			if got, err := r.Read(); err != io.EOF {
				t.Fatalf("%s: final Read = %q, %v; want io.EOF", fr.Name(), got, err)
			}
		}
	})
}

// result is what one Read returned, in a comparable form.
type result struct {
	Msg  string
	Err  string // "" for a message
	Ends string // Head and Tail of a message skipped as too large
}

// ends formats the Head and Tail a reader should keep of msg, skipped as
// too large.
func ends(msg []byte) string {
	head := msg[:min(len(msg), framing.GlimpseSize)]
	rest := msg[len(head):]
	return fmt.Sprintf("%q %q", head, rest[len(rest)-min(len(rest), framing.GlimpseSize):])
}

func (r result) String() string {
	if r.Err != "" {
		return "error: " + r.Err + " " + r.Ends
	}
	return fmt.Sprintf("%q", r.Msg)
}

func equalResults(a, b []result) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// drain reads src with fuzzLimits until io.EOF or a non-recoverable
// error, checking the invariants every reader keeps, and returns what it
// read. n is the input size, which bounds the number of reads. With
// recycle, each frame goes back to the reader once copied.
func drain(t *testing.T, f framing.Framing, src io.Reader, n int, recycle bool) []result {
	t.Helper()
	r := f.NewReader(src, fuzzLimits)
	var out []result
	for range n + 2 {
		m, err := r.Read()
		if err == nil {
			if len(m) > fuzzLimits.MaxMessageSize {
				t.Fatalf("%s: %d-byte message over the %d-byte limit", f.Name(), len(m), fuzzLimits.MaxMessageSize)
			}
			out = append(out, result{Msg: string(m)})
			if recycle {
				r.(framing.Recycler).Recycle(m)
			}
			continue
		}
		if m != nil {
			t.Fatalf("%s: Read returned %q with error %v", f.Name(), m, err)
		}
		out = append(out, result{Err: err.Error()})
		if err == io.EOF {
			if _, err := r.Read(); err != io.EOF {
				t.Fatalf("%s: Read after io.EOF = %v", f.Name(), err)
			}
			return out
		}
		var fe *framing.Error
		if !errors.As(err, &fe) {
			t.Fatalf("%s: error %v (%T) is not a *framing.Error", f.Name(), err, err)
		}
		if fe.Framing != f.Name() || fe.Reason == "" {
			t.Fatalf("%s: error has Framing %q, Reason %q", f.Name(), fe.Framing, fe.Reason)
		}
		if fe.Recoverable {
			if !errors.Is(err, framing.ErrTooLarge) {
				t.Fatalf("%s: recoverable error %v does not wrap ErrTooLarge", f.Name(), err)
			}
			if len(fe.Head) > framing.GlimpseSize || len(fe.Tail) > framing.GlimpseSize {
				t.Fatalf("%s: kept %d and %d bytes of a skipped message", f.Name(), len(fe.Head), len(fe.Tail))
			}
			out[len(out)-1].Ends = fmt.Sprintf("%q %q", fe.Head, fe.Tail)
			continue
		}
		if f == framing.NDJSON {
			t.Fatalf("ndjson: non-recoverable error %v on an in-memory stream", err)
		}
		if err2 := func() error { _, err := r.Read(); return err }(); err2 != err {
			t.Fatalf("%s: Read after %v = %v, want the same error", f.Name(), err, err2)
		}
		return out
	}
	t.Fatalf("%s: no io.EOF after %d reads of a %d-byte input", f.Name(), n+2, n)
	return nil
}

// ndjsonModel is a simple reference for what an NDJSON reader returns.
func ndjsonModel(data []byte, limit int) []result {
	var out []result
	lines := bytes.Split(data, []byte{'\n'})
	for _, line := range lines {
		line = bytes.TrimSuffix(line, []byte{'\r'})
		switch {
		case len(line) > limit:
			out = append(out, result{Err: fmt.Sprintf("ndjson framing: line exceeds limit of %d bytes: message too large", limit), Ends: ends(line)})
		case len(bytes.Trim(line, " \t\r")) > 0:
			out = append(out, result{Msg: string(line)})
		}
	}
	return append(out, result{Err: io.EOF.Error()})
}
