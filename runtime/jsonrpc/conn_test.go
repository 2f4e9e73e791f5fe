package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

func TestCallsBothWaysWithNestedCallback(t *testing.T) {
	// The server's handler calls back into the client before answering, as
	// a Hermes extension reads the message while executing a command.
	server := mux{"twice_plus": func(ctx context.Context, req *Request) (any, error) {
		var p addParams
		if err := req.DecodeParams(&p); err != nil {
			return nil, err
		}
		var r addResult
		if err := ConnFromContext(ctx).Call(ctx, "add", addParams{p.A, p.A}, &r); err != nil {
			return nil, err
		}
		return addResult{Sum: r.Sum + p.B}, nil
	}}
	client := mux{"add": addHandler}
	for _, f := range []framing.Framing{framing.NDJSON, framing.ContentLength} {
		t.Run(f.Name(), func(t *testing.T) {
			c, s := pair(t, Options{Framing: f, Handler: client}, Options{Framing: f, Handler: server})
			var r addResult
			if err := c.Call(ctxLimit(t), "twice_plus", addParams{A: 20, B: 2}, &r); err != nil {
				t.Fatal(err)
			}
			if r.Sum != 42 {
				t.Errorf("twice_plus(20, 2) = %d, want 42", r.Sum)
			}
			// The server side calls the client directly too.
			if err := s.Call(ctxLimit(t), "add", addParams{A: 1, B: 2}, &r); err != nil || r.Sum != 3 {
				t.Errorf("server->client add = %d, %v; want 3, nil", r.Sum, err)
			}
		})
	}
}

func TestManyCallsAnsweredOutOfOrder(t *testing.T) {
	server := mux{"echo_after": func(ctx context.Context, req *Request) (any, error) {
		var p struct {
			N     int `json:"n"`
			Delay int `json:"delay_us"`
		}
		if err := req.DecodeParams(&p); err != nil {
			return nil, err
		}
		time.Sleep(time.Duration(p.Delay) * time.Microsecond)
		return p.N, nil
	}}
	c, _ := pair(t, Options{}, Options{Handler: server})
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			var got int
			err := c.Call(ctxLimit(t), "echo_after", map[string]int{"n": i, "delay_us": rand.IntN(2000)}, &got)
			if err == nil && got != i {
				err = fmt.Errorf("call %d got answer %d", i, got)
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestIncomingRequestConcurrencyIsBounded(t *testing.T) {
	const limit, calls = 3, 12
	var active, peak atomic.Int32
	release := make(chan struct{})
	entered := make(chan struct{}, calls)
	server := mux{"block": func(ctx context.Context, req *Request) (any, error) {
		n := active.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		entered <- struct{}{}
		<-release
		active.Add(-1)
		return "ok", nil
	}}
	_, p := newRaw(t, Options{Handler: server, MaxConcurrentRequests: limit})
	for i := range calls {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"block"}`, i))
	}
	for range limit {
		<-entered
	}
	// The reader answers an invalid request itself, after queueing every
	// request sent before it: once that answer is back, all the calls
	// wait, and no further handler may start while the first three hold
	// their slots.
	p.send(`{"jsonrpc":"2.0","id":"probe"}`)
	got, _ := p.recvJSON().(map[string]any)
	if e, _ := got["error"].(map[string]any); got["id"] != "probe" || fmt.Sprint(e["code"]) != "-32600" {
		t.Fatalf("answer to the probe = %v, want -32600", got)
	}
	select {
	case <-entered:
		t.Fatalf("a handler started beyond the limit of %d", limit)
	default:
	}
	close(release)
	for range calls {
		if got, _ := p.recvJSON().(map[string]any); got["result"] != "ok" {
			t.Errorf("answer %v, want ok", got)
		}
	}
	if got := peak.Load(); got != limit {
		t.Errorf("peak concurrent handlers = %d, want %d", got, limit)
	}
}

func TestNotificationsKeepArrivalOrder(t *testing.T) {
	const n = 2000
	got := make(chan int, n)
	server := mux{"delta": func(ctx context.Context, req *Request) (any, error) {
		var p struct{ Seq int }
		if err := req.DecodeParams(&p); err != nil {
			return nil, err
		}
		seq := p.Seq
		if seq%100 == 0 {
			time.Sleep(time.Millisecond) // a slow handler must not reorder
		}
		got <- seq
		return nil, nil
	}}
	c, _ := pair(t, Options{}, Options{Handler: server})
	for i := range n {
		if err := c.Notify(ctxLimit(t), "delta", map[string]int{"seq": i}); err != nil {
			t.Fatal(err)
		}
	}
	for want := range n {
		select {
		case seq := <-got:
			if seq != want {
				t.Fatalf("notification %d arrived as number %d", seq, want)
			}
		case <-time.After(waitLimit):
			t.Fatalf("notification %d never handled", want)
		}
	}
}

func TestHandlerErrors(t *testing.T) {
	server := mux{
		"busy": func(ctx context.Context, req *Request) (any, error) {
			return nil, NewError(-32003, "Agent busy", map[string]string{"state": "processing"})
		},
		"wrapped": func(ctx context.Context, req *Request) (any, error) {
			return nil, fmt.Errorf("context: %w", NewError(-32001, "Authentication failed", nil))
		},
		"plain": func(ctx context.Context, req *Request) (any, error) {
			return nil, errors.New("open /secret/path: permission denied")
		},
		"panic": func(ctx context.Context, req *Request) (any, error) {
			panic("boom at /internal/file.go")
		},
		"add": addHandler,
	}
	c, _ := pair(t, Options{}, Options{Handler: server})
	ctx := ctxLimit(t)

	err := c.Call(ctx, "busy", nil, nil)
	var rpcErr *Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32003 || rpcErr.Message != "Agent busy" || string(rpcErr.Data) != `{"state":"processing"}` {
		t.Errorf("busy: got %#v", err)
	}
	if !errors.Is(err, &Error{Code: -32003}) || errors.Is(err, ErrInternal) {
		t.Errorf("busy: errors.Is does not match by code: %v", err)
	}
	if err := c.Call(ctx, "wrapped", nil, nil); !errors.Is(err, &Error{Code: -32001}) {
		t.Errorf("wrapped *Error not sent as is: %v", err)
	}
	err = c.Call(ctx, "plain", nil, nil)
	if !errors.As(err, &rpcErr) || rpcErr.Code != CodeInternalError || rpcErr.Message != "Internal error" || len(rpcErr.Data) != 0 {
		t.Errorf("plain error: got %v, want a bare -32603 Internal error", err)
	}
	err = c.Call(ctx, "panic", nil, nil)
	if !errors.Is(err, ErrInternal) || rpcErr.Message != "Internal error" {
		t.Errorf("panic: got %v, want -32603", err)
	}
	var r addResult
	if err := c.Call(ctx, "add", addParams{2, 3}, &r); err != nil || r.Sum != 5 {
		t.Errorf("connection unusable after a handler panic: %d, %v", r.Sum, err)
	}
	if err := c.Call(ctx, "nope", nil, nil); !errors.Is(err, ErrMethodNotFound) {
		t.Errorf("unknown method: got %v, want -32601", err)
	}
}

func TestExposeErrors(t *testing.T) {
	server := mux{"plain": func(ctx context.Context, req *Request) (any, error) {
		return nil, errors.New("disk full")
	}}
	c, _ := pair(t, Options{}, Options{Handler: server, ExposeErrors: true})
	var rpcErr *Error
	if err := c.Call(ctxLimit(t), "plain", nil, nil); !errors.As(err, &rpcErr) || rpcErr.Message != "disk full" {
		t.Errorf("got %v, want -32603 with message %q", err, "disk full")
	}
}

func TestInvalidParamsNameTheField(t *testing.T) {
	type selection struct {
		Start int `json:"start"`
	}
	type params struct {
		Context struct {
			Selection selection `json:"selection"`
		} `json:"context"`
	}
	server := mux{"prompt": func(ctx context.Context, req *Request) (any, error) {
		var p params
		return nil, req.DecodeParams(&p)
	}}
	tests := []struct {
		name   string
		strict bool
		params string
		field  string
	}{
		{"wrong type deep", false, `{"context":{"selection":{"start":"x"}}}`, "context.selection.start"},
		{"array for object", false, `[1,2]`, ""},
		{"unknown field strict", true, `{"context":{},"extra":1}`, "extra"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, p := newRaw(t, Options{Handler: server, DisallowUnknownFields: tt.strict})
			got := p.exchange(`{"jsonrpc":"2.0","id":1,"method":"prompt","params":` + tt.params + `}`)
			e := got.(map[string]any)["error"].(map[string]any)
			if e["code"] != float64(CodeInvalidParams) {
				t.Fatalf("code = %v, want -32602 (%v)", e["code"], got)
			}
			data, _ := e["data"].(map[string]any)
			if data["field"] != nil && data["field"] != tt.field || data["field"] == nil && tt.field != "" {
				t.Errorf("data.field = %v, want %q (%v)", data["field"], tt.field, got)
			}
			if data["reason"] == "" || data["reason"] == nil {
				t.Errorf("data.reason missing: %v", got)
			}
		})
	}
	// Unknown fields are accepted by default.
	_, p := newRaw(t, Options{Handler: server})
	got := p.exchange(`{"jsonrpc":"2.0","id":1,"method":"prompt","params":{"extra":1}}`)
	if _, ok := got.(map[string]any)["result"]; !ok {
		t.Errorf("unknown field rejected without strict mode: %v", got)
	}
}

func TestValidateMethodBecomesInvalidParams(t *testing.T) {
	server := mux{"m": func(ctx context.Context, req *Request) (any, error) {
		var p validated
		return nil, req.DecodeParams(&p)
	}}
	_, p := newRaw(t, Options{Handler: server})
	got := p.exchange(`{"jsonrpc":"2.0","id":1,"method":"m","params":{}}`)
	want := mustJSON(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":{"field":"name","reason":"required field is missing"}}}`)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

type validated struct {
	Name *string `json:"name"`
}

func (v *validated) Validate() error {
	if v.Name == nil {
		return &FieldError{Field: "name", Reason: "required field is missing"}
	}
	return nil
}

func TestConnFromContext(t *testing.T) {
	var seen *Conn
	server := mux{"who": func(ctx context.Context, req *Request) (any, error) {
		seen = ConnFromContext(ctx)
		return nil, nil
	}}
	c, s := pair(t, Options{}, Options{Handler: server})
	if err := c.Call(ctxLimit(t), "who", nil, nil); err != nil {
		t.Fatal(err)
	}
	if seen != s {
		t.Errorf("ConnFromContext = %p, want the serving conn %p", seen, s)
	}
	if ConnFromContext(context.Background()) != nil {
		t.Error("ConnFromContext(Background) is not nil")
	}
}

func TestMiddlewareBothDirections(t *testing.T) {
	var log []string
	var mu sync.Mutex
	record := func(s string) {
		mu.Lock()
		log = append(log, s)
		mu.Unlock()
	}
	auth := func(next Handler) Handler {
		return HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			record("in:" + req.Method)
			if req.Method == "secret" {
				return nil, NewError(-32001, "Authentication failed", nil)
			}
			return next.Handle(ctx, req)
		})
	}
	outgoing := func(next SendFunc) SendFunc {
		return func(ctx context.Context, out *Outgoing) error {
			record(fmt.Sprintf("out:%s:%v", out.Method, out.Notification))
			return next(ctx, out)
		}
	}
	server := mux{"add": addHandler, "secret": func(ctx context.Context, req *Request) (any, error) {
		t.Error("middleware let a rejected request through")
		return nil, nil
	}}
	c, _ := pair(t, Options{Outgoing: []OutgoingMiddleware{outgoing}}, Options{Handler: server, Middleware: []Middleware{auth}})
	ctx := ctxLimit(t)
	var r addResult
	if err := c.Call(ctx, "add", addParams{1, 1}, &r); err != nil || r.Sum != 2 {
		t.Fatalf("add through middleware = %d, %v", r.Sum, err)
	}
	if err := c.Call(ctx, "secret", nil, nil); !errors.Is(err, &Error{Code: -32001}) {
		t.Errorf("secret: got %v, want -32001 from the middleware", err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"out:add:false", "in:add", "out:secret:false", "in:secret"}
	if fmt.Sprint(log) != fmt.Sprint(want) {
		t.Errorf("middleware saw %v, want %v", log, want)
	}
}

func TestStringIDs(t *testing.T) {
	c, p := newRaw(t, Options{IDs: StringIDs})
	done := make(chan error, 1)
	go func() { done <- c.Call(ctxLimit(t), "m", nil, nil) }()
	req := p.recvJSON().(map[string]any)
	if _, ok := req["id"].(string); !ok {
		t.Fatalf("id %v is not a string", req["id"])
	}
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"result":true}`, req["id"]))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
