package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// blockUntilCancelled is a handler that reports its start and returns only
// when its context is cancelled.
func blockUntilCancelled(started chan<- struct{}, cancelled chan<- error) func(context.Context, *Request) (any, error) {
	return func(ctx context.Context, req *Request) (any, error) {
		started <- struct{}{}
		<-ctx.Done()
		cancelled <- ctx.Err()
		return nil, ctx.Err()
	}
}

func TestCancellationLSP(t *testing.T) {
	started, cancelled := make(chan struct{}, 1), make(chan error, 1)
	server := mux{"slow": blockUntilCancelled(started, cancelled)}
	c, _ := pair(t, Options{Cancellation: CancelLSP}, Options{Cancellation: CancelLSP, Handler: server})
	ctx, cancel := context.WithCancel(ctxLimit(t))
	errc := make(chan error, 1)
	go func() { errc <- c.Call(ctx, "slow", nil, nil) }()
	<-started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call returned %v, want an error wrapping context.Canceled", err)
	}
	// The peer's handler sees its context cancelled by $/cancelRequest.
	select {
	case err := <-cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("handler context ended with %v", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("$/cancelRequest did not cancel the handler")
	}
}

func TestCancellationWire(t *testing.T) {
	tests := []struct {
		style Cancellation
		want  string
	}{
		{CancelLSP, `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`},
		{CancelMCP, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"context canceled"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.style.Method(), func(t *testing.T) {
			var log logBuffer
			c, p := newRaw(t, Options{Cancellation: tt.style, Logger: log.logger()})
			ctx, cancel := context.WithCancel(ctxLimit(t))
			errc := make(chan error, 1)
			go func() { errc <- c.Call(ctx, "slow", nil, nil) }()
			if got := p.recv(); got != `{"jsonrpc":"2.0","id":1,"method":"slow"}` {
				t.Fatalf("request = %s", got)
			}
			cancel()
			if got := p.recv(); got != tt.want {
				t.Errorf("cancellation = %s, want %s", got, tt.want)
			}
			<-errc
			// A late answer to the cancelled id is ignored and the
			// connection carries on.
			p.send(`{"jsonrpc":"2.0","id":1,"result":"late"}`)
			go func() { errc <- c.Call(ctxLimit(t), "next", nil, nil) }()
			if got := p.recv(); got != `{"jsonrpc":"2.0","id":2,"method":"next"}` {
				t.Fatalf("next request = %s", got)
			}
			p.send(`{"jsonrpc":"2.0","id":2,"result":null}`)
			if err := <-errc; err != nil {
				t.Errorf("call after a late answer: %v", err)
			}
			// LSP peers must answer a cancelled request: no warning for
			// that answer, but a second one is unexpected again.
			if got := log.String(); got != "" {
				t.Errorf("the late answer to a cancelled call was logged: %s", got)
			}
			p.send(`{"jsonrpc":"2.0","id":1,"result":"again"}`)
			go func() { errc <- c.Call(ctxLimit(t), "next", nil, nil) }()
			if got := p.recv(); got != `{"jsonrpc":"2.0","id":3,"method":"next"}` {
				t.Fatalf("next request = %s", got)
			}
			p.send(`{"jsonrpc":"2.0","id":3,"result":null}`)
			<-errc
			if got := log.String(); !strings.Contains(got, "response to an unknown or already answered id") {
				t.Errorf("a second answer to a cancelled call was not logged: %q", got)
			}
		})
	}
}

func TestIncomingCancellationAnswers(t *testing.T) {
	// LSP answers a cancelled request with -32800; MCP does not answer it.
	for _, style := range []Cancellation{CancelLSP, CancelMCP} {
		t.Run(style.Method(), func(t *testing.T) {
			started, cancelled := make(chan struct{}, 1), make(chan error, 1)
			_, p := newRaw(t, Options{Cancellation: style, Handler: mux{"slow": blockUntilCancelled(started, cancelled), "sum": specHandler["sum"]}})
			p.send(`{"jsonrpc":"2.0","id":"a","method":"slow"}`)
			<-started
			if style == CancelLSP {
				p.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"a"}}`)
			} else {
				p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a","reason":"user"}}`)
			}
			<-cancelled
			p.send(`{"jsonrpc":"2.0","id":"b","method":"sum","params":[]}`)
			// Answers may come in either order; compare them as a set.
			want := `[{"jsonrpc":"2.0","id":"b","result":0}]`
			got := "[" + p.recv()
			if style == CancelLSP {
				want = `[{"jsonrpc":"2.0","id":"a","error":{"code":-32800,"message":"Request cancelled"}},{"jsonrpc":"2.0","id":"b","result":0}]`
				got += "," + p.recv()
			}
			assertSameJSON(t, "answers", got+"]", want)
			// MCP sends nothing for "a": the next frame answers "c".
			p.send(`{"jsonrpc":"2.0","id":"c","method":"sum","params":[1]}`)
			assertSameJSON(t, "after", p.recv(), `{"jsonrpc":"2.0","id":"c","result":1}`)
		})
	}
}

func TestDefaultTimeout(t *testing.T) {
	var timedOut atomic.Value
	opts := Options{
		Cancellation: CancelLSP,
		Timeout: func(method string) Timeout {
			if method == "initialize" {
				return Timeout{After: 20 * time.Millisecond, Cancel: true}
			}
			return Timeout{}
		},
		OnTimeout: func(method string, id ID) { timedOut.Store(method + " " + id.String()) },
	}
	c, p := newRaw(t, opts)
	err := c.Call(context.Background(), "initialize", nil, nil)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Method != "initialize" || te.Timeout != 20*time.Millisecond {
		t.Fatalf("got %v, want a *TimeoutError for initialize", err)
	}
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("timeout error %v does not match ErrTimeout and DeadlineExceeded", err)
	}
	if got := timedOut.Load(); got != "initialize 1" {
		t.Errorf("OnTimeout saw %v, want %q", got, "initialize 1")
	}
	if got := p.recv(); got != `{"jsonrpc":"2.0","id":1,"method":"initialize"}` {
		t.Errorf("request = %s", got)
	}
	if got := p.recv(); got != `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}` {
		t.Errorf("timeout did not send the cancellation: %s", got)
	}

	// A caller deadline replaces the default timeout.
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- c.Call(ctx, "initialize", nil, nil) }()
	p.recv()
	// A call started after it, without a deadline, times out: the default
	// timeout would have expired for the first call by then.
	if err := c.Call(context.Background(), "initialize", nil, nil); !errors.Is(err, ErrTimeout) {
		t.Fatalf("second call: got %v, want a timeout", err)
	}
	p.recv() // the second request
	p.recv() // and its cancellation
	p.send(`{"jsonrpc":"2.0","id":2,"result":{}}`)
	if err := <-errc; err != nil {
		t.Errorf("call with its own deadline failed: %v", err)
	}
	// A caller's own expired deadline is not the method's timeout.
	ctx, cancel = context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if err := c.Call(ctx, "other", nil, nil); errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("caller deadline: got %v, want DeadlineExceeded but not ErrTimeout", err)
	}
}

func TestPeerGoneFailsPendingCalls(t *testing.T) {
	c, p := newRaw(t, Options{})
	const n = 10
	errs := make(chan error, n)
	for range n {
		go func() { errs <- c.Call(ctxLimit(t), "wait", nil, nil) }()
	}
	for range n {
		p.recv()
	}
	p.conn.Close()
	for range n {
		if err := <-errs; !errors.Is(err, ErrClosed) || !errors.Is(err, ErrPeerClosed) {
			t.Errorf("pending call ended with %v, want ErrClosed wrapping ErrPeerClosed", err)
		}
	}
	<-c.Done()
	if !errors.Is(c.Err(), ErrPeerClosed) {
		t.Errorf("Err() = %v, want ErrPeerClosed", c.Err())
	}
	if err := c.Call(ctxLimit(t), "after", nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("call after the end: %v", err)
	}
	if err := c.Notify(ctxLimit(t), "after", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("notify after the end: %v", err)
	}
}

func TestCloseCancelsHandlersAndWaits(t *testing.T) {
	started, cancelled := make(chan struct{}, 1), make(chan error, 1)
	c, s := pair(t, Options{}, Options{Handler: mux{"slow": blockUntilCancelled(started, cancelled)}})
	errc := make(chan error, 1)
	go func() { errc <- c.Call(ctxLimit(t), "slow", nil, nil) }()
	<-started
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	// Close returned, so the handler has returned too.
	select {
	case <-cancelled:
	default:
		t.Error("Close returned before the handler ended")
	}
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Errorf("caller saw %v, want ErrClosed", err)
	}
	if !errors.Is(s.Err(), ErrClosed) {
		t.Errorf("closed side Err() = %v", s.Err())
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestShutdownBoundedByContext(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	c, s := pair(t, Options{}, Options{Handler: mux{"stuck": func(ctx context.Context, req *Request) (any, error) {
		started <- struct{}{}
		<-release // ignores ctx
		return nil, nil
	}}})
	go c.Call(ctxLimit(t), "stuck", nil, nil)
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := s.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown with a stuck handler = %v, want DeadlineExceeded", err)
	}
	close(release)
	s.Wait()
}

func TestOutgoingBatch(t *testing.T) {
	notified := make(chan string, 1)
	server := mux{"add": addHandler, "note": func(ctx context.Context, req *Request) (any, error) {
		notified <- string(req.Params)
		return nil, nil
	}}
	c, _ := pair(t, Options{}, Options{Handler: server})
	var r1, r2 addResult
	calls := []*BatchCall{
		{Method: "add", Params: addParams{1, 2}, Result: &r1},
		{Method: "note", Params: map[string]int{"x": 1}, Notification: true},
		{Method: "missing"},
		{Method: "add", Params: addParams{10, 20}, Result: &r2},
	}
	if err := c.Batch(ctxLimit(t), calls); err != nil {
		t.Fatal(err)
	}
	if calls[0].Err != nil || r1.Sum != 3 || calls[3].Err != nil || r2.Sum != 30 {
		t.Errorf("batch results: %v %d, %v %d", calls[0].Err, r1.Sum, calls[3].Err, r2.Sum)
	}
	if !errors.Is(calls[2].Err, ErrMethodNotFound) {
		t.Errorf("missing method in batch: %v", calls[2].Err)
	}
	if got := <-notified; got != `{"x":1}` {
		t.Errorf("batched notification params = %s", got)
	}
	if err := c.Batch(ctxLimit(t), nil); err == nil {
		t.Error("empty batch accepted")
	}
}

func TestBatchWireAndLimit(t *testing.T) {
	c, p := newRaw(t, Options{MaxBatchSize: 3, Handler: specHandler})
	errc := make(chan error, 1)
	calls := []*BatchCall{{Method: "a"}, {Method: "b", Notification: true}, {Method: "c"}}
	go func() { errc <- c.Batch(ctxLimit(t), calls) }()
	if got := p.recv(); got != `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"},{"jsonrpc":"2.0","id":2,"method":"c"}]` {
		t.Fatalf("batch on the wire: %s", got)
	}
	// Responses may come back as a batch, in any order.
	p.send(`[{"jsonrpc":"2.0","id":2,"result":"c"},{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"nope"}}]`)
	if err := <-errc; err != nil || !errors.Is(calls[0].Err, &Error{Code: -32000}) || calls[2].Err != nil {
		t.Errorf("batch outcome: %v, %v, %v", err, calls[0].Err, calls[2].Err)
	}
	big := `[` + strings.Repeat(`{"jsonrpc":"2.0","method":"sum","params":[],"id":1},`, 3) + `{"jsonrpc":"2.0","method":"sum","params":[],"id":1}]`
	p.send(big)
	assertSameJSON(t, "batch over the limit", p.recv(), `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"a batch of 4 elements exceeds the limit of 3"}}`)
}

func TestDuplicateIDInFlight(t *testing.T) {
	started, cancelled := make(chan struct{}, 1), make(chan error, 1)
	_, p := newRaw(t, Options{Handler: mux{"slow": blockUntilCancelled(started, cancelled)}})
	p.send(`{"jsonrpc":"2.0","id":5,"method":"slow"}`)
	<-started
	got := p.exchange(`{"jsonrpc":"2.0","id":5,"method":"slow"}`)
	assertSameJSON(t, "duplicate id", fmt.Sprint(got.(map[string]any)["error"].(map[string]any)["code"]), "-32600")
}

func TestUnknownResponseIgnored(t *testing.T) {
	_, p := newRaw(t, Options{Handler: specHandler})
	p.send(`{"jsonrpc":"2.0","id":99,"result":1}`)
	p.send(`{"jsonrpc":"2.0","id":98,"error":{"code":1,"message":"x"}}`)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"sum","params":[2]}`)
	assertSameJSON(t, "after stray responses", p.recv(), `{"jsonrpc":"2.0","id":1,"result":2}`)
}

func TestOversizedFrameIsRefusedAndConnectionContinues(t *testing.T) {
	ones := strings.Repeat("1,", 200) + "1"
	for _, f := range []framing.Framing{framing.NDJSON, framing.ContentLength} {
		t.Run(f.Name(), func(t *testing.T) {
			_, p := newRaw(t, Options{Framing: f, Handler: specHandler, Limits: framing.Limits{MaxMessageSize: 64}})
			for _, c := range []struct{ name, msg, id string }{
				{"id first", `{"jsonrpc":"2.0","id":1,"method":"sum","params":[` + ones + `]}`, "1"},
				{"id last", `{"jsonrpc":"2.0","method":"sum","params":[` + ones + `],"id":"last"}`, `"last"`},
				{"id in the middle", `{"jsonrpc":"2.0","method":"sum","params":[` + ones + `],"id":3,"x":[` + ones + `]}`, "null"},
				{"batch", `[{"jsonrpc":"2.0","method":"sum","params":[` + ones + `],"id":4}]`, "null"},
			} {
				got := p.exchange(c.msg).(map[string]any)
				e, _ := got["error"].(map[string]any)
				if id, _ := json.Marshal(got["id"]); e["code"] != float64(CodeInvalidRequest) || string(id) != c.id {
					t.Errorf("%s: oversized request answered %v, want -32600 with id %s", c.name, got, c.id)
				}
			}
			p.send(`{"jsonrpc":"2.0","id":2,"method":"sum","params":[5]}`)
			assertSameJSON(t, "next", p.recv(), `{"jsonrpc":"2.0","id":2,"result":5}`)
		})
	}
}

// TestOversizedResponseFailsItsCall checks that the call waiting for a
// response over the size limit fails at once with framing.ErrTooLarge,
// that the response is not answered, and that the connection goes on.
func TestOversizedResponseFailsItsCall(t *testing.T) {
	big := strings.Repeat("x", 500)
	for _, f := range []framing.Framing{framing.NDJSON, framing.ContentLength} {
		for _, idLast := range []bool{false, true} {
			c, p := newRaw(t, Options{Framing: f, Handler: specHandler, Limits: framing.Limits{MaxMessageSize: 64}})
			errc := make(chan error, 1)
			go func() { errc <- c.Call(context.Background(), "big", nil, nil) }()
			req := p.recv()
			var m struct{ ID json.RawMessage }
			if err := json.Unmarshal([]byte(req), &m); err != nil {
				t.Fatal(err)
			}
			if idLast {
				p.send(`{"jsonrpc":"2.0","result":"` + big + `","id":` + string(m.ID) + `}`)
			} else {
				p.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":"` + big + `"}`)
			}
			select {
			case err := <-errc:
				if !errors.Is(err, framing.ErrTooLarge) {
					t.Errorf("%s, id last %v: call = %v, want framing.ErrTooLarge", f.Name(), idLast, err)
				}
			case <-time.After(waitLimit):
				t.Fatalf("%s, id last %v: the call still waits after its response was refused", f.Name(), idLast)
			}
			// Not answered: the next frame the peer gets is its answer.
			p.send(`{"jsonrpc":"2.0","id":9,"method":"sum","params":[4]}`)
			assertSameJSON(t, "next", p.recv(), `{"jsonrpc":"2.0","id":9,"result":4}`)
		}
	}
}

func TestPeerThatNeverReadsDoesNotBlockReading(t *testing.T) {
	// The peer floods garbage (each earning an error reply it never reads)
	// and then answers our call: the answer must still reach us.
	s1, s2 := net.Pipe()
	c := NewConn(s1, Options{MaxQueuedRequests: 4})
	defer c.Close()
	defer s2.Close()
	errc := make(chan error, 1)
	var result string
	go func() { errc <- c.Call(ctxLimit(t), "m", nil, &result) }()
	// Read our request, then never read again.
	if _, err := framing.NDJSON.NewReader(s2, framing.Limits{}).Read(); err != nil {
		t.Fatal(err)
	}
	w := framing.NDJSON.NewWriter(s2)
	s2.SetWriteDeadline(time.Now().Add(waitLimit))
	for range 100 {
		if err := w.Write([]byte(`{garbage`)); err != nil {
			t.Fatalf("our reader stopped reading: %v", err)
		}
	}
	if err := w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":"through"}`)); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil || result != "through" {
		t.Errorf("call = %q, %v", result, err)
	}
}

func TestRedialer(t *testing.T) {
	var mu sync.Mutex
	var servers []*Conn
	dials := 0
	r := &Redialer{
		Dial: func(ctx context.Context) (io.ReadWriteCloser, error) {
			a, b := net.Pipe()
			mu.Lock()
			defer mu.Unlock()
			dials++
			servers = append(servers, NewConn(b, Options{Handler: specHandler}))
			return a, nil
		},
		// Long enough never to expire between the calls below: the idle
		// case runs on a second Redialer.
		IdleTimeout: time.Hour,
	}
	defer func() {
		r.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, s := range servers {
			s.Close()
		}
	}()
	ctx := ctxLimit(t)
	var sum int
	for range 3 {
		if err := r.Call(ctx, "sum", []int{1, 2}, &sum); err != nil || sum != 3 {
			t.Fatalf("call = %d, %v", sum, err)
		}
	}
	mu.Lock()
	if dials != 1 {
		t.Errorf("3 calls in a row dialed %d times, want 1", dials)
	}
	first := servers[0]
	mu.Unlock()

	// The server drops the connection: the next call dials again.
	first.Close()
	<-r.conn.Done()
	if err := r.Call(ctx, "sum", []int{4}, &sum); err != nil || sum != 4 {
		t.Fatalf("call after the server closed = %d, %v", sum, err)
	}
	mu.Lock()
	if dials != 2 {
		t.Errorf("dials = %d, want 2 (first, after server close)", dials)
	}
	mu.Unlock()
	r.Close()
	// Idle past IdleTimeout: the connection is closed and redialed.
	idle := &Redialer{Dial: r.Dial, IdleTimeout: time.Millisecond}
	defer idle.Close()
	c, err := idle.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Done():
	case <-time.After(waitLimit):
		t.Fatal("idle connection was not closed")
	}
	if err := idle.Notify(ctx, "update", []int{1}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if dials != 4 {
		t.Errorf("dials = %d, want 4 (first, after server close, idle's first, after idle)", dials)
	}
	mu.Unlock()
	if err := r.Call(ctx, "sum", nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("call on a closed Redialer: %v", err)
	}
}

func TestNotificationsSentBeforeCloseAreDelivered(t *testing.T) {
	// The peer sends notifications and closes at once: every one read
	// before the end of the stream still reaches the handler, in order.
	const n = 50
	var mu sync.Mutex
	var got []int
	c, p := newRaw(t, Options{Handler: mux{"note": func(ctx context.Context, req *Request) (any, error) {
		var v struct{ N int }
		if err := req.DecodeParams(&v); err != nil {
			return nil, err
		}
		time.Sleep(100 * time.Microsecond) // slower than the peer
		mu.Lock()
		got = append(got, v.N)
		mu.Unlock()
		return nil, nil
	}}})
	for i := range n {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"note","params":{"n":%d}}`, i))
	}
	p.conn.Close()
	c.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(got) != n {
		t.Fatalf("delivered %d of %d notifications", len(got), n)
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("notification %d delivered as number %d", v, i)
		}
	}
}
