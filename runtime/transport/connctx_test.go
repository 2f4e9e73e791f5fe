package transport

import (
	"context"
	"errors"
	"net"
	"runtime"
	"testing"
	"time"
	"unsafe"
)

// startCapture is a Start that hands each connection and its context to
// the test.
type started struct {
	ctx context.Context
	c   net.Conn
}

func startCapture(ch chan<- started) func(context.Context, net.Conn) {
	return func(ctx context.Context, c net.Conn) { ch <- started{ctx, c} }
}

// waitDone waits for ctx to be cancelled, failing after 10 s.
func waitDone(t *testing.T, what string, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(10 * time.Second): // turns a hang into a failure
		t.Fatalf("%s: not done", what)
	}
}

// A connection's context is cancelled when the connection is closed:
// Done closes, Err and Cause say Canceled, derived contexts and
// AfterFunc follow, a stopped AfterFunc does not run.
func TestConnContextCancelledOnClose(t *testing.T) {
	ch := make(chan started, 1)
	s := &Server{Start: startCapture(ch), HandshakeTimeout: -1}
	ln := listen(t)
	errc := serveResult(t, s, ln)
	client := dial(t, ln.Addr())
	defer client.Close()
	st := <-ch
	ctx := st.ctx
	if ctx.Err() != nil {
		t.Fatalf("Err before close: %v", ctx.Err())
	}
	if d, ok := ctx.Deadline(); ok {
		t.Errorf("Deadline %v: want none", d)
	}
	child, cancelChild := context.WithCancel(ctx)
	defer cancelChild()
	ran := make(chan struct{})
	context.AfterFunc(ctx, func() { close(ran) })
	stopped := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { close(stopped) })
	if !stop() {
		t.Error("stop before cancel: false, want true")
	}
	if d1, d2 := ctx.Done(), ctx.Done(); d1 != d2 {
		t.Error("Done returns different channels")
	}

	st.c.Close()
	waitDone(t, "ctx", ctx.Done())
	waitDone(t, "child", child.Done())
	waitDone(t, "AfterFunc", ran)
	if !errors.Is(ctx.Err(), context.Canceled) || !errors.Is(context.Cause(ctx), context.Canceled) || !errors.Is(child.Err(), context.Canceled) {
		t.Errorf("Err %v, Cause %v, child's Err %v: want Canceled", ctx.Err(), context.Cause(ctx), child.Err())
	}
	late := make(chan struct{})
	stopLate := context.AfterFunc(ctx, func() { close(late) })
	waitDone(t, "AfterFunc after cancel", late)
	if stopLate() || stop() {
		t.Error("stop after cancel: true, want false")
	}
	select {
	case <-stopped:
		t.Error("a stopped AfterFunc ran")
	default:
	}
	s.Close()
	<-errc
}

// Shutdown cancels every connection's context; a Start that closes its
// connection then lets Shutdown return.
func TestConnContextCancelledAtShutdown(t *testing.T) {
	ch := make(chan started, 2)
	s := &Server{Start: func(ctx context.Context, c net.Conn) {
		context.AfterFunc(ctx, func() { c.Close() })
		ch <- started{ctx, c}
	}, HandshakeTimeout: -1}
	ln := listen(t)
	errc := serveResult(t, s, ln)
	for range 2 {
		defer dial(t, ln.Addr()).Close()
	}
	a, b := <-ch, <-ch
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	for _, st := range []started{a, b} {
		waitDone(t, "ctx", st.ctx.Done())
	}
	if err := <-errc; !errors.Is(err, ErrServerClosed) {
		t.Errorf("Serve: %v", err)
	}
}

// context.AfterFunc on a connection's context allocates no map of
// children: an idle connection served through Start with the usual
// AfterFunc(ctx, close) keeps only the AfterFunc's own small objects.
func TestConnContextAfterFuncSmall(t *testing.T) {
	const n = 1000
	states := make([]ctxState, n)
	stops := make([]func() bool, n)
	f := func() {}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range states {
		stops[i] = context.AfterFunc(connCtx{&states[i]}, f)
	}
	runtime.ReadMemStats(&after)
	per := float64(after.TotalAlloc-before.TotalAlloc) / n
	t.Logf("%.0f bytes per AfterFunc", per)
	if per > 400 { // 701 with a context.WithCancel per connection
		t.Errorf("context.AfterFunc on a connection's context allocates %.0f bytes, want <= 400", per)
	}
	runtime.KeepAlive(stops)
}

// Wrapping an accepted connection allocates the serverConn (with its
// message-timeout wrapper and context inside), its place in the list of
// connections not yet established and the Server's new "changed"
// channel, nothing else: an idle connection keeps no separate wrapper or
// address string.
func TestWrapAllocations(t *testing.T) {
	s := &Server{HandshakeTimeout: -1, MaxConns: -1}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.initLocked()
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	allocs := testing.AllocsPerRun(100, func() {
		sc := s.wrapLocked(a)
		sc.forgetLocked()
	})
	if allocs > 3 {
		t.Errorf("wrapLocked: %.0f allocations, want 3 (the serverConn, its list element, a channel)", allocs)
	}
}

// A handler that derives a context from its connection's for every
// message, and cancels it, leaves nothing behind on the connection: a
// stopped AfterFunc is forgotten, not kept as a hole in a list.
func TestConnContextForgetsStopped(t *testing.T) {
	var s ctxState
	ctx := connCtx{&s}
	for range 1000 {
		_, cancel := context.WithTimeout(ctx, time.Hour)
		cancel()
	}
	ran := make(chan struct{})
	context.AfterFunc(ctx, func() { close(ran) })
	s.mu.Lock()
	kept := len(s.after)
	s.mu.Unlock()
	if kept != 1 {
		t.Errorf("%d functions registered after 1,000 derived contexts were cancelled and one AfterFunc left, want 1", kept)
	}
	s.cancel()
	waitDone(t, "the AfterFunc left", ran)
}

// A serverConn fits the 192-byte size class: one time origin for all
// message-timeout wrappers, and the context's registrations apart.
func TestServerConnSizeClass(t *testing.T) {
	if size := unsafe.Sizeof(serverConn{}); size > 192 {
		t.Errorf("a serverConn is %d bytes, over the 192-byte size class (the next is 208)", size)
	}
}
