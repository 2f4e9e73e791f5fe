package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// serveOn runs s on ln and returns ln's address. At cleanup it closes s
// and checks that Serve returned ErrServerClosed.
func serveOn(t *testing.T, s *Server, ln net.Listener) net.Addr {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(ln) }()
	t.Cleanup(func() {
		_ = s.Close()
		select {
		case err := <-errc:
			if !errors.Is(err, ErrServerClosed) {
				t.Errorf("Serve returned %v, want ErrServerClosed", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return after Close")
		}
	})
	return ln.Addr()
}

// serveResult runs s on ln and returns a channel with Serve's result, for
// tests that check it themselves.
func serveResult(t *testing.T, s *Server, ln net.Listener) <-chan error {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(ln) }()
	t.Cleanup(func() { _ = s.Close() })
	return errc
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

func dial(t *testing.T, addr net.Addr) net.Conn {
	t.Helper()
	c, err := Dial(context.Background(), addr.Network(), addr.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func echoHandler(_ context.Context, c net.Conn) { _, _ = io.Copy(c, c) }

// echoOnce writes msg on c and checks that it comes back.
func echoOnce(c net.Conn, msg string) error {
	if _, err := io.WriteString(c, msg); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(c, got); err != nil {
		return fmt.Errorf("read: %w", err)
	}
	if string(got) != msg {
		return fmt.Errorf("echo = %q, want %q", got, msg)
	}
	return nil
}

// readErr starts a Read on c and returns a channel with its error.
func readErr(c net.Conn) <-chan error {
	ch := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 1))
		ch <- err
	}()
	return ch
}

func TestServerManyTCPConnections(t *testing.T) {
	s := &Server{Handler: echoHandler}
	addr := serveOn(t, s, listen(t))

	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			c, err := Dial(context.Background(), "tcp", addr.String())
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			for j := range 3 {
				if err := echoOnce(c, fmt.Sprintf("conn %d message %d\n", i, j)); err != nil {
					errs <- fmt.Errorf("conn %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

func TestServerUnixSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rpc.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Handler: echoHandler}
	serveOn(t, s, ln)
	c, err := Dial(context.Background(), "unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := echoOnce(c, "over a unix socket"); err != nil {
		t.Fatal(err)
	}
}

func TestServerClosesConnectionAfterHandler(t *testing.T) {
	s := &Server{Handler: func(_ context.Context, c net.Conn) { _, _ = io.WriteString(c, "bye") }}
	c := dial(t, serveOn(t, s, listen(t)))
	got, err := io.ReadAll(c)
	if err != nil || string(got) != "bye" {
		t.Fatalf("ReadAll = %q, %v; want %q and EOF", got, err, "bye")
	}
}

func TestServerIdleTimeout(t *testing.T) {
	// The active connection sends its messages back to back, so the gaps
	// between them are round trips, far shorter than idle; the test ends
	// when the silent connection has been closed, not after some time.
	const idle = 2 * time.Second
	handlerErr := make(chan error, 2)
	s := &Server{
		IdleTimeout:      idle,
		MessageTimeout:   -1, // io.Copy does not mark where messages end
		HandshakeTimeout: -1, // nor establish the connection
		Handler: func(_ context.Context, c net.Conn) {
			_, err := io.Copy(c, c)
			handlerErr <- err
		},
	}
	addr := serveOn(t, s, listen(t))
	silent := dial(t, addr)
	active := dial(t, addr)
	silentRead := readErr(silent)

	// Keep the active connection busy until the silent one is closed.
	guard := time.After(10 * time.Second)
	for closed := false; !closed; {
		if err := echoOnce(active, "tick"); err != nil {
			t.Fatalf("active connection: %v", err)
		}
		select {
		case err := <-silentRead:
			if err == nil {
				t.Fatal("read on the silent connection succeeded")
			}
			closed = true
		case <-guard:
			t.Fatal("the silent connection was not closed within 10 s")
		default:
		}
	}
	if err := within(t, handlerErr, 10*time.Second, "silent handler returning"); !errors.Is(err, ErrIdle) {
		t.Fatalf("silent handler's read error = %v, want ErrIdle", err)
	}
	if err := echoOnce(active, "still here"); err != nil {
		t.Fatalf("active connection after the silent one was closed: %v", err)
	}
	select {
	case err := <-handlerErr:
		t.Fatalf("active connection's handler returned: %v", err)
	default:
	}
}

func TestWithIdleTimeout(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	if c := WithIdleTimeout(a, 0); c != a {
		t.Fatal("WithIdleTimeout with d=0 wrapped the connection")
	}
	c := WithIdleTimeout(a, 50*time.Millisecond)
	// Data that arrives in time is read.
	go func() { _, _ = b.Write([]byte("x")) }()
	if _, err := io.ReadFull(c, make([]byte, 1)); err != nil {
		t.Fatalf("Read: %v", err)
	}
	_, err := c.Read(make([]byte, 1))
	if !errors.Is(err, ErrIdle) {
		t.Fatalf("idle Read = %v, want ErrIdle", err)
	}
	// The connection was closed: the peer sees EOF.
	if _, err := b.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("peer Read after idle close = %v, want io.EOF", err)
	}
}

// TestServerMaxConns: established connections are never evicted; a new
// client waits in the backlog until one of them ends.
func TestServerMaxConns(t *testing.T) {
	entered := make(chan byte, 3)
	full := make(chan struct{}, 1)
	s := &Server{
		waiting: func() {
			select {
			case full <- struct{}{}:
			default:
			}
		},
		MaxConns: 2,
		Handler: func(_ context.Context, c net.Conn) {
			id := make([]byte, 1)
			if _, err := io.ReadFull(c, id); err != nil {
				return
			}
			MarkEstablished(c)
			entered <- id[0]
			_, _ = io.Copy(io.Discard, c)
		},
	}
	addr := serveOn(t, s, listen(t))
	open := func(id byte) net.Conn {
		c := dial(t, addr)
		if _, err := c.Write([]byte{id}); err != nil {
			t.Fatal(err)
		}
		return c
	}
	c1 := open(1)
	open(2)
	got := map[byte]bool{}
	for range 2 {
		got[within(t, entered, 10*time.Second, "handler entered")] = true
	}
	if !got[1] || !got[2] {
		t.Fatalf("handlers entered for %v, want 1 and 2", got)
	}
	open(3)
	// The Server waits for a slot only while both hold established
	// connections, and nothing but a slot freeing ends that wait.
	within(t, full, 10*time.Second, "the Server waiting for a slot")
	select {
	case id := <-entered:
		t.Fatalf("handler entered for connection %d while 2 were open", id)
	default:
	}
	_ = c1.Close()
	if id := within(t, entered, 10*time.Second, "third handler entered"); id != 3 {
		t.Fatalf("handler entered for %d, want 3", id)
	}
	if n := s.Evictions(); n != 0 {
		t.Fatalf("Evictions() = %d with every connection established, want 0", n)
	}
}

func TestServerShutdownCancelsHandlers(t *testing.T) {
	entered := make(chan struct{}, 1)
	handlerCtxErr := make(chan error, 1)
	s := &Server{Handler: func(ctx context.Context, _ net.Conn) {
		entered <- struct{}{}
		<-ctx.Done()
		handlerCtxErr <- ctx.Err()
	}}
	ln := listen(t)
	serveErr := serveResult(t, s, ln)
	c := dial(t, ln.Addr())
	within(t, entered, 10*time.Second, "handler entered")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	select {
	case err := <-handlerCtxErr:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("handler ctx error = %v, want context.Canceled", err)
		}
	default:
		t.Fatal("Shutdown returned before the handler did")
	}
	if err := within(t, serveErr, 10*time.Second, "Serve returning"); !errors.Is(err, ErrServerClosed) {
		t.Fatalf("Serve = %v, want ErrServerClosed", err)
	}
	if err := within(t, readErr(c), 10*time.Second, "client read"); err != io.EOF {
		t.Fatalf("client read after Shutdown = %v, want io.EOF", err)
	}
	if _, err := Dial(context.Background(), "tcp", ln.Addr().String()); err == nil {
		t.Fatal("dial succeeded after Shutdown")
	}
}

// stubbornServer has a handler that ignores its context and returns only
// when its connection fails.
func stubbornServer() (s *Server, entered chan struct{}, exited chan error) {
	entered = make(chan struct{}, 1)
	exited = make(chan error, 1)
	s = &Server{Handler: func(_ context.Context, c net.Conn) {
		entered <- struct{}{}
		_, err := io.Copy(io.Discard, c)
		exited <- err
	}}
	return s, entered, exited
}

func TestServerShutdownTimesOut(t *testing.T) {
	s, entered, exited := stubbornServer()
	ln := listen(t)
	serveErr := serveResult(t, s, ln)
	c := dial(t, ln.Addr())
	within(t, entered, 10*time.Second, "handler entered")

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := s.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown = %v, want context.DeadlineExceeded", err)
	}
	// The connection was closed from the server side.
	if err := within(t, readErr(c), 10*time.Second, "client read"); err == nil {
		t.Fatal("client read succeeded after Shutdown closed the connection")
	}
	within(t, exited, 10*time.Second, "handler returning after its connection was closed")
	if err := within(t, serveErr, 10*time.Second, "Serve returning"); !errors.Is(err, ErrServerClosed) {
		t.Fatalf("Serve = %v, want ErrServerClosed", err)
	}
	// Everything has ended now, so a second Shutdown succeeds.
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatalf("second Shutdown: %v", err)
	}
}

func TestServerClose(t *testing.T) {
	s, entered, exited := stubbornServer()
	ln := listen(t)
	serveErr := serveResult(t, s, ln)
	c := dial(t, ln.Addr())
	within(t, entered, 10*time.Second, "handler entered")
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-exited:
	default:
		t.Fatal("Close returned before the handler did")
	}
	if err := within(t, readErr(c), 10*time.Second, "client read"); err == nil {
		t.Fatal("client read succeeded after Close")
	}
	if err := within(t, serveErr, 10*time.Second, "Serve returning"); !errors.Is(err, ErrServerClosed) {
		t.Fatalf("Serve = %v, want ErrServerClosed", err)
	}
}

func TestServeAfterShutdown(t *testing.T) {
	s := &Server{Handler: echoHandler}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	ln := listen(t)
	if err := s.Serve(ln); !errors.Is(err, ErrServerClosed) {
		t.Fatalf("Serve after Shutdown = %v, want ErrServerClosed", err)
	}
	if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("listener still open after Serve returned: Accept = %v", err)
	}
}

func TestServeNilHandler(t *testing.T) {
	var s Server
	if err := s.Serve(listen(t)); err == nil || errors.Is(err, ErrServerClosed) {
		t.Fatalf("Serve with nil Handler = %v, want a configuration error", err)
	}
}

// flakyListener fails its first accepts with a temporary error, or
// every accept with a permanent one.
type flakyListener struct {
	net.Listener
	mu        sync.Mutex
	temporary int   // this many accepts fail with EMFILE
	permanent error // if set, every accept fails with it
}

func (l *flakyListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	if l.permanent != nil {
		l.mu.Unlock()
		return nil, l.permanent
	}
	if l.temporary > 0 {
		l.temporary--
		l.mu.Unlock()
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept", syscall.EMFILE)}
	}
	l.mu.Unlock()
	return l.Listener.Accept()
}

func TestServerRetriesTemporaryAcceptErrors(t *testing.T) {
	h := &recordHandler{}
	s := &Server{Handler: echoHandler, Logger: slog.New(h)}
	ln := &flakyListener{Listener: listen(t), temporary: 3}
	c := dial(t, serveOn(t, s, ln))
	if err := echoOnce(c, "after EMFILE"); err != nil {
		t.Fatal(err)
	}
	retries := 0
	for _, r := range h.snapshot() {
		if strings.Contains(r.msg, "retrying") {
			retries++
		}
	}
	if retries != 3 {
		t.Fatalf("logged %d accept retries, want 3", retries)
	}
}

func TestServerStopsOnPermanentAcceptError(t *testing.T) {
	boom := errors.New("boom")
	s := &Server{Handler: echoHandler}
	ln := &flakyListener{Listener: listen(t), permanent: boom}
	defer s.Close()
	if err := s.Serve(ln); !errors.Is(err, boom) {
		t.Fatalf("Serve = %v, want an error wrapping %v", err, boom)
	}
}

func TestServerHandlerPanic(t *testing.T) {
	h := &recordHandler{}
	s := &Server{
		Logger: slog.New(h),
		Handler: func(_ context.Context, c net.Conn) {
			line, _ := bufio.NewReader(c).ReadString('\n')
			if line == "panic\n" {
				panic("handler exploded")
			}
			_, _ = io.WriteString(c, line)
		},
	}
	addr := serveOn(t, s, listen(t))
	c1 := dial(t, addr)
	_, _ = io.WriteString(c1, "panic\n")
	if err := within(t, readErr(c1), 10*time.Second, "read on the panicking connection"); err != io.EOF {
		t.Fatalf("read on the panicking connection = %v, want io.EOF", err)
	}
	if err := echoOnce(dial(t, addr), "alive\n"); err != nil {
		t.Fatalf("server after a handler panic: %v", err)
	}
	found := false
	for _, r := range h.snapshot() {
		found = found || (r.level == slog.LevelError && strings.Contains(fmt.Sprint(r.attrs["panic"]), "handler exploded"))
	}
	if !found {
		t.Fatal("handler panic not logged")
	}
}

func TestDialErrors(t *testing.T) {
	if _, err := Dial(context.Background(), "udp", "127.0.0.1:1"); err == nil {
		t.Fatal("Dial udp succeeded")
	}
	// A port nobody listens on: take one and release it.
	ln := listen(t)
	addr := ln.Addr().String()
	_ = ln.Close()
	_, err := Dial(context.Background(), "tcp", addr)
	if err == nil || !strings.Contains(err.Error(), addr) {
		t.Fatalf("Dial to a closed port = %v; want an error naming %s", err, addr)
	}
	missing := filepath.Join(t.TempDir(), "missing.sock")
	_, err = Dial(context.Background(), "unix", missing)
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("Dial to a missing socket = %v; want an error naming %s", err, missing)
	}
}
