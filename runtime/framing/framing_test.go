package framing_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/rpcgen/rpcgen/runtime/framing"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestByName(t *testing.T) {
	for _, want := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
		got, err := framing.ByName(want.Name())
		if err != nil {
			t.Fatalf("ByName(%q): %v", want.Name(), err)
		}
		if got != want {
			t.Errorf("ByName(%q) = %v, want %v", want.Name(), got, want)
		}
	}
	if framing.ContentLength.Name() != "content-length" || framing.NDJSON.Name() != "ndjson" {
		t.Errorf("names = %q, %q", framing.ContentLength.Name(), framing.NDJSON.Name())
	}
	for _, name := range []string{"websocket", "", "Content-Length", "NDJSON"} {
		f, err := framing.ByName(name)
		if err == nil || f != nil {
			t.Errorf("ByName(%q) = %v, %v; want an error", name, f, err)
		}
	}
}

// roundTripMessages are written and read back by both framings.
var roundTripMessages = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
	`"héllo ✓"`,
	`{"text":"日本語 and emoji 🎉","n":-1.5e3}`,
	`[]`,
	`0`,
	`{"s":"quote \" backslash \\ newline \n escape"}`,
	`{"big":"` + strings.Repeat("x", 100_000) + `"}`,
}

func TestRoundTrip(t *testing.T) {
	for _, f := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
		for _, oneByte := range []bool{false, true} {
			name := f.Name()
			if oneByte {
				name += "/one-byte"
			}
			t.Run(name, func(t *testing.T) {
				var wire bytes.Buffer
				cw := &countingWriter{w: &wire}
				w := f.NewWriter(cw)
				for i, m := range roundTripMessages {
					if err := w.Write([]byte(m)); err != nil {
						t.Fatalf("Write #%d: %v", i, err)
					}
					if cw.calls != i+1 {
						t.Fatalf("after %d messages, %d Write calls", i+1, cw.calls)
					}
				}
				var src io.Reader = &wire
				if oneByte {
					src = iotest.OneByteReader(src)
				}
				r := f.NewReader(src, framing.Limits{})
				for i, want := range roundTripMessages {
					got, err := r.Read()
					if err != nil {
						t.Fatalf("Read #%d: %v", i, err)
					}
					if string(got) != want {
						t.Fatalf("Read #%d = %.80q, want %.80q", i, got, want)
					}
				}
				expectEOF(t, r)
			})
		}
	}
}

// TestReadReturnsOwnedSlices checks that a returned message is not
// overwritten by later reads.
func TestReadReturnsOwnedSlices(t *testing.T) {
	for _, f := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
		t.Run(f.Name(), func(t *testing.T) {
			var wire bytes.Buffer
			w := f.NewWriter(&wire)
			for _, m := range []string{`{"a":1}`, `{"b":2}`, `{"c":3}`} {
				if err := w.Write([]byte(m)); err != nil {
					t.Fatal(err)
				}
			}
			r := f.NewReader(&wire, framing.Limits{})
			var got [][]byte
			for range 3 {
				m, err := r.Read()
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, m)
			}
			if string(got[0]) != `{"a":1}` || string(got[1]) != `{"b":2}` || string(got[2]) != `{"c":3}` {
				t.Errorf("messages = %q", got)
			}
		})
	}
}

func TestWriterDoesNotMutateOrRetainMessage(t *testing.T) {
	for _, f := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
		t.Run(f.Name(), func(t *testing.T) {
			msg := []byte("{\n  \"a\": 1\r\n}")
			orig := string(msg)
			var wire bytes.Buffer
			w := f.NewWriter(&wire)
			if err := w.Write(msg); err != nil {
				t.Fatal(err)
			}
			if string(msg) != orig {
				t.Errorf("Write mutated its argument: %q", msg)
			}
			before := wire.String()
			copy(msg, "XXXXXXXXXXXX")
			if err := w.Write([]byte(`1`)); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(wire.String(), before) {
				t.Errorf("earlier output changed: %q", wire.String())
			}
		})
	}
}

func TestWriterErrors(t *testing.T) {
	boom := errors.New("boom")
	for _, f := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
		t.Run(f.Name(), func(t *testing.T) {
			err := f.NewWriter(errWriter{err: boom}).Write([]byte(`{}`))
			if !errors.Is(err, boom) {
				t.Errorf("Write error = %v, want it to wrap %v", err, boom)
			}
			if err != nil && !strings.Contains(err.Error(), f.Name()) {
				t.Errorf("Write error %q lacks the framing name", err)
			}
			err = f.NewWriter(shortWriter{}).Write([]byte(`{}`))
			if !errors.Is(err, io.ErrShortWrite) {
				t.Errorf("short write error = %v, want io.ErrShortWrite", err)
			}
		})
	}
}

func TestReadErrorFromUnderlyingReader(t *testing.T) {
	boom := errors.New("boom")
	// Each prefix stops inside a message.
	prefixes := map[framing.Framing]string{
		framing.ContentLength: "Content-Length: 2\r\n",
		framing.NDJSON:        `{"a":`,
	}
	for f, prefix := range prefixes {
		t.Run(f.Name(), func(t *testing.T) {
			src := io.MultiReader(strings.NewReader(prefix), iotest.ErrReader(boom))
			r := f.NewReader(src, framing.Limits{})
			_, err := r.Read()
			fe := asError(t, err)
			if fe.Recoverable || !errors.Is(err, boom) {
				t.Errorf("Read error = %#v, want non-recoverable wrapping %v", fe, boom)
			}
			if _, err2 := r.Read(); !errors.Is(err2, boom) {
				t.Errorf("second Read error = %v, want the same sticky error", err2)
			}
		})
	}
}

// expectEOF fails unless the next two reads from r return io.EOF.
func expectEOF(t *testing.T, r framing.Reader) {
	t.Helper()
	for range 2 {
		if m, err := r.Read(); err != io.EOF {
			t.Fatalf("Read = %q, %v; want io.EOF", m, err)
		}
	}
}

// asError fails unless err is an *framing.Error, and returns it.
func asError(t *testing.T, err error) *framing.Error {
	t.Helper()
	var fe *framing.Error
	if !errors.As(err, &fe) {
		t.Fatalf("error = %v (%T), want a *framing.Error", err, err)
	}
	return fe
}

// countingWriter counts Write calls.
type countingWriter struct {
	w     io.Writer
	calls int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.calls++
	return c.w.Write(p)
}

type errWriter struct{ err error }

func (e errWriter) Write([]byte) (int, error) { return 0, e.err }

type shortWriter struct{}

func (shortWriter) Write(p []byte) (int, error) { return len(p) / 2, nil }

// cycleReader yields data over and over, never returning an error.
type cycleReader struct {
	data []byte
	off  int
}

func (c *cycleReader) Read(p []byte) (int, error) {
	n := copy(p, c.data[c.off:])
	c.off = (c.off + n) % len(c.data)
	return n, nil
}

// outcome is the expected result of one Read.
type outcome struct {
	kind outcomeKind
	msg  string // the message, for kind okMsg
	// reason, if set, is the exact Reason of the *framing.Error.
	reason string
}

type outcomeKind int

const (
	okMsg outcomeKind = iota
	// eof is io.EOF itself.
	eof
	// tooLarge is a recoverable *Error wrapping ErrTooLarge.
	tooLarge
	// headerTooLarge is a non-recoverable *Error wrapping ErrTooLarge.
	headerTooLarge
	// malformed is a non-recoverable *Error with no underlying cause.
	malformed
	// unexpectedEOF is a non-recoverable *Error wrapping io.ErrUnexpectedEOF.
	unexpectedEOF
)

func msg(s string) outcome { return outcome{kind: okMsg, msg: s} }

var (
	wantEOF           = outcome{kind: eof}
	wantTooLarge      = outcome{kind: tooLarge}
	wantMalformed     = outcome{kind: malformed}
	wantUnexpectedEOF = outcome{kind: unexpectedEOF}
)

// readerCase is one input for a reader and the results it must give.
type readerCase struct {
	name   string
	in     string
	limits framing.Limits
	want   []outcome
}

// runReaderCases checks every case against f, reading the input both
// whole and one byte at a time.
func runReaderCases(t *testing.T, f framing.Framing, cases []readerCase) {
	t.Helper()
	for _, tc := range cases {
		for _, oneByte := range []bool{false, true} {
			name := tc.name
			if oneByte {
				name += "/one-byte"
			}
			t.Run(name, func(t *testing.T) {
				var src io.Reader = strings.NewReader(tc.in)
				if oneByte {
					src = iotest.OneByteReader(src)
				}
				checkOutcomes(t, f, f.NewReader(src, tc.limits), tc.want)
			})
		}
	}
}

// checkOutcomes reads from r, a reader of framing f, once per outcome and
// checks each result. A final io.EOF or non-recoverable error must repeat
// on the next Read.
func checkOutcomes(t *testing.T, f framing.Framing, r framing.Reader, want []outcome) {
	t.Helper()
	for i, w := range want {
		got, err := r.Read()
		if w.kind == okMsg {
			if err != nil || string(got) != w.msg {
				t.Fatalf("Read #%d = %.80q, %v; want %.80q", i, got, err, w.msg)
			}
			// Short messages cost one exact-size allocation; long NDJSON
			// lines may keep the slack of the slice they grew in.
			if len(got) != cap(got) && len(got) < 4000 {
				t.Errorf("Read #%d: len %d, cap %d; want an exact-size slice", i, len(got), cap(got))
			}
			continue
		}
		if got != nil {
			t.Errorf("Read #%d returned %q with error %v", i, got, err)
		}
		if w.kind == eof {
			if err != io.EOF {
				t.Fatalf("Read #%d error = %v, want io.EOF", i, err)
			}
			if i != len(want)-1 {
				t.Fatalf("bad test: io.EOF must be the last outcome")
			}
			expectEOF(t, r)
			return
		}
		fe := asError(t, err)
		isTooLarge := errors.Is(err, framing.ErrTooLarge)
		isUnexpectedEOF := errors.Is(err, io.ErrUnexpectedEOF)
		ok := false
		switch w.kind {
		case tooLarge:
			ok = fe.Recoverable && isTooLarge && !isUnexpectedEOF
		case headerTooLarge:
			ok = !fe.Recoverable && isTooLarge && !isUnexpectedEOF
		case malformed:
			ok = !fe.Recoverable && fe.Err == nil
		case unexpectedEOF:
			ok = !fe.Recoverable && isUnexpectedEOF && !isTooLarge
		}
		if !ok {
			t.Fatalf("Read #%d error = %v (Recoverable=%v, Err=%v); want outcome kind %d", i, err, fe.Recoverable, fe.Err, w.kind)
		}
		if w.reason != "" && fe.Reason != w.reason {
			t.Errorf("Read #%d error Reason = %q, want %q", i, fe.Reason, w.reason)
		}
		if fe.Reason == "" || fe.Framing != f.Name() {
			t.Errorf("Read #%d error has Framing %q, Reason %q", i, fe.Framing, fe.Reason)
		}
		if !fe.Recoverable {
			if i != len(want)-1 {
				t.Fatalf("bad test: a non-recoverable error must be the last outcome")
			}
			if _, err2 := r.Read(); err2 != err {
				t.Fatalf("Read after non-recoverable error = %v, want the same error %v", err2, err)
			}
			return
		}
	}
	t.Fatalf("bad test: outcomes must end with io.EOF or a non-recoverable error")
}
