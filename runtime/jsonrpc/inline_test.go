package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// stackOf returns the calling goroutine's stack.
func stackOf() string {
	buf := make([]byte, 16<<10)
	return string(buf[:runtime.Stack(buf, false)])
}

// onReader reports whether stack is the read loop's.
func onReader(stack string) bool { return strings.Contains(stack, "(*Conn).readMessages(") }

// inlineSet is an Options.Inline naming methods.
func inlineSet(methods ...string) func(string) bool {
	return func(m string) bool {
		for _, x := range methods {
			if m == x {
				return true
			}
		}
		return false
	}
}

// TestInlineRunsOnReader: a lone request of a method named by Inline runs
// on the read loop, and its answer is written by the read loop in one
// Write, with no pooled buffer; a method not named runs on a worker; a
// batch member runs on a worker even when its method is named.
func TestInlineRunsOnReader(t *testing.T) {
	dropSpares()
	s1, s2 := net.Pipe()
	stacks := make(chan string, 4)
	h := mux{
		"add": func(ctx context.Context, req *Request) (any, error) {
			stacks <- stackOf()
			return addHandler(ctx, req)
		},
		"other": func(context.Context, *Request) (any, error) { stacks <- stackOf(); return 1, nil },
		"note":  func(context.Context, *Request) (any, error) { stacks <- stackOf(); return nil, nil },
	}
	rec := &writeRecorder{ReadWriteCloser: s2}
	client := NewConn(s1, Options{})
	server := NewConn(rec, Options{Handler: h, Inline: inlineSet("add", "note")})
	rec.conn = server
	t.Cleanup(func() { client.Close(); server.Close() })

	var res addResult
	if err := client.Call(ctxLimit(t), "add", addParams{A: 1, B: 2}, &res); err != nil || res.Sum != 3 {
		t.Fatalf("call: %v, %+v", err, res)
	}
	if st := <-stacks; !onReader(st) {
		t.Errorf("the handler of an inline method did not run on the reader:\n%s", st)
	}
	writes, buffered := rec.take()
	if want := `{"jsonrpc":"2.0","id":1,"result":{"sum":3}}` + "\n"; len(writes) != 1 || writes[0] != want || buffered[0] {
		t.Errorf("answer written as %q (pooled buffer held: %v); want one Write of %q without one", writes, buffered, want)
	}

	if err := client.Call(ctxLimit(t), "other", nil, nil); err != nil {
		t.Fatal(err)
	}
	if st := <-stacks; onReader(st) {
		t.Errorf("a method not named by Inline ran on the reader:\n%s", st)
	}

	calls := []*BatchCall{{Method: "note", Notification: true}, {Method: "add", Params: addParams{A: 2, B: 2}, Result: &res}}
	if err := client.Batch(ctxLimit(t), calls); err != nil || calls[1].Err != nil || res.Sum != 4 {
		t.Fatalf("batch: %v, %v, %+v", err, calls[1].Err, res)
	}
	for range 2 {
		if st := <-stacks; onReader(st) {
			t.Errorf("a batch member ran on the reader:\n%s", st)
		}
	}
}

// readFrames is an Options.Trace that reports the frames read.
type readFrames chan string

func (r readFrames) trace(dir Direction, frame []byte) {
	if dir == Received {
		r <- string(frame)
	}
}

// read waits until the reader has read a frame containing s.
func (r readFrames) read(t *testing.T, s string) {
	t.Helper()
	for {
		select {
		case f := <-r:
			if strings.Contains(f, s) {
				return
			}
		case <-time.After(waitLimit):
			t.Fatalf("%s was never read", s)
		}
	}
}

// TestInlineWaitsBehindQueued: a request of an inline method read while
// requests fill MaxConcurrentRequests goes to a worker, and so does a
// notification of an inline method read while another notification is
// being handled: it runs after it, in order.
func TestInlineWaitsBehindQueued(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 2)
	stacks := make(chan string, 4)
	var order []string
	var mu sync.Mutex
	note := func(name string) {
		mu.Lock()
		order = append(order, name)
		mu.Unlock()
	}
	h := mux{
		"slow": func(context.Context, *Request) (any, error) { started <- struct{}{}; <-release; return nil, nil },
		"add":  func(context.Context, *Request) (any, error) { stacks <- stackOf(); return 1, nil },
		"hold": func(context.Context, *Request) (any, error) {
			started <- struct{}{}
			<-release
			note("hold")
			return nil, nil
		},
		"tick": func(context.Context, *Request) (any, error) { note("tick"); stacks <- stackOf(); return nil, nil },
		"mark": func(context.Context, *Request) (any, error) { return nil, nil },
	}
	frames := make(readFrames, 16)
	client, _ := pair(t, Options{}, Options{Handler: h, MaxConcurrentRequests: 1, Inline: inlineSet("add", "tick"), Trace: frames.trace})

	slow := make(chan error, 1)
	go func() { slow <- client.Call(ctxLimit(t), "slow", nil, nil) }()
	<-started
	added := make(chan error, 1)
	go func() { added <- client.Call(ctxLimit(t), "add", nil, nil) }()
	frames.read(t, `"add"`)
	if err := client.Notify(ctxLimit(t), "hold", nil); err != nil {
		t.Fatal(err)
	}
	<-started // "add" was dispatched before "hold" was read
	for _, m := range []string{"tick", "mark"} {
		if err := client.Notify(ctxLimit(t), m, nil); err != nil {
			t.Fatal(err)
		}
	}
	frames.read(t, `"mark"`) // "tick" was dispatched before
	close(release)
	for _, ch := range []chan error{slow, added} {
		if err := <-ch; err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if st := <-stacks; onReader(st) {
			t.Errorf("a message read while others waited ran on the reader:\n%s", st)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !reflect.DeepEqual(order, []string{"hold", "tick"}) {
		t.Errorf("notifications handled in order %v; want hold, tick", order)
	}
}

// TestInlineOrderRequestsAfterNotifications: under
// OrderRequestsAfterNotifications, a request of an inline method read
// while a notification is handled waits for it, on a worker.
func TestInlineOrderRequestsAfterNotifications(t *testing.T) {
	release, held := make(chan struct{}), make(chan struct{})
	var done atomic.Bool
	h := mux{
		"hold": func(context.Context, *Request) (any, error) {
			close(held)
			<-release
			done.Store(true)
			return nil, nil
		},
		"mark": func(context.Context, *Request) (any, error) { return nil, nil },
		"add": func(context.Context, *Request) (any, error) {
			if !done.Load() {
				return nil, errors.New("ran before the notification read before it was handled")
			}
			return onReader(stackOf()), nil
		},
	}
	frames := make(readFrames, 16)
	client, _ := pair(t, Options{}, Options{Handler: h, OrderRequestsAfterNotifications: true, Inline: inlineSet("add"), Trace: frames.trace})
	if err := client.Notify(ctxLimit(t), "hold", nil); err != nil {
		t.Fatal(err)
	}
	<-held
	var reader bool
	called := make(chan error, 1)
	go func() { called <- client.Call(ctxLimit(t), "add", nil, &reader) }()
	frames.read(t, `"add"`)
	if err := client.Notify(ctxLimit(t), "mark", nil); err != nil {
		t.Fatal(err)
	}
	frames.read(t, `"mark"`) // "add" was dispatched before
	close(release)
	if err := <-called; err != nil || reader {
		t.Fatalf("call: %v, ran on the reader: %v", err, reader)
	}
	// Once the notification worker is done, one runs on the reader.
	ctx := ctxLimit(t)
	for !reader {
		if err := client.Call(ctx, "add", nil, &reader); err != nil {
			t.Fatalf("call: %v", err)
		}
	}
}

// TestInlineDuplicateIDRefused: a request of an inline method reusing the
// id of a request still running on a worker is refused with -32600, and
// a panic in an inline handler is answered with -32603 while the reader
// reads on.
func TestInlineDuplicateIDRefused(t *testing.T) {
	release, started := make(chan struct{}), make(chan struct{})
	h := mux{
		"slow":  func(context.Context, *Request) (any, error) { close(started); <-release; return "slow", nil },
		"add":   addHandler,
		"boom":  func(context.Context, *Request) (any, error) { panic("boom") },
		"where": func(context.Context, *Request) (any, error) { return onReader(stackOf()), nil },
	}
	_, p := newRaw(t, Options{Handler: h, Inline: inlineSet("add", "boom", "where")})
	p.send(`{"jsonrpc":"2.0","id":7,"method":"slow"}`)
	<-started
	got := p.exchange(`{"jsonrpc":"2.0","id":7,"method":"add","params":{"a":1,"b":2}}`)
	want := mustJSON(t, `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request","data":"a request with this id is already in flight"}}`)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("duplicate id answered %v; want %v", got, want)
	}
	close(release)
	if got, want := p.recvJSON(), mustJSON(t, `{"jsonrpc":"2.0","id":7,"result":"slow"}`); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v; want %v", got, want)
	}
	if got, want := p.exchange(`{"jsonrpc":"2.0","id":8,"method":"boom"}`), mustJSON(t, `{"jsonrpc":"2.0","id":8,"error":{"code":-32603,"message":"Internal error"}}`); !reflect.DeepEqual(got, want) {
		t.Errorf("panic answered %v; want %v", got, want)
	}
	if got, want := p.exchange(`{"jsonrpc":"2.0","id":9,"method":"where"}`), mustJSON(t, `{"jsonrpc":"2.0","id":9,"result":true}`); !reflect.DeepEqual(got, want) {
		t.Errorf("after the panic: %v; want %v", got, want)
	}
}

// TestInlineNotWhenMoreFollows: a request whose successor arrived with it
// goes to a worker, so that the reader reads on.
func TestInlineNotWhenMoreFollows(t *testing.T) {
	h := mux{"where": func(context.Context, *Request) (any, error) { return onReader(stackOf()), nil }}
	_, p := newRaw(t, Options{Handler: h, Inline: inlineSet("where")})
	p.conn.SetWriteDeadline(time.Now().Add(waitLimit))
	if _, err := p.conn.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"where"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"where"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for range 2 {
		var m struct {
			ID     json.RawMessage
			Result bool
		}
		if err := json.Unmarshal([]byte(p.recv()), &m); err != nil {
			t.Fatal(err)
		}
		got[string(m.ID)] = m.Result
	}
	if got["1"] {
		t.Error("a request with another behind it ran on the reader")
	}
	// Alone, once the workers are done, it runs on the reader.
	for id := 3; ; id++ {
		frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"where"}`, id)
		if reflect.DeepEqual(p.exchange(frame), mustJSON(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":true}`, id))) {
			break
		}
		if id > 1000 {
			t.Fatal("a lone request never ran on the reader")
		}
	}
}

// TestInlineContextEndsWithConn: the context of a handler running on the
// reader is cancelled when the connection is closed, and Close waits for
// the handler to return.
func TestInlineContextEndsWithConn(t *testing.T) {
	started := make(chan struct{})
	var returned bool
	var seen error
	h := mux{"wait": func(ctx context.Context, req *Request) (any, error) {
		if !onReader(stackOf()) {
			seen = errors.New("not on the reader")
		} else {
			close(started)
			<-ctx.Done()
			seen = ctx.Err()
		}
		returned = true
		return nil, nil
	}}
	server, p := newRaw(t, Options{Handler: h, Inline: inlineSet("wait")})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
	select {
	case <-started:
	case <-time.After(waitLimit):
		t.Fatal("the handler did not start on the reader")
	}
	server.Close()
	if !returned || !errors.Is(seen, context.Canceled) {
		t.Errorf("after Close: handler returned %v, its context's error %v; want true, context.Canceled", returned, seen)
	}
}

// TestInlineWriteHandsOffReading: the reader writing an inline answer to
// a peer that does not read until it has sent its next request does not
// stop the connection from reading: another goroutine takes over reading,
// and both answers arrive.
func TestInlineWriteHandsOffReading(t *testing.T) {
	server, p := newRaw(t, Options{Handler: mux{"add": addHandler}, Inline: inlineSet("add")})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"add","params":{"a":1,"b":1}}`)
	// The reader now writes the answer, which nobody reads yet; this
	// write goes through only if another goroutine reads.
	p.send(`{"jsonrpc":"2.0","id":2,"method":"add","params":{"a":2,"b":2}}`)
	for _, want := range []string{`{"jsonrpc":"2.0","id":1,"result":{"sum":2}}`, `{"jsonrpc":"2.0","id":2,"result":{"sum":4}}`} {
		if got := p.recv(); got != want {
			t.Errorf("got %s; want %s", got, want)
		}
	}
	if n := server.inline.handOffs.Load(); n != 1 {
		t.Errorf("%d readers started by the watchdog; want 1", n)
	}
	// The new reader reads on, and runs inline handlers itself.
	if got, want := p.exchange(`{"jsonrpc":"2.0","id":3,"method":"add","params":{"a":3,"b":3}}`), mustJSON(t, `{"jsonrpc":"2.0","id":3,"result":{"sum":6}}`); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v; want %v", got, want)
	}
}

// waitNoWriter waits until no goroutine holds c's writer's place.
func waitNoWriter(c *Conn) {
	for limit := time.Now().Add(waitLimit); time.Now().Before(limit); runtime.Gosched() {
		c.out.mu.Lock()
		writing := c.out.writing
		c.out.mu.Unlock()
		if !writing {
			return
		}
	}
}

// TestInlineFloodBothWaysOverPipe: both peers answer on their readers and
// call each other at once over an unbuffered pipe. First both readers
// are made to write large answers at the same time (the handlers of
// "meet" wait for each other), so that neither reads; then many callers
// go on. The watchdog hands reading to a new goroutine on each side, and
// everything is answered.
func TestInlineFloodBothWaysOverPipe(t *testing.T) {
	big := strings.Repeat("x", 16<<10)
	var met sync.WaitGroup
	met.Add(2)
	h := mux{
		"meet": func(ctx context.Context, _ *Request) (any, error) {
			met.Done()
			met.Wait()
			// Once the caller on this side has given up the writer's
			// place, the reader writes the answer itself.
			waitNoWriter(ConnFromContext(ctx))
			return big, nil
		},
		"big": func(context.Context, *Request) (any, error) { return big, nil },
		"small": func(_ context.Context, req *Request) (any, error) {
			return req.Params, nil
		},
	}
	opts := Options{Handler: h, Inline: inlineSet("meet", "big", "small")}
	a, b := pair(t, opts, opts)
	errc := make(chan error, 16)
	run := func(f func(c *Conn) error) {
		t.Helper()
		var wg sync.WaitGroup
		for _, c := range []*Conn{a, b} {
			wg.Go(func() {
				if err := f(c); err != nil {
					errc <- err
				}
			})
		}
		awaitPeers(t, &wg)
	}
	ctx := context.Background() // written directly when no writer runs
	run(func(c *Conn) error {
		var s string
		if err := c.Call(ctx, "meet", nil, &s); err != nil || len(s) != len(big) {
			return errors.Join(errors.New("meet"), err)
		}
		return nil
	})
	if a.inline.handOffs.Load() == 0 && b.inline.handOffs.Load() == 0 {
		t.Error("both readers wrote at once, and no watchdog handed reading over")
	}
	run(func(c *Conn) error {
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for range 50 {
					var s string
					if err := c.Call(ctx, "big", nil, &s); err != nil || len(s) != len(big) {
						errc <- errors.Join(errors.New("big"), err)
						return
					}
					var n []int
					if err := c.Call(ctx, "small", json.RawMessage(`[1]`), &n); err != nil || len(n) != 1 {
						errc <- errors.Join(errors.New("small"), err)
						return
					}
				}
			})
		}
		wg.Wait()
		return nil
	})
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	t.Logf("readers started by the watchdogs: %d and %d", a.inline.handOffs.Load(), b.inline.handOffs.Load())
}
