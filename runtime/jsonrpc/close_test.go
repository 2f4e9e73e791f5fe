package jsonrpc

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// TestCloseErrorsReadAsBefore checks that the errors of calls failed by
// the end of the connection read, and wrap, as errorf("%w: %w", ErrClosed,
// reason) did, and that the usual one allocates nothing.
func TestCloseErrorsReadAsBefore(t *testing.T) {
	peer := &PeerError{Err: &Error{Code: -32000, Message: "startup failed"}}
	for _, reason := range []error{
		ErrPeerClosed,
		fmt.Errorf("%w: %w", ErrPeerClosed, peer),
		&readError{io.ErrUnexpectedEOF},
		errors.New("no prefix"),
	} {
		got := closedBy(reason)
		want := errorf("%w: %w", ErrClosed, reason)
		if got.Error() != want.Error() {
			t.Errorf("closedBy(%v) reads %q, want %q", reason, got, want)
		}
		if !errors.Is(got, ErrClosed) || !errors.Is(got, reason) {
			t.Errorf("closedBy(%v) = %v does not wrap ErrClosed and the reason", reason, got)
		}
		var pe *PeerError
		if errors.As(want, &pe) != errors.As(got, &pe) {
			t.Errorf("closedBy(%v): errors.As finds the PeerError %v, want %v", reason, !errors.As(want, &pe), errors.As(want, &pe))
		}
	}
	if got := closedBy(ErrPeerClosed).Error(); got != "jsonrpc: connection closed: peer closed the connection" {
		t.Errorf("closedBy(ErrPeerClosed) reads %q", got)
	}
	if n := testing.AllocsPerRun(100, func() { _ = closedBy(ErrPeerClosed) }); n != 0 {
		t.Errorf("closedBy(ErrPeerClosed) allocates %v times, want 0", n)
	}
}

// TestReadErrorWrapsItsCause checks the text and the wrapping of the
// error a failed read ends the connection with.
func TestReadErrorWrapsItsCause(t *testing.T) {
	cause := &fs.PathError{Op: "read", Path: "|0", Err: os.ErrClosed}
	err := error(&readError{cause})
	if want := fmt.Errorf("jsonrpc: reading: %w", cause).Error(); err.Error() != want {
		t.Errorf("read error reads %q, want %q", err, want)
	}
	var pe *fs.PathError
	if !errors.Is(err, os.ErrClosed) || !errors.As(err, &pe) || pe != cause {
		t.Errorf("%v does not wrap its cause", err)
	}
}

// TestConnEndsWithReadError checks that a connection whose stream fails
// ends with the read error, and fails a pending call with it.
func TestConnEndsWithReadError(t *testing.T) {
	broken := errors.New("disk on fire")
	a, b := net.Pipe()
	defer b.Close()
	c := NewConn(failingReads{a, broken}, Options{})
	<-c.Done()
	if err := c.Err(); err == nil || err.Error() != "jsonrpc: reading: ndjson framing: reading line: disk on fire" || !errors.Is(err, broken) {
		t.Errorf("Err() = %v, want the read error wrapping its cause", err)
	}
}

// failingReads is a stream whose reads fail with err.
type failingReads struct {
	net.Conn
	err error
}

func (f failingReads) Read([]byte) (int, error) { return 0, f.err }

// TestAwaitDrained checks that nothing left to send needs no timer, and
// that the wait ends with the timeout otherwise.
func TestAwaitDrained(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = awaitDrained(closedChan, time.Hour) }); n != 0 {
		t.Errorf("awaitDrained of a drained queue allocates %v times, want 0 (no timer)", n)
	}
	if awaitDrained(make(chan struct{}), time.Millisecond) {
		t.Error("awaitDrained reported a queue that never drains drained")
	}
	drained := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { close(drained) })
	if !awaitDrained(drained, time.Hour) {
		t.Error("awaitDrained missed the queue draining")
	}
	wg.Wait()
}

// TestWorkQueueIdle checks idle: false while a task runs or waits, true
// once every task has run.
func TestWorkQueueIdle(t *testing.T) {
	var wg sync.WaitGroup
	done := make(chan struct{})
	defer close(done)
	release, ran := make(chan struct{}), make(chan struct{}, 2)
	q := newWorkQueue(1, 10, func(int) { <-release; ran <- struct{}{} }, &wg, done)
	if !q.idle() {
		t.Error("a new queue is not idle")
	}
	q.push(1)
	q.push(2)
	if q.idle() {
		t.Error("a queue with tasks is idle")
	}
	release <- struct{}{}
	<-ran
	if q.idle() {
		t.Error("a queue with a task waiting is idle")
	}
	close(release)
	<-ran
	q.close()
	wg.Wait()
	if !q.idle() {
		t.Error("a queue that has run every task is not idle")
	}
}

// TestCloseAllocations bounds the allocations of a connection's whole
// life when it ends idle, by the peer closing and by Close: the reasons
// are not formatted unless asked for, and no timer waits for handlers or
// for a writer that have nothing left to do, and the end of the stream
// is told from a bad frame without allocating (52 and 42 before), and
// the work queues and the channel of the input's end take no
// allocations of their own (32 and 34 before), nor the pending calls of
// a peer that finished, nor the reason of a read that failed because of
// Close (19 and 20 before). Of what is left, 12 are net.Pipe's.
func TestCloseAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates more")
	}
	for _, tc := range []struct {
		name  string
		local bool
		told  bool // over a stream that is a MessageReader and an Establisher
		max   float64
	}{
		{"peer closes", false, false, 18},
		{"Close", true, false, 19},
		// One more: the told stream itself.
		{"peer closes, told stream", false, true, 19},
	} {
		n := testing.AllocsPerRun(100, func() {
			a, b := net.Pipe()
			var stream io.ReadWriteCloser = a
			if tc.told {
				stream = &toldStream{Conn: a}
			}
			c := NewConn(stream, Options{})
			if tc.local {
				c.Close()
			}
			b.Close()
			<-c.Done()
		})
		t.Logf("%s: %v allocations", tc.name, n)
		if n > tc.max {
			t.Errorf("%s: %v allocations from NewConn to Done, want at most %v", tc.name, n, tc.max)
		}
	}
}

// toldStream is a stream that wants to know where messages end and when
// the connection is established.
type toldStream struct {
	net.Conn
	frames      int
	established bool
}

func (s *toldStream) MessageRead() { s.frames++ }
func (s *toldStream) Established() { s.established = true }

// TestRecoverable checks which read errors the reader goes on after, and
// that the end of the stream is told apart without allocating.
func TestRecoverable(t *testing.T) {
	bad := &framing.Error{Framing: "ndjson", Reason: "not JSON", Recoverable: true}
	for _, tc := range []struct {
		err  error
		want *framing.Error
	}{
		{io.EOF, nil},
		{bad, bad},
		{fmt.Errorf("wrapped: %w", bad), bad},
		{&framing.Error{Framing: "ndjson", Reason: "out of sync"}, nil},
		{io.ErrUnexpectedEOF, nil},
	} {
		if got := recoverable(tc.err); got != tc.want {
			t.Errorf("recoverable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = recoverable(io.EOF) }); n != 0 {
		t.Errorf("recoverable(io.EOF) allocates %v times, want 0", n)
	}
}
