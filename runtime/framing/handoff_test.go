package framing

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// idleInput is an IdleInput over a list of chunks: ReadIdle reports
// ErrStillIdle while idle is positive (counting down), and records
// whether it was called while a message was under way.
type idleInput struct {
	chunks  [][]byte
	idle    int
	idleAt  []int // bytes delivered when each ReadIdle was called
	reads   int   // bytes delivered so far
	plainAt []int
}

func (in *idleInput) next(b []byte) (int, error) {
	if len(in.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(b, in.chunks[0])
	if in.chunks[0] = in.chunks[0][n:]; len(in.chunks[0]) == 0 {
		in.chunks = in.chunks[1:]
	}
	in.reads += n
	return n, nil
}

func (in *idleInput) Read(b []byte) (int, error) {
	in.plainAt = append(in.plainAt, in.reads)
	return in.next(b)
}

func (in *idleInput) ReadIdle(b []byte) (int, error) {
	in.idleAt = append(in.idleAt, in.reads)
	if in.idle > 0 {
		in.idle--
		return 0, ErrStillIdle
	}
	return in.next(b)
}

// ReadBusy hands back ErrStillIdle with nothing consumed, only between
// messages; Wait then reads the next message's first bytes with Read,
// and the message arrives whole, however its bytes are split.
func TestReadBusyHandsOffBetweenMessages(t *testing.T) {
	for _, f := range []Framing{NDJSON, ContentLength} {
		t.Run(f.Name(), func(t *testing.T) {
			var one, two bytes.Buffer
			w := f.NewWriter(&one)
			if err := w.Write([]byte(`{"a":1}`)); err != nil {
				t.Fatal(err)
			}
			w = f.NewWriter(&two)
			if err := w.Write([]byte(`{"b":"two"}`)); err != nil {
				t.Fatal(err)
			}
			first, second := one.Bytes(), two.Bytes()
			in := &idleInput{chunks: [][]byte{first[:3], first[3:], second[:1], second[1:]}, idle: 1}
			r := f.NewReader(in, Limits{})
			wr := r.(Waiter)
			if msg, err := wr.ReadBusy(); msg != nil || err != ErrStillIdle {
				t.Fatalf("ReadBusy while idle: %q, %v; want ErrStillIdle", msg, err)
			}
			if in.reads != 0 {
				t.Fatalf("ReadBusy consumed %d bytes while idle", in.reads)
			}
			wr.Wait()
			if msg, err := wr.ReadBusy(); err != nil || string(msg) != `{"a":1}` {
				t.Fatalf("after Wait: %q, %v", msg, err)
			}
			if msg, err := wr.ReadBusy(); err != nil || string(msg) != `{"b":"two"}` {
				t.Fatalf("second: %q, %v", msg, err)
			}
			if _, err := wr.ReadBusy(); !errors.Is(err, io.EOF) {
				t.Fatalf("at the end: %v, want io.EOF", err)
			}
			// ReadIdle only at the start of a message (0 bytes, after
			// the first message, at the end), never inside one.
			boundaries := map[int]bool{0: true, len(first): true, len(first) + len(second): true}
			for _, at := range in.idleAt {
				if !boundaries[at] {
					t.Errorf("ReadIdle called %d bytes in, inside a message (reads at %v)", at, in.idleAt)
				}
			}
			if len(in.plainAt) == 0 || in.plainAt[0] != 0 {
				t.Errorf("Wait did not read the first bytes with Read: plain reads at %v", in.plainAt)
			}
		})
	}
}

// On an input that is not an IdleInput, ReadBusy is Read.
func TestReadBusyPlainInput(t *testing.T) {
	r := NDJSON.NewReader(bytes.NewReader([]byte("{\"a\":1}\n")), Limits{})
	wr := r.(Waiter)
	if msg, err := wr.ReadBusy(); err != nil || string(msg) != `{"a":1}` {
		t.Fatalf("ReadBusy: %q, %v", msg, err)
	}
	wr.Wait() // at the end of input: returns, and the end is kept
	if _, err := wr.ReadBusy(); !errors.Is(err, io.EOF) {
		t.Fatalf("at the end: %v, want io.EOF", err)
	}
}
