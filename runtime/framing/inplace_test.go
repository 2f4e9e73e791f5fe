package framing

import (
	"bufio"
	"bytes"
	"errors"
	"strings"
	"testing"
)

// callWriter records each Write call it gets.
type callWriter struct {
	calls []string
	err   error
}

func (w *callWriter) Write(p []byte) (int, error) {
	w.calls = append(w.calls, string(p))
	if w.err != nil {
		return 0, w.err
	}
	return len(p), nil
}

// Buffered makes callWriter look like a buffering writer, to which Write
// writes a frame in pieces.
func (w *callWriter) Buffered() int { return 0 }

// TestWriteInPlaceSameFrame: WriteInPlace writes the frame Write writes,
// in one Write call even to a buffering writer, within msg's own array.
func TestWriteInPlaceSameFrame(t *testing.T) {
	msgs := []string{`{"a":1}`, `{"s":"é"}`, "{\n\"a\":\r\n1}", `[` + strings.Repeat(`1,`, 5000) + `1]`}
	for _, f := range []Framing{ContentLength, NDJSON} {
		for _, m := range msgs {
			var want bytes.Buffer
			if err := f.NewWriter(&want).Write([]byte(m)); err != nil {
				t.Fatal(err)
			}
			arr := make([]byte, len(m), len(m)+32)
			copy(arr, m)
			cw := &callWriter{}
			ok, err := f.NewWriter(cw).(InPlaceWriter).WriteInPlace(arr)
			if !ok || err != nil {
				t.Fatalf("%s %.20q: WriteInPlace = %v, %v", f.Name(), m, ok, err)
			}
			if len(cw.calls) != 1 || cw.calls[0] != want.String() {
				t.Errorf("%s %.20q: wrote %d calls %.40q, want one call %.40q", f.Name(), m, len(cw.calls), cw.calls, want.String())
			}
		}
	}
}

// TestWriteInPlaceNoRoom: without room after msg for the framing,
// WriteInPlace writes nothing and leaves msg as it was.
func TestWriteInPlaceNoRoom(t *testing.T) {
	for _, f := range []Framing{ContentLength, NDJSON} {
		m := "{\n\"a\":1}"
		spare := 0
		if f == ContentLength {
			spare = len("Content-Length: 8\r\n\r\n") - 1 // one byte short
		}
		arr := make([]byte, len(m), len(m)+spare)
		copy(arr, m)
		var out bytes.Buffer
		bw := bufio.NewWriter(&out)
		ok, err := f.NewWriter(bw).(InPlaceWriter).WriteInPlace(arr)
		if ok || err != nil || bw.Buffered() != 0 || string(arr[:cap(arr)][:len(m)]) != m {
			t.Errorf("%s: WriteInPlace = %v, %v, wrote %d bytes, msg now %q", f.Name(), ok, err, bw.Buffered(), arr)
		}
	}
}

// TestWriteInPlaceErrors: a blank message is refused by NDJSON as Write
// refuses it, and a write error is returned with the framing's context.
func TestWriteInPlaceErrors(t *testing.T) {
	cw := &callWriter{}
	if ok, err := NDJSON.NewWriter(cw).(InPlaceWriter).WriteInPlace(append(make([]byte, 0, 8), " \r\n"...)); !ok || err == nil || len(cw.calls) != 0 {
		t.Errorf("blank message: %v, %v, %d writes", ok, err, len(cw.calls))
	}
	boom := errors.New("boom")
	for _, f := range []Framing{ContentLength, NDJSON} {
		w := f.NewWriter(&callWriter{err: boom}).(InPlaceWriter)
		ok, err := w.WriteInPlace(append(make([]byte, 0, 64), `{}`...))
		if !ok || !errors.Is(err, boom) || !strings.Contains(err.Error(), f.Name()+" framing") {
			t.Errorf("%s: WriteInPlace = %v, %v", f.Name(), ok, err)
		}
	}
}
