package jsonrpc

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// childEnv selects what the test binary does when started as a child.
const childEnv = "RPCGEN_JSONRPC_CHILD"

// runChild serves specHandler, plus "hang" (never answers), over stdio
// with Content-Length framing until stdin closes.
func runChild(mode string) int {
	h := mux{"hang": func(ctx context.Context, req *Request) (any, error) {
		select {} // never returns: the parent kills us
	}}
	for k, v := range specHandler {
		h[k] = v
	}
	c := NewConn(transport.Stdio(), Options{Framing: framing.ContentLength, Handler: h})
	if mode == "hang" {
		// A handler that never returns would keep Wait from returning.
		<-c.Done()
		return 0
	}
	c.Wait()
	return 0
}

func spawnChild(t *testing.T, mode string) (*Conn, *transport.Process) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, "GORACE=atexit_sleep_ms=0")
	p, err := transport.Spawn(cmd, transport.SpawnOptions{Grace: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return NewConn(p, Options{Framing: framing.ContentLength}), p
}

func TestOverSubprocess(t *testing.T) {
	c, p := spawnChild(t, "serve")
	ctx := ctxLimit(t)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			var sum int
			if err := c.Call(ctx, "sum", []int{i, 1}, &sum); err != nil || sum != i+1 {
				t.Errorf("sum(%d, 1) = %d, %v", i, sum, err)
			}
		})
	}
	wg.Wait()
	var s string
	if err := c.Call(ctx, "get_data", nil, &[]any{&s, new(int)}); err != nil || s != "hello" {
		t.Errorf("get_data = %q, %v", s, err)
	}
	// Closing the connection closes the child's stdin; it exits cleanly.
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	<-p.Done()
	if err := p.ExitErr(); err != nil {
		t.Errorf("child exit: %v", err)
	}
}

func TestSubprocessKilledMidCall(t *testing.T) {
	c, p := spawnChild(t, "hang")
	defer c.Close()
	errc := make(chan error, 1)
	go func() { errc <- c.Call(ctxLimit(t), "hang", nil, nil) }()
	// Make sure the call is in flight: a later call is answered.
	if err := c.Call(ctxLimit(t), "sum", []int{1}, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("pending call ended with %v, want ErrClosed", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("pending call not failed after the child was killed")
	}
}

// serveTCP starts a JSON-RPC server on addr ("127.0.0.1:0" for any port).
func serveTCP(t *testing.T, addr string) (*transport.Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := &transport.Server{Handler: func(ctx context.Context, nc net.Conn) {
		c := NewConn(nc, Options{Handler: specHandler})
		select {
		case <-ctx.Done():
		case <-c.Done():
		}
		c.Close()
	}}
	go srv.Serve(ln)
	return srv, ln.Addr().String()
}

func TestRedialerReconnectsAfterServerRestart(t *testing.T) {
	srv, addr := serveTCP(t, "127.0.0.1:0")
	r := &Redialer{Dial: func(ctx context.Context) (io.ReadWriteCloser, error) {
		return transport.Dial(ctx, "tcp", addr)
	}}
	defer r.Close()
	ctx := ctxLimit(t)
	var sum int
	if err := r.Call(ctx, "sum", []int{2, 3}, &sum); err != nil || sum != 5 {
		t.Fatalf("first call = %d, %v", sum, err)
	}
	first, _ := r.Conn(ctx)
	srv.Close()
	<-first.Done() // the client notices the server going away
	srv, _ = serveTCP(t, addr)
	defer srv.Close()
	if err := r.Call(ctx, "sum", []int{4, 5}, &sum); err != nil || sum != 9 {
		t.Fatalf("call after restart = %d, %v", sum, err)
	}
	if second, _ := r.Conn(ctx); second == first {
		t.Error("Redialer kept the dead connection")
	}
}
