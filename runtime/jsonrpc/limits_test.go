package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// readAll reads every frame the Conn writes to p on a goroutine: frames
// for which keep reports true go to the returned channel, the others are
// dropped. It ends when the pipe closes.
func readAll(p *rawPeer, keep func(string) bool) <-chan string {
	out := make(chan string, 1024)
	go func() {
		defer close(out)
		for {
			b, err := p.r.Read()
			if err != nil {
				return
			}
			if keep(string(b)) {
				out <- string(b)
			}
		}
	}()
	return out
}

// recvFrom waits for the next kept frame.
func recvFrom(t *testing.T, frames <-chan string) string {
	t.Helper()
	select {
	case f, ok := <-frames:
		if !ok {
			t.Fatal("the connection closed")
		}
		return f
	case <-time.After(waitLimit):
		t.Fatal("no frame")
	}
	return ""
}

// TestOutgoingCallsBounded floods a Conn with notifications whose handler
// calls the peer, which never answers: the calls pending stay at
// MaxOutgoingCalls, the others fail at once with ErrTooManyCalls, and the
// connection keeps answering.
func TestOutgoingCallsBounded(t *testing.T) {
	const flood = 100_000
	var (
		calls    sync.WaitGroup
		failed   atomic.Int64
		other    atomic.Value
		allFails = make(chan struct{})
		c        *Conn
		ready    = make(chan struct{})
	)
	h := mux{
		"sum": relHandler["sum"],
		"changed": func(ctx context.Context, req *Request) (any, error) {
			<-ready
			calls.Add(1)
			go func() {
				defer calls.Done()
				err := c.Call(context.Background(), "roots/list", nil, nil)
				switch {
				case errors.Is(err, ErrTooManyCalls):
					if !strings.Contains(err.Error(), `"roots/list"`) {
						other.Store(err)
					}
					if failed.Add(1) == flood-DefaultMaxOutgoingCalls {
						close(allFails)
					}
				case errors.Is(err, ErrClosed):
				default:
					other.Store(err)
				}
			}()
			return nil, nil
		},
	}
	var p *rawPeer
	c, p = newRaw(t, Options{Handler: h})
	close(ready)
	answers := readAll(p, func(f string) bool { return !strings.Contains(f, `"roots/list"`) })
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for range flood {
			if p.w.Write([]byte(`{"jsonrpc":"2.0","method":"changed"}`)) != nil {
				return
			}
		}
	}()
	select {
	case <-allFails:
	case <-time.After(5 * waitLimit):
		t.Fatalf("only %d of the calls failed", failed.Load())
	}
	if n := c.pendingCount(); n != DefaultMaxOutgoingCalls {
		t.Errorf("%d calls pending, want the bound %d", n, DefaultMaxOutgoingCalls)
	}
	if err := other.Load(); err != nil {
		t.Errorf("a call failed with %v", err)
	}
	<-sent
	p.send(`{"jsonrpc":"2.0","id":"next","method":"sum","params":[40,2]}`)
	assertSameJSON(t, "next request", recvFrom(t, answers), `{"jsonrpc":"2.0","id":"next","result":42}`)
	c.Close()
	calls.Wait()
}

// TestWaitForCallSlots: with WaitForCallSlots, a call past the bound
// waits for a slot (or its context); a call from a handler of the same
// connection still fails at once.
func TestWaitForCallSlots(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 8)
	peer := mux{"block": func(ctx context.Context, req *Request) (any, error) {
		started <- struct{}{}
		<-release
		return "done", nil
	}}
	var c *Conn
	ours := mux{"nested": func(ctx context.Context, req *Request) (any, error) {
		err := c.Call(ctx, "block", nil, nil)
		if errors.Is(err, ErrTooManyCalls) {
			return "refused", nil
		}
		return nil, err
	}}
	c, other := pair(t, Options{MaxOutgoingCalls: 2, WaitForCallSlots: true, Handler: ours}, Options{Handler: peer})
	ctx := ctxLimit(t)
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- c.Call(ctx, "block", nil, nil) }()
		<-started
	}
	// A third call waits: it ends with its context, not ErrTooManyCalls.
	short, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.Call(short, "block", nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("third call: %v, want it to wait and end with its context", err)
	}
	// A handler of c calling c does not wait.
	var got string
	if err := other.Call(ctx, "nested", nil, &got); err != nil || got != "refused" {
		t.Errorf("call from a handler: %q, %v; want it refused at once", got, err)
	}
	// A waiting call proceeds once a slot is free.
	fourth := make(chan error, 1)
	go func() { fourth <- c.Call(ctx, "block", nil, nil) }()
	close(release)
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("first calls: %v", err)
		}
	}
	if err := <-fourth; err != nil {
		t.Errorf("waiting call: %v", err)
	}
}

// TestBatchCountsAgainstMaxOutgoingCalls: each request of a batch takes
// a slot; a batch that does not fit fails whole, with nothing pending.
func TestBatchCountsAgainstMaxOutgoingCalls(t *testing.T) {
	c, _ := pair(t, Options{MaxOutgoingCalls: 2}, Options{Handler: relHandler})
	batch := []*BatchCall{{Method: "sum"}, {Method: "sum"}, {Method: "sum"}}
	if err := c.Batch(ctxLimit(t), batch); !errors.Is(err, ErrTooManyCalls) {
		t.Errorf("batch of 3 with room for 2: %v, want ErrTooManyCalls", err)
	}
	if n := c.pendingCount(); n != 0 {
		t.Errorf("%d calls left pending", n)
	}
	if err := c.Batch(ctxLimit(t), batch[:2]); err != nil || batch[0].Err != nil || batch[1].Err != nil {
		t.Errorf("batch of 2: %v, %v, %v", err, batch[0].Err, batch[1].Err)
	}
}

// TestQueuedBytesPauseReading: behind a busy handler, large requests are
// read only while the bytes queued stay under MaxQueuedBytes; once the
// handler is free, every one is answered.
func TestQueuedBytesPauseReading(t *testing.T) {
	const (
		limit = 1 << 20
		each  = 256 << 10
		total = 40
	)
	release := make(chan struct{})
	full := make(chan struct{})
	var once sync.Once
	h := mux{"big": func(ctx context.Context, req *Request) (any, error) {
		<-release
		return 1, nil
	}}
	c, p := newRaw(t, Options{Handler: h, MaxConcurrentRequests: 1, MaxQueuedBytes: limit,
		onQueueFull: func() { once.Do(func() { close(full) }) }})
	var written atomic.Int64
	payload := strings.Repeat("x", each)
	go func() {
		for i := range total {
			if p.w.Write([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"big","params":[%q]}`, i, payload))) != nil {
				return
			}
			written.Add(1)
		}
	}()
	select {
	case <-full:
	case <-time.After(waitLimit):
		t.Fatal("reading never paused")
	}
	if q := c.queued.bytesQueued(); q > limit {
		t.Errorf("%d bytes queued, over the limit of %d", q, limit)
	}
	// One request with the handler, three queued, one read and waiting
	// for room, one being written: the rest stay with the peer.
	if n := written.Load(); n > 7 {
		t.Errorf("the peer wrote %d requests of %d bytes past a limit of %d", n, each, limit)
	}
	close(release)
	seen := map[string]bool{}
	for range total {
		seen[p.recv()] = true
	}
	if len(seen) != total {
		t.Errorf("%d distinct answers, want %d", len(seen), total)
	}
}
