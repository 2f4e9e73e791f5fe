package transport

import (
	"context"
	"errors"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/internal/stacks"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// serverGoroutines counts the goroutines that serve connections on the
// server side: a jsonrpc.Conn's loops and workers, or a Handler.
func serverGoroutines() int {
	return stacks.Count(func(g string) bool {
		return strings.Contains(g, "transport.(*Server).serveConn") ||
			(strings.Contains(g, "jsonrpc.(*Conn)") && strings.Contains(g, "transport.(*serverConn)"))
	})
}

// waitServerGoroutines waits until want goroutines serve connections,
// failing after 10 s: goroutines that have finished take a moment to exit.
func waitServerGoroutines(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for serverGoroutines() != want {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines serve connections, want %d", serverGoroutines(), want)
		}
		runtime.Gosched()
	}
}

// startJSONRPC is a Start that serves c with a jsonrpc.Conn answering
// "hello" (its handshake), closed at Shutdown.
func startJSONRPC(ctx context.Context, c net.Conn) {
	conn := jsonrpc.NewConn(c, jsonrpc.Options{
		Handshake: "hello",
		Handler: jsonrpc.HandlerFunc(func(context.Context, *jsonrpc.Request) (any, error) {
			return "hi", nil
		}),
	})
	context.AfterFunc(ctx, func() { conn.Close() })
}

// With Start, an established connection that is idle holds one
// goroutine on the server, its reader: no Handler waits for it.
func TestServerStartIdleOneGoroutine(t *testing.T) {
	const n = 20
	s := &Server{Start: startJSONRPC}
	ln := listen(t)
	errc := serveResult(t, s, ln)
	waitServerGoroutines(t, 0) // the connections of earlier tests are gone
	clients := make([]*jsonrpc.Conn, n)
	for i := range clients {
		clients[i] = jsonrpc.NewConn(dial(t, ln.Addr()), jsonrpc.Options{})
		var got string
		if err := clients[i].Call(context.Background(), "hello", nil, &got); err != nil || got != "hi" {
			t.Fatalf("hello: %q, %v", got, err)
		}
	}
	waitServerGoroutines(t, n)
	// Shutdown closes them (through the AfterFunc) and waits for them.
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := <-errc; !errors.Is(err, ErrServerClosed) {
		t.Errorf("Serve: %v", err)
	}
	for _, c := range clients {
		<-c.Done()
		c.Close()
	}
}

// A connection started with Start holds its slot until it is closed,
// and gives it up then.
func TestServerStartSlotUntilClosed(t *testing.T) {
	closed := make(chan net.Conn, 1)
	s := &Server{MaxConns: 1, Start: func(ctx context.Context, c net.Conn) { closed <- c }}
	ln := listen(t)
	errc := serveResult(t, s, ln)
	waiting := make(chan struct{}, 4)
	s.mu.Lock()
	s.waiting = func() { waiting <- struct{}{} }
	s.mu.Unlock()
	c1 := dial(t, ln.Addr())
	sc := <-closed
	MarkEstablished(sc) // cannot be evicted: the next client waits
	c2 := dial(t, ln.Addr())
	<-waiting
	select {
	case <-closed:
		t.Fatal("a second connection was started while the first held the only slot")
	default:
	}
	sc.Close()
	select {
	case sc2 := <-closed:
		sc2.Close()
	case <-time.After(10 * time.Second):
		t.Fatal("the slot was not given up when the connection was closed")
	}
	c1.Close()
	c2.Close()
	s.Close()
	if err := <-errc; !errors.Is(err, ErrServerClosed) {
		t.Errorf("Serve: %v", err)
	}
}

// Serve refuses a Server with both Handler and Start, or neither.
func TestServerHandlerXorStart(t *testing.T) {
	for _, s := range []*Server{{}, {Handler: func(context.Context, net.Conn) {}, Start: func(context.Context, net.Conn) {}}} {
		if err := s.Serve(listen(t)); err == nil || errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve: %v, want a configuration error", err)
		}
	}
}
