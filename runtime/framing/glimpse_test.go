package framing_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// TestTooLargeEnds checks that a message skipped for its size comes back
// with its first and last bytes, and that the next message reads.
func TestTooLargeEnds(t *testing.T) {
	const limit = 100
	var alphabet strings.Builder
	for i := range 100_000 {
		alphabet.WriteByte("abcdefghijklmnopqrstuvwxyz0123456789"[i%36])
	}
	for _, f := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
		for _, size := range []int{limit + 1, 300, 511, 512, 600, 4095, 4096, 5000, 9000, 100_000} {
			for _, oneByte := range []bool{false, true} {
				msg := `{"id":1,"p":"` + alphabet.String()[:size-len(`{"id":1,"p":""}`)] + `"}`
				next := `{"id":2}`
				var wire bytes.Buffer
				w := f.NewWriter(&wire)
				for _, m := range []string{msg, next} {
					if err := w.Write([]byte(m)); err != nil {
						t.Fatal(err)
					}
				}
				var src io.Reader = &wire
				if oneByte {
					src = iotest.OneByteReader(src)
				}
				r := f.NewReader(src, framing.Limits{MaxMessageSize: limit})
				_, err := r.Read()
				var fe *framing.Error
				if !errors.As(err, &fe) || !errors.Is(err, framing.ErrTooLarge) || !fe.Recoverable {
					t.Fatalf("%s, %d bytes: Read error %v, want a recoverable ErrTooLarge", f.Name(), size, err)
				}
				head := msg[:min(len(msg), framing.GlimpseSize)]
				rest := msg[len(head):]
				tail := rest[len(rest)-min(len(rest), framing.GlimpseSize):]
				if string(fe.Head) != head || string(fe.Tail) != tail {
					t.Errorf("%s, %d bytes, one byte %v: Head %q, Tail %q; want %q, %q", f.Name(), size, oneByte, fe.Head, fe.Tail, head, tail)
				}
				if got, err := r.Read(); err != nil || string(got) != next {
					t.Fatalf("%s, %d bytes: the next Read = %q, %v", f.Name(), size, got, err)
				}
			}
		}
	}
}

// TestTooLargeEndsCRLF checks the kept end of NDJSON lines ending in
// "\r\n" where the '\r' may be the last byte of a full read buffer: it is
// a line end, not part of the message.
func TestTooLargeEndsCRLF(t *testing.T) {
	for _, size := range []int{300, 4094, 4095, 4096, 4097, 8191, 8192} {
		msg := strings.Repeat("y", size-1) + "z"
		r := framing.NDJSON.NewReader(strings.NewReader(msg+"\r\n{}\r\n"), framing.Limits{MaxMessageSize: 100})
		_, err := r.Read()
		var fe *framing.Error
		if !errors.As(err, &fe) || !errors.Is(err, framing.ErrTooLarge) {
			t.Fatalf("%d bytes: Read error %v, want ErrTooLarge", size, err)
		}
		if got, want := fmt.Sprintf("%q %q", fe.Head, fe.Tail), ends([]byte(msg)); got != want {
			t.Errorf("%d bytes: kept ends\n%s\nwant\n%s", size, got, want)
		}
		if got, err := r.Read(); err != nil || string(got) != "{}" {
			t.Fatalf("%d bytes: next Read = %q, %v", size, got, err)
		}
	}
}
