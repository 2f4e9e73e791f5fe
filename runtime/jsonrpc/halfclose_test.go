package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// halfClosed is a stream whose input is fixed (it ends with EOF) while its
// output stays open: a client that closed its end after its last request.
type halfClosed struct {
	in  io.Reader
	mu  sync.Mutex
	out bytes.Buffer
}

func (s *halfClosed) Read(b []byte) (int, error) { return s.in.Read(b) }
func (s *halfClosed) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.Write(b)
}
func (s *halfClosed) Close() error { return nil }

func TestRequestsReadBeforeEOFAreAnswered(t *testing.T) {
	input := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"sum","params":[1,2]}`,
		`{"jsonrpc":"2.0","id":2,"method":"slow"}`,
		`{"jsonrpc":"2.0","method":"note"}`,
		`[{"jsonrpc":"2.0","id":3,"method":"sum","params":[3]},{"jsonrpc":"2.0","id":4,"method":"get_data"}]`,
	}, "\n") + "\n"
	noted := make(chan struct{}, 1)
	eof := make(chan struct{})
	var callAfterEOF error
	handler := mux{
		"sum":      specHandler["sum"],
		"get_data": specHandler["get_data"],
		"slow": func(ctx context.Context, req *Request) (any, error) {
			<-eof // still running at EOF
			conn := ConnFromContext(ctx)
			for !conn.sawInputEnd() && ctx.Err() == nil {
				runtime.Gosched() // until the read loop has taken the EOF in
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			// The peer can no longer answer: calling it fails.
			callAfterEOF = conn.Call(ctx, "back", nil, nil)
			return "done", nil
		},
		"note": func(ctx context.Context, req *Request) (any, error) {
			noted <- struct{}{}
			return nil, nil
		},
	}
	s := &halfClosed{in: &eofSignal{r: strings.NewReader(input), eof: eof}}
	c := NewConn(s, Options{Handler: handler})
	if err := c.Wait(); !errors.Is(err, ErrPeerClosed) {
		t.Errorf("Wait = %v, want ErrPeerClosed", err)
	}
	select {
	case <-noted:
	default:
		t.Error("the notification sent before EOF was not handled")
	}
	if !errors.Is(callAfterEOF, ErrClosed) || !errors.Is(callAfterEOF, ErrPeerClosed) {
		t.Errorf("a call after the peer finished = %v, want ErrClosed and ErrPeerClosed", callAfterEOF)
	}
	r := framing.NDJSON.NewReader(bytes.NewReader(s.out.Bytes()), framing.Limits{})
	var answers []string
	for {
		b, err := r.Read()
		if err != nil {
			break
		}
		answers = append(answers, string(b))
	}
	// Flatten the batch's array into the other answers, then compare as a set.
	var flat []any
	for _, a := range answers {
		switch v := mustJSON(t, a).(type) {
		case []any:
			flat = append(flat, v...)
		default:
			flat = append(flat, v)
		}
	}
	got, _ := json.Marshal(flat)
	assertSameJSON(t, "answers", string(got), `[
		{"jsonrpc":"2.0","id":1,"result":3},
		{"jsonrpc":"2.0","id":2,"result":"done"},
		{"jsonrpc":"2.0","id":3,"result":3},
		{"jsonrpc":"2.0","id":4,"result":["hello",5]}]`)
}

// eofSignal reads r and closes eof when r ends.
type eofSignal struct {
	r    io.Reader
	eof  chan struct{}
	once sync.Once
}

func (e *eofSignal) Read(b []byte) (int, error) {
	n, err := e.r.Read(b)
	if err == io.EOF {
		e.once.Do(func() { close(e.eof) })
	}
	return n, err
}

// slowClose is a stream whose Close blocks until released, like a child
// process given a grace period to exit.
type slowClose struct {
	net.Conn
	release chan struct{}
	closing chan struct{}
}

func (s *slowClose) Close() error {
	close(s.closing)
	<-s.release
	return s.Conn.Close()
}

func TestTimeoutCloseDoesNotWaitForTheStream(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	go io.Copy(io.Discard, b) // a peer that reads and never answers
	s := &slowClose{Conn: a, release: make(chan struct{}), closing: make(chan struct{})}
	c := NewConn(s, Options{Timeout: func(string) Timeout {
		return Timeout{After: 20 * time.Millisecond, Action: TimeoutClose}
	}})
	errc := make(chan error, 1)
	go func() { errc <- c.Call(context.Background(), "m", nil, nil) }()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrTimeout) {
			t.Errorf("call = %v, want a timeout", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("the timed-out call waited for the stream to close")
	}
	<-s.closing // the close does happen, in the background
	close(s.release)
	c.Wait()
}

func TestHandlersStillRunningAfterEOFAreCancelled(t *testing.T) {
	cancelled := make(chan struct{})
	handler := mux{"wait": func(ctx context.Context, req *Request) (any, error) {
		<-ctx.Done() // only ends when cancelled
		close(cancelled)
		return nil, ctx.Err()
	}}
	s := &halfClosed{in: strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"wait"}` + "\n")}
	c := NewConn(s, Options{Handler: handler, FinishTimeout: 20 * time.Millisecond})
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrPeerClosed) {
			t.Errorf("Wait = %v, want ErrPeerClosed", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("a handler ignoring the end of input kept the connection open")
	}
	<-cancelled
}

// sawInputEnd reports whether the read loop has recorded the end of the
// peer's input.
func (c *Conn) sawInputEnd() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inputEnd
}
