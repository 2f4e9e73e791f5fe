package reliability

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// The stuck-handlers case: handlers that never return, up to the limit on
// concurrent requests.
const (
	stuckLimit = 8   // the server's MaxConcurrentRequests
	stuckCalls = 200 // calls made beside limit-1 stuck handlers
)

// stuckCase is the stuck-handlers row of the table.
func stuckCase() rcase {
	return rcase{
		name: "stuck-handlers",
		input: fmt.Sprintf("a server with MaxConcurrentRequests %d over net.Pipe; %d requests whose handlers block until released, then %d echo calls one after another; "+
			"then one more blocking request (all %d workers blocked) and an echo call, then one handler released",
			stuckLimit, stuckLimit-1, stuckCalls, stuckLimit),
		outcome: fmt.Sprintf("while a worker is free every echo call is answered; with all %d blocked the echo request waits in the queue "+
			"and its handler runs only after a blocked one returns; every blocked call is answered once released", stuckLimit),
		run: testStuckHandlers,
	}
}

func testStuckHandlers(t *testing.T) {
	release := make(chan struct{})
	var released atomic.Bool
	var echoedEarly atomic.Int32
	started := make(chan struct{}, stuckLimit)
	server := handler{
		"block": func(context.Context, *jsonrpc.Request) (any, error) {
			started <- struct{}{}
			<-release
			return "released", nil
		},
		"echo": echo,
		"late": func(context.Context, *jsonrpc.Request) (any, error) {
			if !released.Load() {
				echoedEarly.Add(1)
			}
			return "late", nil
		},
	}
	a, b := net.Pipe()
	watch := &readWatch{Conn: a, mark: []byte(`"late"`), past: make(chan struct{})}
	sc := jsonrpc.NewConn(watch, jsonrpc.Options{Handler: server, MaxConcurrentRequests: stuckLimit})
	c := jsonrpc.NewConn(b, jsonrpc.Options{})
	defer func() {
		c.Close()
		sc.Close()
	}()
	ctx := ctxLimit(t)
	blocked := make(chan error, stuckLimit)
	block := func() {
		go func() {
			var s string
			err := c.Call(ctx, "block", nil, &s)
			if err == nil && s != "released" {
				err = fmt.Errorf("result %q", s)
			}
			blocked <- err
		}()
		within(t, started, "a blocking handler starting")
	}
	for range stuckLimit - 1 {
		block()
	}
	for i := range stuckCalls {
		var got []int
		if err := c.Call(ctx, "echo", []int{i}, &got); err != nil || len(got) != 1 || got[0] != i {
			t.Fatalf("echo %d beside %d blocked handlers = %v, %v", i, stuckLimit-1, got, err)
		}
	}
	block()
	late := make(chan error, 1)
	go func() { late <- c.Call(ctx, "late", nil, nil) }()
	// The server reads on once it has queued "late": from then on, a
	// wrong implementation would be running it.
	within(t, watch.past, "the server reading past the late request")
	released.Store(true)
	close(release)
	if err := within(t, late, "the queued call being answered"); err != nil {
		t.Fatalf("queued call: %v", err)
	}
	if n := echoedEarly.Load(); n != 0 {
		t.Errorf("the queued request ran while all %d workers were blocked", stuckLimit)
	}
	for range stuckLimit {
		if err := within(t, blocked, "a released call being answered"); err != nil {
			t.Errorf("released call: %v", err)
		}
	}
}

// readWatch is a connection that closes past when its reader starts a
// Read after one that returned mark: the reader, which hands each message
// on before reading the next, has then dispatched the message holding
// mark.
type readWatch struct {
	net.Conn
	mark []byte
	seen atomic.Bool
	past chan struct{}
	once sync.Once
}

func (r *readWatch) Read(b []byte) (int, error) {
	if r.seen.Load() {
		r.once.Do(func() { close(r.past) })
	}
	n, err := r.Conn.Read(b)
	if bytes.Contains(b[:n], r.mark) {
		r.seen.Store(true)
	}
	return n, err
}
