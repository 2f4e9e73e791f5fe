package reliability

import (
	"context"
	"errors"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// Load of the TCP case: the full call count without the race detector,
// a fifth of it with (the detector makes each call several times slower).
const (
	loadConns     = 1000
	loadDialers   = 64 // connections set up at once
	loadCalls     = 100_000
	loadCallsRace = 20_000
	// loadHeapGrowth is the generous bound on live heap growth between
	// the start and the end of the calls.
	loadHeapGrowth = 32 << 20
)

// sum is the handler of the load and socket cases.
func sum(_ context.Context, req *jsonrpc.Request) (any, error) {
	var xs []int
	if err := req.DecodeParams(&xs); err != nil {
		return nil, err
	}
	s := 0
	for _, x := range xs {
		s += x
	}
	return s, nil
}

func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func testTCPLoad(t *testing.T) {
	calls := loadCalls
	if raceEnabled {
		calls = loadCallsRace
	}
	perConn := calls / loadConns
	// Room for every connection: past the default MaxConns, connections
	// still dialling would evict those not yet past their first message.
	s := serveTCP(t, "127.0.0.1:0", &transport.Server{MaxConns: loadConns}, jsonrpc.Options{Handler: handler{"sum": sum}})
	conns := make([]*jsonrpc.Conn, loadConns)
	var wg sync.WaitGroup
	var failed atomic.Int64
	// Every dial and call is bounded by a watchdog, not by a duration: a
	// thousand connections on two busy cores may take long, but as long
	// as calls keep completing nothing is stuck. At most loadDialers
	// connections are being set up at once; all of them stay open
	// together.
	var progress atomic.Int64
	ctx, stop := stallContext(&progress)
	defer stop()
	dialers := make(chan struct{}, loadDialers)
	for i := range conns {
		wg.Go(func() {
			dialers <- struct{}{}
			defer func() { <-dialers }()
			nc, err := transport.Dial(ctx, "tcp", s.addr)
			if err != nil {
				t.Errorf("dial %d: %v", i, err)
				return
			}
			conns[i] = jsonrpc.NewConn(nc, jsonrpc.Options{})
			// One call each, so both sides of every connection are warm.
			if err := conns[i].Call(ctx, "sum", []int{i}, nil); err != nil {
				t.Errorf("warm-up call on conn %d: %v", i, err)
			}
			progress.Add(1)
		})
	}
	wg.Wait()
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	if t.Failed() {
		return
	}
	before := heapAfterGC()
	for i, c := range conns {
		wg.Go(func() {
			for j := range perConn {
				var got int
				err := c.Call(ctx, "sum", []int{i, j, 1}, &got)
				progress.Add(1)
				if err != nil || got != i+j+1 {
					if failed.Add(1) <= 5 {
						t.Errorf("conn %d call %d = %d, %v", i, j, got, err)
					}
				}
			}
		})
	}
	wg.Wait()
	after := heapAfterGC()
	if n := failed.Load(); n > 0 {
		t.Fatalf("%d of %d calls failed", n, calls)
	}
	t.Logf("%d connections, %d calls; live heap %d KiB before, %d KiB after", loadConns, perConn*loadConns, before>>10, after>>10)
	if after > before && after-before > loadHeapGrowth {
		t.Errorf("live heap grew by %d KiB over %d calls, want < %d KiB", (after-before)>>10, calls, loadHeapGrowth>>10)
	}
	for _, c := range conns {
		c.Close()
	}
	for range loadConns {
		within(t, s.ended, "a server-side connection ending")
	}
}

func testReconnect(t *testing.T) {
	var hangs atomic.Int32
	entered := make(chan struct{}, 1)
	opts := jsonrpc.Options{Handler: handler{
		"sum": sum,
		"hang": func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
			hangs.Add(1)
			entered <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}}
	s := serveTCP(t, "127.0.0.1:0", &transport.Server{}, opts)
	r := &jsonrpc.Redialer{Dial: func(ctx context.Context) (io.ReadWriteCloser, error) {
		return transport.Dial(ctx, "tcp", s.addr)
	}}
	defer r.Close()
	ctx := ctxLimit(t)
	errc := make(chan error, 1)
	go func() { errc <- r.Call(ctx, "hang", nil, nil) }()
	within(t, entered, "the call reaching the server")
	first, _ := r.Conn(ctx)
	s.srv.Close()
	if err := within(t, errc, "the in-flight call failing"); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("in-flight call = %v, want jsonrpc.ErrClosed", err)
	}
	within(t, first.Done(), "the client noticing the server going away")
	s2 := serveTCP(t, s.addr, &transport.Server{}, opts)
	defer s2.srv.Close()
	var got int
	if err := r.Call(ctx, "sum", []int{4, 5}, &got); err != nil || got != 9 {
		t.Fatalf("call after restart = %d, %v", got, err)
	}
	if second, _ := r.Conn(ctx); second == first {
		t.Error("Redialer kept the dead connection")
	}
	if n := hangs.Load(); n != 1 {
		t.Errorf("the failed call reached the servers %d times, want 1 (no retry)", n)
	}
}

func testIdleTimeout(t *testing.T) {
	s := serveTCP(t, "127.0.0.1:0", &transport.Server{IdleTimeout: 500 * time.Millisecond}, jsonrpc.Options{Handler: handler{"sum": sum}})
	ctx := ctxLimit(t)
	dial := func() *jsonrpc.Conn {
		nc, err := transport.Dial(ctx, "tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		c := jsonrpc.NewConn(nc, jsonrpc.Options{})
		t.Cleanup(func() { c.Close() })
		return c
	}
	silent, busy := dial(), dial()
	// The busy client calls back to back until the silent one is dropped,
	// so that its connection is never idle for long, however slow the
	// machine; the calls stop at the event, not after a set time.
	for calls := 0; ; calls++ {
		select {
		case <-silent.Done():
		case <-ctx.Done():
			t.Fatalf("the silent client's connection did not end within %v", waitLimit)
		default:
			var got int
			if err := busy.Call(ctx, "sum", []int{1, 2}, &got); err != nil || got != 3 {
				t.Fatalf("busy client call %d = %d, %v", calls, got, err)
			}
			continue
		}
		break
	}
	ended := within(t, s.ended, "the silent connection ending on the server")
	if err := ended.Err(); !errors.Is(err, transport.ErrIdle) {
		t.Errorf("server-side Conn.Err() = %v, want one wrapping transport.ErrIdle", err)
	}
	select {
	case <-busy.Done():
		t.Errorf("the busy client's connection ended: %v", busy.Err())
	default:
	}
}

func testIdleRedial(t *testing.T) {
	s := serveTCP(t, "127.0.0.1:0", &transport.Server{IdleTimeout: 200 * time.Millisecond}, jsonrpc.Options{Handler: handler{"sum": sum}})
	r := &jsonrpc.Redialer{Dial: func(ctx context.Context) (io.ReadWriteCloser, error) {
		return transport.Dial(ctx, "tcp", s.addr)
	}}
	defer r.Close()
	ctx := ctxLimit(t)
	var got int
	if err := r.Call(ctx, "sum", []int{1, 2}, &got); err != nil || got != 3 {
		t.Fatalf("first call = %d, %v", got, err)
	}
	first, _ := r.Conn(ctx)
	within(t, first.Done(), "the server dropping the idle connection")
	if err := r.Call(ctx, "sum", []int{3, 4}, &got); err != nil || got != 7 {
		t.Fatalf("call after the idle drop = %d, %v", got, err)
	}
	if second, _ := r.Conn(ctx); second == first {
		t.Error("Redialer kept the dropped connection")
	}
}

func testIdleTimeoutMidCall(t *testing.T) {
	cancelled := make(chan struct{})
	s := serveTCP(t, "127.0.0.1:0", &transport.Server{IdleTimeout: 200 * time.Millisecond}, jsonrpc.Options{Handler: handler{
		"long": func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
			<-ctx.Done()
			close(cancelled)
			return nil, ctx.Err()
		},
	}})
	nc, err := transport.Dial(ctxLimit(t), "tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonrpc.NewConn(nc, jsonrpc.Options{})
	defer c.Close()
	if err := c.Call(ctxLimit(t), "long", nil, nil); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("call = %v, want jsonrpc.ErrClosed", err)
	}
	within(t, cancelled, "the handler's context being cancelled")
	ended := within(t, s.ended, "the server-side connection ending")
	if err := ended.Err(); !errors.Is(err, transport.ErrIdle) {
		t.Errorf("server-side Conn.Err() = %v, want one wrapping transport.ErrIdle", err)
	}
}

func testStuckHandlerServerShutdown(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 3)
	s := serveTCP(t, "127.0.0.1:0", &transport.Server{}, jsonrpc.Options{Handler: handler{
		"stuck": func(context.Context, *jsonrpc.Request) (any, error) {
			entered <- struct{}{}
			<-release // ignores its context
			return nil, nil
		},
	}})
	defer close(release) // before serveTCP's cleanup waits for the handlers
	errs := make(chan error, 3)
	for range 3 {
		nc, err := transport.Dial(ctxLimit(t), "tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		c := jsonrpc.NewConn(nc, jsonrpc.Options{})
		defer c.Close()
		go func() { errs <- c.Call(ctxLimit(t), "stuck", nil, nil) }()
	}
	for range 3 {
		within(t, entered, "a handler starting")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- s.srv.Shutdown(ctx) }()
	if err := within(t, shut, "Shutdown returning"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Server.Shutdown = %v, want context.DeadlineExceeded", err)
	}
	for range 3 {
		if err := within(t, errs, "a client's call failing"); !errors.Is(err, jsonrpc.ErrClosed) {
			t.Errorf("client call = %v, want jsonrpc.ErrClosed", err)
		}
	}
}
