package jsonrpc

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// halfPipe is a Conn's end of two pipes: the peer writes the one the Conn
// reads and reads the one the Conn writes, so it can close its output (the
// Conn's end of input) and go on reading, as a client in a shell pipeline
// does. Close ends the Conn's input only: the test closes the output once
// the Conn has ended, so everything the Conn wrote reaches the peer
// whatever the drain's timing.
type halfPipe struct {
	in  *io.PipeReader
	out *io.PipeWriter
}

func (h *halfPipe) Read(b []byte) (int, error)  { return h.in.Read(b) }
func (h *halfPipe) Write(b []byte) (int, error) { return h.out.Write(b) }
func (h *halfPipe) Close() error                { return h.in.Close() }

// halfPeer is the peer's side of a halfPipe.
type halfPeer struct {
	t       *testing.T
	w       *io.PipeWriter // the Conn's input
	r       *io.PipeReader // the Conn's output
	answers chan string    // every frame the Conn writes, closed at its end
}

// newHalfPipe returns a Conn with opts over a halfPipe (or over what wrap
// makes of it), and its peer, which reads every frame the Conn writes.
func newHalfPipe(t *testing.T, opts Options, wrap ...func(*halfPipe) io.ReadWriteCloser) (*Conn, *halfPeer, *halfPipe) {
	connIn, peerOut := io.Pipe()
	peerIn, connOut := io.Pipe()
	s := &halfPipe{in: connIn, out: connOut}
	p := &halfPeer{t: t, w: peerOut, r: peerIn, answers: make(chan string, 16)}
	go func() {
		defer close(p.answers)
		r := framing.NDJSON.NewReader(peerIn, framing.Limits{})
		for {
			b, err := r.Read()
			if err != nil {
				return
			}
			p.answers <- string(b)
		}
	}()
	var stream io.ReadWriteCloser = s
	for _, w := range wrap {
		stream = w(s)
	}
	c := NewConn(stream, opts)
	t.Cleanup(func() {
		peerOut.Close()
		peerIn.Close()
		c.Close()
		connOut.Close()
	})
	return c, p, s
}

// send writes frames and a newline after each.
func (p *halfPeer) send(frames ...string) {
	p.t.Helper()
	for _, f := range frames {
		if _, err := io.WriteString(p.w, f+"\n"); err != nil {
			p.t.Fatalf("peer: writing %s: %v", f, err)
		}
	}
}

// next returns the next frame the Conn wrote.
func (p *halfPeer) next() string {
	p.t.Helper()
	select {
	case a, ok := <-p.answers:
		if !ok {
			p.t.Fatal("peer: the Conn's output ended before the expected answer")
		}
		return a
	case <-time.After(waitLimit):
		p.t.Fatal("peer: no answer")
	}
	return ""
}

// recv waits for one value on ch.
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("waiting for %s", what)
	}
	var zero T
	return zero
}

// awaitInputEnd waits until the read loop has taken the peer's end of
// input in.
func awaitInputEnd(t *testing.T, c *Conn) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !c.sawInputEnd() {
		if time.Now().After(deadline) {
			t.Fatal("the Conn never saw the end of input")
		}
		runtime.Gosched()
	}
}

// waitEnded waits for the connection to end and returns Wait's error.
func waitEnded(t *testing.T, c *Conn) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	return recv(t, done, "the connection to end")
}

func TestRequestsRunningAtEOFAreAnswered(t *testing.T) {
	release := make(chan struct{})
	started := make(chan string, 4)
	noteCtx := make(chan error, 1)
	handler := mux{
		"block": func(ctx context.Context, req *Request) (any, error) {
			started <- req.ID.String()
			<-release
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			return "done " + req.ID.String(), nil
		},
		"note": func(ctx context.Context, req *Request) (any, error) {
			started <- "note"
			<-release
			noteCtx <- ctx.Err()
			return nil, nil
		},
	}
	// DrainTimeout, which used to bound this wait, is as short as it can
	// be: only FinishTimeout (30 s by default) bounds it now.
	c, p, s := newHalfPipe(t, Options{Handler: handler, DrainTimeout: time.Nanosecond})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"block"}`,
		`{"jsonrpc":"2.0","method":"note"}`,
		`{"jsonrpc":"2.0","id":2,"method":"block"}`,
		`{"jsonrpc":"2.0","id":3,"method":"block"}`)
	for range 4 {
		recv(t, started, "the handlers to start")
	}
	p.w.Close() // the peer finishes sending, and goes on reading
	awaitInputEnd(t, c)
	close(release)
	if err := waitEnded(t, c); !errors.Is(err, ErrPeerClosed) {
		t.Errorf("Wait = %v, want ErrPeerClosed", err)
	}
	if err := recv(t, noteCtx, "the notification handler"); err != nil {
		t.Errorf("the notification handler running at EOF was cancelled: %v", err)
	}
	s.out.Close() // everything written has been read: end the peer's input
	var got []string
	for a := range p.answers {
		got = append(got, a)
	}
	want := map[string]bool{
		`{"jsonrpc":"2.0","id":1,"result":"done 1"}`: true,
		`{"jsonrpc":"2.0","id":2,"result":"done 2"}`: true,
		`{"jsonrpc":"2.0","id":3,"result":"done 3"}`: true,
	}
	for _, a := range got {
		if !want[a] {
			t.Errorf("unexpected answer %s", a)
		}
		delete(want, a)
	}
	if len(want) != 0 {
		t.Errorf("answers %q; missing %v", got, want)
	}
}

func TestHandlersPastFinishTimeoutAreCancelled(t *testing.T) {
	var log logBuffer
	release := make(chan struct{})
	cancelled := make(chan struct{})
	handler := mux{
		"quick": func(ctx context.Context, req *Request) (any, error) {
			<-release
			return "quick", nil
		},
		"stuck": func(ctx context.Context, req *Request) (any, error) {
			<-ctx.Done() // never returns on its own
			close(cancelled)
			return nil, ctx.Err()
		},
	}
	c, p, s := newHalfPipe(t, Options{Handler: handler, FinishTimeout: 20 * time.Millisecond, Logger: log.logger()})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"stuck"}`, `{"jsonrpc":"2.0","id":2,"method":"quick"}`)
	p.w.Close()
	awaitInputEnd(t, c)
	close(release)
	if a := p.next(); a != `{"jsonrpc":"2.0","id":2,"result":"quick"}` {
		t.Errorf("answer %s, want quick's result", a)
	}
	recv(t, cancelled, "the stuck handler to be cancelled at FinishTimeout")
	if err := waitEnded(t, c); !errors.Is(err, ErrPeerClosed) {
		t.Errorf("Wait = %v, want ErrPeerClosed", err)
	}
	s.out.Close()
	for a := range p.answers {
		t.Errorf("the cancelled request was answered: %s", a)
	}
	if !strings.Contains(log.String(), "FinishTimeout ran out") {
		t.Errorf("no warning logged: %s", log.String())
	}
}

func TestNegativeFinishTimeoutCancelsAtEOF(t *testing.T) {
	handler, started, cancelled := stuckHandler()
	c, p, s := newHalfPipe(t, Options{Handler: handler, FinishTimeout: -1})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"stuck"}`)
	recv(t, started, "the handler to start")
	p.w.Close()
	recv(t, cancelled, "the handler to be cancelled at EOF")
	if err := waitEnded(t, c); !errors.Is(err, ErrPeerClosed) {
		t.Errorf("Wait = %v, want ErrPeerClosed", err)
	}
	s.out.Close()
	for a := range p.answers {
		t.Errorf("answered: %s", a)
	}
}

// A peer that closed both directions is found out by the first answer
// written: the wait for the other handlers ends there, long before
// FinishTimeout (30 s, past waitLimit).
func TestFailedWriteAfterEOFEndsTheWait(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 2)
	cancelled := make(chan struct{})
	handler := mux{
		"quick": func(ctx context.Context, req *Request) (any, error) {
			started <- struct{}{}
			<-release
			return "quick", nil
		},
		"stuck": func(ctx context.Context, req *Request) (any, error) {
			started <- struct{}{}
			<-ctx.Done()
			close(cancelled)
			return nil, ctx.Err()
		},
	}
	c, p, _ := newHalfPipe(t, Options{Handler: handler})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"stuck"}`, `{"jsonrpc":"2.0","id":2,"method":"quick"}`)
	recv(t, started, "the handlers to start")
	recv(t, started, "the handlers to start")
	p.r.Close() // the peer reads no more
	p.w.Close()
	awaitInputEnd(t, c)
	close(release) // quick's answer is written, and fails
	recv(t, cancelled, "the stuck handler to be cancelled after the failed write")
	if err := waitEnded(t, c); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Wait = %v, want the write error", err)
	}
}

// endedPipe is a halfPipe that says when it has ended as a whole.
type endedPipe struct {
	*halfPipe
	ended chan struct{}
}

func (e *endedPipe) Ended() <-chan struct{} { return e.ended }

// A stream that has ended as a whole (a streamhttp session its server
// ended) delivers no answer: the handlers are cancelled at its EOF, long
// before FinishTimeout (30 s, past waitLimit).
func TestEndedStreamCancelsAtEOF(t *testing.T) {
	handler, started, cancelled := stuckHandler()
	ended := make(chan struct{})
	c, p, _ := newHalfPipe(t, Options{Handler: handler}, func(h *halfPipe) io.ReadWriteCloser {
		return &endedPipe{halfPipe: h, ended: ended}
	})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"stuck"}`)
	recv(t, started, "the handler to start")
	close(ended) // the stream ends as a whole: EOF, and nothing written arrives
	p.w.Close()
	recv(t, cancelled, "the handler to be cancelled when the stream ended")
	if err := waitEnded(t, c); !errors.Is(err, ErrPeerClosed) {
		t.Errorf("Wait = %v, want ErrPeerClosed", err)
	}
}

// stuckHandler returns a handler whose method "stuck" returns only once
// its context is cancelled, and channels closed when it starts and when
// it sees the cancellation.
func stuckHandler() (handler mux, started, cancelled chan struct{}) {
	started, cancelled = make(chan struct{}), make(chan struct{})
	handler = mux{"stuck": func(ctx context.Context, req *Request) (any, error) {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return nil, ctx.Err()
	}}
	return handler, started, cancelled
}
