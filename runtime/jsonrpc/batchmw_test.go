package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
)

// seenCall is what a recording outgoing middleware saw of one element.
type seenCall struct {
	method string
	id     ID
	batch  bool
	err    error
	result any // out.Result's value when next returned
}

// outRecorder is an outgoing middleware that reports each element it sees
// on entry and again when next returns.
type outRecorder struct {
	entered  chan seenCall
	returned chan seenCall
}

func newOutRecorder() *outRecorder {
	return &outRecorder{entered: make(chan seenCall, 16), returned: make(chan seenCall, 16)}
}

func (r *outRecorder) middleware(next SendFunc) SendFunc {
	return func(ctx context.Context, out *Outgoing) error {
		r.entered <- seenCall{method: out.Method, id: out.ID, batch: out.Batch}
		err := next(ctx, out)
		var res any
		if p, ok := out.Result.(*int); ok {
			res = *p
		}
		r.returned <- seenCall{method: out.Method, id: out.ID, batch: out.Batch, err: err, result: res}
		return err
	}
}

// wireBatch reads one frame that must be a JSON array and returns its
// elements.
func wireBatch(t *testing.T, p *rawPeer) []map[string]any {
	t.Helper()
	frame := p.recv()
	var elems []map[string]any
	if err := json.Unmarshal([]byte(frame), &elems); err != nil {
		t.Fatalf("frame %s is not a batch: %v", frame, err)
	}
	return elems
}

// wireID returns the JSON text of a decoded id member.
func wireID(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestBatchThroughMiddleware: every element of a batch passes through the
// outgoing middleware with Batch set and the id it goes out with; the
// elements go out as one array; each element's next returns only once
// its own answer has arrived, with the result decoded.
func TestBatchThroughMiddleware(t *testing.T) {
	for _, style := range []IDStyle{IntegerIDs, StringIDs} {
		t.Run(fmt.Sprint(style), func(t *testing.T) {
			rec := newOutRecorder()
			c, p := newRaw(t, Options{Outgoing: []OutgoingMiddleware{rec.middleware}, IDs: style})
			var r1, r2 int
			calls := []*BatchCall{
				{Method: "one", Params: []int{1}, Result: &r1},
				{Method: "note", Notification: true},
				{Method: "two", Params: []int{2}, Result: &r2},
			}
			done := make(chan error, 1)
			go func() { done <- c.Batch(ctxLimit(t), calls) }()
			elems := wireBatch(t, p)
			if len(elems) != 3 {
				t.Fatalf("batch of %d elements on the wire, want 3", len(elems))
			}
			seen := map[string]seenCall{}
			for range 3 {
				s := <-rec.entered
				if !s.batch {
					t.Errorf("%s: Outgoing.Batch is false", s.method)
				}
				seen[s.method] = s
			}
			for _, e := range elems {
				m := e["method"].(string)
				id, hasID := e["id"]
				switch {
				case m == "note" && (hasID || !seen[m].id.IsZero()):
					t.Errorf("notification: wire id %v, middleware id %s", id, seen[m].id)
				case m != "note" && wireID(id) != seen[m].id.String():
					t.Errorf("%s: middleware saw id %s, the wire has %s", m, seen[m].id, wireID(id))
				}
			}
			if s := <-rec.returned; s.method != "note" || s.err != nil {
				t.Fatalf("first return: %+v, want the notification, sent", s)
			}
			if len(rec.returned) != 0 {
				t.Fatal("a request's next returned before its answer")
			}
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":20}`, seen["two"].id))
			if s := <-rec.returned; s.method != "two" || s.err != nil || s.result != 20 {
				t.Fatalf("after answering two: %+v, want two returning with result 20", s)
			}
			if len(rec.returned) != 0 {
				t.Fatal("one's next returned before its answer")
			}
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"no"}}`, seen["one"].id))
			if s := <-rec.returned; s.method != "one" || s.err == nil {
				t.Fatalf("after answering one: %+v, want one returning its error", s)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			var rpcErr *Error
			if !errors.As(calls[0].Err, &rpcErr) || rpcErr.Code != -32000 || calls[1].Err != nil || calls[2].Err != nil || r2 != 20 {
				t.Errorf("outcomes %v, %v, %v, result %d", calls[0].Err, calls[1].Err, calls[2].Err, r2)
			}
		})
	}
}

var errRefused = errors.New("refused by policy")

// refuse is an outgoing middleware that refuses every method named "no".
func refuse(next SendFunc) SendFunc {
	return func(ctx context.Context, out *Outgoing) error {
		if out.Method == "no" {
			return errRefused
		}
		return next(ctx, out)
	}
}

// TestBatchMiddlewareRefuses: an element a middleware refuses gets its
// error and is left out of the array; a batch all refused sends nothing.
func TestBatchMiddlewareRefuses(t *testing.T) {
	c, p := newRaw(t, Options{Outgoing: []OutgoingMiddleware{refuse}})
	calls := []*BatchCall{{Method: "no"}, {Method: "yes"}, {Method: "no", Notification: true}}
	done := make(chan error, 1)
	go func() { done <- c.Batch(ctxLimit(t), calls) }()
	elems := wireBatch(t, p)
	if len(elems) != 1 || elems[0]["method"] != "yes" {
		t.Fatalf("wire batch %v, want only yes", elems)
	}
	p.send(fmt.Sprintf(`[{"jsonrpc":"2.0","id":%s,"result":null}]`, wireID(elems[0]["id"])))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !errors.Is(calls[0].Err, errRefused) || calls[1].Err != nil || !errors.Is(calls[2].Err, errRefused) {
		t.Errorf("outcomes %v, %v, %v", calls[0].Err, calls[1].Err, calls[2].Err)
	}

	all := []*BatchCall{{Method: "no"}, {Method: "no", Notification: true}}
	if err := c.Batch(ctxLimit(t), all); err != nil || !errors.Is(all[0].Err, errRefused) || !errors.Is(all[1].Err, errRefused) {
		t.Fatalf("all refused: %v, %v, %v", err, all[0].Err, all[1].Err)
	}
	// Nothing was written: the next frame is the next call.
	go func() { _ = c.Notify(ctxLimit(t), "after", nil) }()
	assertSameJSON(t, "after an all-refused batch", p.recv(), `{"jsonrpc":"2.0","method":"after"}`)
}

// TestBatchMiddlewareModifies: what a middleware changes is what is sent.
func TestBatchMiddlewareModifies(t *testing.T) {
	rename := func(next SendFunc) SendFunc {
		return func(ctx context.Context, out *Outgoing) error {
			out.Method = "v2/" + out.Method
			out.Params = map[string]any{"wrapped": out.Params}
			return next(ctx, out)
		}
	}
	c, p := newRaw(t, Options{Outgoing: []OutgoingMiddleware{rename}})
	calls := []*BatchCall{{Method: "a", Params: 1, Notification: true}, {Method: "b", Params: 2, Notification: true}}
	if err := c.Batch(ctxLimit(t), calls); err != nil || calls[0].Err != nil || calls[1].Err != nil {
		t.Fatalf("batch: %v, %v, %v", err, calls[0].Err, calls[1].Err)
	}
	assertSameJSON(t, "modified batch", p.recv(),
		`[{"jsonrpc":"2.0","method":"v2/a","params":{"wrapped":1}},{"jsonrpc":"2.0","method":"v2/b","params":{"wrapped":2}}]`)
}

// TestBatchMiddlewareCancelled: a ctx cancelled while the elements wait
// for their answers ends every element's next with the context's error,
// and the peer is told.
func TestBatchMiddlewareCancelled(t *testing.T) {
	rec := newOutRecorder()
	c, p := newRaw(t, Options{Outgoing: []OutgoingMiddleware{rec.middleware}, Cancellation: CancelLSP})
	ctx, cancel := context.WithCancel(ctxLimit(t))
	calls := []*BatchCall{{Method: "one"}, {Method: "two"}}
	done := make(chan error, 1)
	go func() { done <- c.Batch(ctx, calls) }()
	elems := wireBatch(t, p)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for i, call := range calls {
		if !errors.Is(call.Err, context.Canceled) {
			t.Errorf("element %d: %v, want context.Canceled", i, call.Err)
		}
		if s := <-rec.returned; !errors.Is(s.err, context.Canceled) {
			t.Errorf("middleware saw %v, want context.Canceled", s.err)
		}
	}
	cancelled := map[string]bool{}
	for range elems {
		var n struct {
			Method string
			Params struct{ ID json.RawMessage }
		}
		if err := json.Unmarshal([]byte(p.recv()), &n); err != nil || n.Method != "$/cancelRequest" {
			t.Fatalf("want a cancellation: %+v, %v", n, err)
		}
		cancelled[string(n.Params.ID)] = true
	}
	for _, e := range elems {
		if !cancelled[wireID(e["id"])] {
			t.Errorf("no cancellation for id %s", wireID(e["id"]))
		}
	}
}

// TestBatchMiddlewareCancelledBeforeSent: a ctx that ends while an
// element's middleware still holds it gives the batch up: nothing is sent.
func TestBatchMiddlewareCancelledBeforeSent(t *testing.T) {
	hold := make(chan struct{})
	holder := func(next SendFunc) SendFunc {
		return func(ctx context.Context, out *Outgoing) error {
			if out.Method == "held" {
				<-hold
			}
			return next(ctx, out)
		}
	}
	reached := make(chan struct{}, 4)
	spy := func(next SendFunc) SendFunc {
		return func(ctx context.Context, out *Outgoing) error {
			reached <- struct{}{}
			return next(ctx, out)
		}
	}
	c, p := newRaw(t, Options{Outgoing: []OutgoingMiddleware{holder, spy}})
	ctx, cancel := context.WithCancel(ctxLimit(t))
	calls := []*BatchCall{{Method: "free"}, {Method: "held"}}
	done := make(chan error, 1)
	go func() { done <- c.Batch(ctx, calls) }()
	<-reached // free waits in the batch being assembled
	cancel()
	close(hold)
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Batch = %v, want context.Canceled", err)
	}
	for i, call := range calls {
		if !errors.Is(call.Err, context.Canceled) {
			t.Errorf("element %d: %v, want context.Canceled", i, call.Err)
		}
	}
	if n := c.pendingCount(); n != 0 {
		t.Errorf("%d calls left pending", n)
	}
	go func() { _ = c.Notify(ctxLimit(t), "after", nil) }()
	assertSameJSON(t, "after a batch given up", p.recv(), `{"jsonrpc":"2.0","method":"after"}`)
}

// TestBatchMiddlewareLimits: MaxOutgoingCalls, RejectBatches and
// BatchVersions apply to a batch sent through middleware as to one sent
// without.
func TestBatchMiddlewareLimits(t *testing.T) {
	var mu sync.Mutex
	entered := 0
	count := func(next SendFunc) SendFunc {
		return func(ctx context.Context, out *Outgoing) error {
			mu.Lock()
			entered++
			mu.Unlock()
			return next(ctx, out)
		}
	}
	mws := []OutgoingMiddleware{count}
	c, _ := pair(t, Options{MaxOutgoingCalls: 2, Outgoing: mws}, Options{Handler: relHandler})
	batch := []*BatchCall{{Method: "sum"}, {Method: "sum"}, {Method: "sum"}}
	if err := c.Batch(ctxLimit(t), batch); !errors.Is(err, ErrTooManyCalls) || !errors.Is(batch[0].Err, ErrTooManyCalls) {
		t.Errorf("batch of 3 with room for 2: %v, element %v, want ErrTooManyCalls", err, batch[0].Err)
	}
	if n := c.pendingCount(); n != 0 {
		t.Errorf("%d calls left pending", n)
	}
	batch = batch[:2]
	if err := c.Batch(ctxLimit(t), batch); err != nil || batch[0].Err != nil || batch[1].Err != nil {
		t.Errorf("batch of 2: %v, %v, %v", err, batch[0].Err, batch[1].Err)
	}

	entered = 0
	for name, opts := range map[string]Options{
		"RejectBatches": {RejectBatches: true, Outgoing: mws},
		"BatchVersions": {BatchVersions: []string{"v1"}, VersionField: "v", Handshake: "init", Outgoing: mws},
	} {
		c, _ := pair(t, opts, Options{Handler: relHandler})
		if err := c.Batch(ctxLimit(t), []*BatchCall{{Method: "sum"}}); !errors.Is(err, ErrBatchesRejected) {
			t.Errorf("%s: %v, want ErrBatchesRejected", name, err)
		}
	}
	if entered != 0 {
		t.Errorf("middleware saw %d elements of refused batches", entered)
	}
}
