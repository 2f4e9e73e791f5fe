package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// stackStream records, for each write, the stack of the goroutine that
// made it.
type stackStream struct {
	io.ReadWriteCloser
	mu     sync.Mutex
	stacks []string
}

func (s *stackStream) Write(b []byte) (int, error) {
	buf := make([]byte, 16<<10)
	buf = buf[:runtime.Stack(buf, false)]
	s.mu.Lock()
	s.stacks = append(s.stacks, string(buf))
	s.mu.Unlock()
	return s.ReadWriteCloser.Write(b)
}

// last returns the stack of the last write, and forgets them all.
func (s *stackStream) last() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.stacks) == 0 {
		return ""
	}
	st := s.stacks[len(s.stacks)-1]
	s.stacks = nil
	return st
}

// TestDirectWriteWhenNoWriterRuns: with no writer running, a call whose
// context cannot end is written by the caller's own goroutine, and a
// handler's answer by the worker that ran the handler; a call whose
// context can end goes through the write loop, so that it can give up
// while the peer does not read, and so does a notification, so that
// notifications sent in a row share a write.
func TestDirectWriteWhenNoWriterRuns(t *testing.T) {
	s1, s2 := net.Pipe()
	cs, ss := &stackStream{ReadWriteCloser: s1}, &stackStream{ReadWriteCloser: s2}
	noted := make(chan struct{}, 1)
	h := mux{
		"add":  addHandler,
		"note": func(context.Context, *Request) (any, error) { noted <- struct{}{}; return nil, nil },
	}
	client := NewConn(cs, Options{})
	server := NewConn(ss, Options{Handler: h})
	t.Cleanup(func() { client.Close(); server.Close() })

	var res addResult
	if err := client.Call(context.Background(), "add", addParams{A: 1, B: 2}, &res); err != nil || res.Sum != 3 {
		t.Fatalf("call: %v, %+v", err, res)
	}
	if st := cs.last(); !strings.Contains(st, "(*Conn).Call(") || strings.Contains(st, "writeLoop") {
		t.Errorf("the call was not written by its caller:\n%s", st)
	}
	if st := ss.last(); !strings.Contains(st, "(*Conn).runRequest(") || strings.Contains(st, "writeLoop") {
		t.Errorf("the answer was not written by the worker that ran the handler:\n%s", st)
	}

	if err := client.Notify(context.Background(), "note", nil); err != nil {
		t.Fatal(err)
	}
	<-noted
	if st := cs.last(); !strings.Contains(st, "writeLoop") {
		t.Errorf("the notification was not written by the write loop:\n%s", st)
	}

	// A call that may end early is queued.
	ctx := ctxLimit(t)
	if err := client.Call(ctx, "add", addParams{A: 2, B: 2}, &res); err != nil || res.Sum != 4 {
		t.Fatalf("call: %v, %+v", err, res)
	}
	if st := cs.last(); !strings.Contains(st, "writeLoop") {
		t.Errorf("a call whose context can end was not written by the write loop:\n%s", st)
	}
}

// TestDirectWriteHandsOverQueued: a message queued while a sender writes
// its own is written once that write is done, by a writer started for it,
// and after it.
func TestDirectWriteHandsOverQueued(t *testing.T) {
	s1, s2 := net.Pipe()
	gated := &gatedStream{Conn: s1}
	got := make(chan string, 2)
	h := mux{
		"first":  func(context.Context, *Request) (any, error) { got <- "first"; return nil, nil },
		"second": func(context.Context, *Request) (any, error) { got <- "second"; return nil, nil },
	}
	client := NewConn(gated, Options{})
	server := NewConn(s2, Options{Handler: h})
	t.Cleanup(func() { gated.open(); client.Close(); server.Close() })

	gated.block()
	sent := make(chan error, 1)
	go func() { sent <- client.Call(context.Background(), "first", nil, nil) }()
	<-gated.entered // "first" is being written by its sender
	if err := client.Notify(ctxLimit(t), "second", nil); err != nil {
		t.Fatal(err)
	}
	gated.open()
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	timeout := time.After(waitLimit)
	for _, want := range []string{"first", "second"} {
		select {
		case m := <-got:
			if m != want {
				t.Fatalf("got %q, want %q", m, want)
			}
		case <-timeout:
			t.Fatalf("%q never arrived", want)
		}
	}
}

// failingStream fails every write with EPIPE, and reads nothing until it
// is closed.
type failingStream struct {
	closed chan struct{}
	once   sync.Once
}

func (s *failingStream) Write([]byte) (int, error) { return 0, syscall.EPIPE }
func (s *failingStream) Read([]byte) (int, error)  { <-s.closed; return 0, io.EOF }
func (s *failingStream) Close() error              { s.once.Do(func() { close(s.closed) }); return nil }

// TestDirectWriteErrorFailsCall: a direct write that fails ends the
// connection, and the call fails with an error saying so once the
// connection has given the peer DrainTimeout to say why.
func TestDirectWriteErrorFailsCall(t *testing.T) {
	c := NewConn(&failingStream{closed: make(chan struct{})}, Options{DrainTimeout: 10 * time.Millisecond})
	defer c.Close()
	errc := make(chan error, 1)
	go func() { errc <- c.Call(context.Background(), "add", addParams{A: 1, B: 2}, nil) }()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) || !errors.Is(err, syscall.EPIPE) {
			t.Errorf("call error %v; want one wrapping ErrClosed and EPIPE", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("the call did not fail")
	}
	<-c.Done()
	if err := c.Err(); !errors.Is(err, syscall.EPIPE) {
		t.Errorf("Err() = %v; want the write error", err)
	}
}

// TestCallGivesUpOnPeerNotReading: a call whose context ends, or whose
// default timeout runs out, returns even though the peer reads nothing:
// it is never stuck in a write.
func TestCallGivesUpOnPeerNotReading(t *testing.T) {
	s1, s2 := net.Pipe() // nothing reads s2
	c := NewConn(s1, Options{DrainTimeout: 10 * time.Millisecond, Timeout: func(method string) Timeout {
		if method == "slow" {
			return Timeout{After: 10 * time.Millisecond, Action: TimeoutFail}
		}
		return Timeout{}
	}})
	t.Cleanup(func() { s2.Close(); c.Close() })

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- c.Call(ctx, "add", addParams{A: 1, B: 2}, nil) }()
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled call: %v", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("a cancelled call is stuck writing to a peer that does not read")
	}

	go func() { errc <- c.Call(context.Background(), "slow", nil, nil) }()
	select {
	case err := <-errc:
		var te *TimeoutError
		if !errors.As(err, &te) {
			t.Errorf("timed out call: %v", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("a call with a default timeout is stuck writing to a peer that does not read")
	}
}

// TestFloodBothWaysOverPipe: both peers flood each other, over an
// unbuffered pipe, with calls whose answers are large and with batches
// that the read loop answers itself, with a large array of -32600 errors
// (params that are neither an object nor an array). Senders and handlers
// write their own messages when no writer runs; if a read loop ever wrote
// its answer itself, both would soon be writing at once with neither
// reading, and nothing would move.
func TestFloodBothWaysOverPipe(t *testing.T) {
	big := strings.Repeat("x", 16<<10)
	h := mux{"big": func(context.Context, *Request) (any, error) { return big, nil }}
	a, b := pair(t, Options{Handler: h}, Options{Handler: h})
	var wg sync.WaitGroup
	errc := make(chan error, 2)
	for _, c := range []*Conn{a, b} {
		ctx := context.Background() // written directly when no writer runs
		wg.Go(func() {
			for range 50 {
				var s string
				if err := c.Call(ctx, "big", nil, &s); err != nil || len(s) != len(big) {
					errc <- errors.Join(errors.New("big"), err)
					return
				}
				calls := make([]*BatchCall, 100)
				for i := range calls {
					calls[i] = &BatchCall{Method: "big", Params: json.RawMessage(`5`)}
				}
				if err := c.Batch(ctx, calls); err != nil {
					errc <- errors.Join(errors.New("batch"), err)
					return
				}
				for _, bc := range calls {
					if e := (*Error)(nil); !errors.As(bc.Err, &e) || e.Code != CodeInvalidRequest {
						errc <- errors.Join(errors.New("batch element"), bc.Err)
						return
					}
				}
			}
		})
	}
	awaitPeers(t, &wg)
	close(errc)
	for err := range errc {
		t.Error(err)
	}
}

// TestReaderNeverWritesItself: a read loop's answers (here to frames that
// are not JSON) are queued even when no writer runs, so that it goes on
// reading from a peer that does not read.
func TestReaderNeverWritesItself(t *testing.T) {
	s1, s2 := net.Pipe()
	c := NewConn(s1, Options{})
	t.Cleanup(func() { s2.Close(); c.Close() })
	s2.SetWriteDeadline(time.Now().Add(waitLimit))
	for i := range 20 {
		if _, err := s2.Write([]byte("{garbage\n")); err != nil {
			t.Fatalf("frame %d: our reader stopped reading: %v", i, err)
		}
	}
}

// awaitPeers waits for wg, failing with every goroutine's stack if the
// peers stop moving before it is done.
func awaitPeers(t *testing.T, wg *sync.WaitGroup) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(waitLimit):
		buf := make([]byte, 1<<20)
		t.Fatalf("the peers stopped moving:\n%s", buf[:runtime.Stack(buf, true)])
	}
}
