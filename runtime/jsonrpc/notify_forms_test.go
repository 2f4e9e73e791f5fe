package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// recorder is a handler that reports the method of every message it gets.
func recorder(seen chan<- string) HandlerFunc {
	return func(_ context.Context, req *Request) (any, error) {
		seen <- req.Method
		if req.Method == "known" || req.Method == "mark" {
			return nil, nil
		}
		return nil, NewError(CodeMethodNotFound, "Method not found", nil)
	}
}

func TestCancellationNeverDispatched(t *testing.T) {
	for _, style := range []Cancellation{CancelLSP, CancelMCP} {
		t.Run(style.Method(), func(t *testing.T) {
			var log logBuffer
			seen := make(chan string, 8)
			_, p := newRaw(t, Options{Cancellation: style, Handler: recorder(seen), Logger: log.logger()})
			p.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":7}}`)
			p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
			p.send(`{"jsonrpc":"2.0","method":"mark"}`)
			// Notifications are handled in order: once mark is seen, the
			// cancellation before it was consumed or dispatched.
			other := map[Cancellation]string{CancelLSP: "notifications/cancelled", CancelMCP: "$/cancelRequest"}[style]
			if got := <-seen; got != other {
				t.Fatalf("handler got %s first, want only the other style's %s", got, other)
			}
			if got := <-seen; got != "mark" {
				t.Fatalf("handler got %s, want mark: the cancellation reached the handler", got)
			}
			if strings.Contains(log.String(), style.Method()) {
				t.Errorf("the cancellation was logged:\n%s", log.String())
			}
		})
	}
}

func TestIgnoreNotifications(t *testing.T) {
	tests := []struct {
		prefixes []string
		logged   []string // notifications whose failure is logged
		silent   []string
	}{
		{nil, []string{"$/progress", "x/y"}, nil},
		{[]string{"$/"}, []string{"x/y"}, []string{"$/progress"}},
		{[]string{"x/", "$/"}, nil, []string{"$/progress", "x/y"}},
		{[]string{""}, nil, []string{"$/progress", "x/y"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.prefixes, ","), func(t *testing.T) {
			var log logBuffer
			seen := make(chan string, 8)
			_, p := newRaw(t, Options{IgnoreNotifications: tt.prefixes, Handler: recorder(seen), Logger: log.logger()})
			p.send(`{"jsonrpc":"2.0","method":"$/progress","params":{}}`)
			p.send(`{"jsonrpc":"2.0","method":"x/y"}`)
			p.send(`{"jsonrpc":"2.0","method":"known"}`)
			p.send(`{"jsonrpc":"2.0","method":"mark"}`)
			for _, want := range []string{"$/progress", "x/y", "known", "mark"} {
				if got := <-seen; got != want {
					t.Fatalf("handler got %s, want %s", got, want)
				}
			}
			// Nothing was answered: the next frame answers this request.
			p.send(`{"jsonrpc":"2.0","id":1,"method":"known"}`)
			assertSameJSON(t, "reply", p.recv(), `{"jsonrpc":"2.0","id":1,"result":null}`)
			<-seen
			text := log.String()
			for _, m := range tt.logged {
				if !strings.Contains(text, "method="+m) {
					t.Errorf("failure of %s not logged:\n%s", m, text)
				}
			}
			for _, m := range tt.silent {
				if strings.Contains(text, "method="+m) {
					t.Errorf("failure of %s logged:\n%s", m, text)
				}
			}
		})
	}
}

func TestIgnoreNotificationsKeepsOtherFailures(t *testing.T) {
	var log logBuffer
	done := make(chan struct{})
	h := HandlerFunc(func(_ context.Context, req *Request) (any, error) {
		if req.Method == "mark" {
			close(done)
			return nil, nil
		}
		return nil, errors.New("disk full")
	})
	_, p := newRaw(t, Options{IgnoreNotifications: []string{""}, Handler: h, Logger: log.logger()})
	p.send(`{"jsonrpc":"2.0","method":"$/save"}`)
	p.send(`{"jsonrpc":"2.0","method":"mark"}`)
	<-done // notifications run in order: the failure of $/save is logged by now
	if !strings.Contains(log.String(), "disk full") {
		t.Errorf("a failure other than -32601 was not logged:\n%s", log.String())
	}
}

func TestHasParams(t *testing.T) {
	got := make(chan *Request, 1)
	_, p := newRaw(t, Options{Handler: HandlerFunc(func(_ context.Context, req *Request) (any, error) {
		got <- req
		return nil, nil
	})})
	for frame, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":1,"method":"m"}`:                  false,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":null}`:    true,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{}}`:      true,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":[]}`:      true,
		`{"jsonrpc":"2.0","id":1,"method":"m","params": null }`:  true,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":[null]}`:  true,
		`{"jsonrpc":"2.0","id":1,"method":"m","paramz":null}`:    false,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}`: true,
	} {
		p.exchange(frame)
		req := <-got
		if req.HasParams() != want {
			t.Errorf("%s: HasParams() = %v, want %v", frame, req.HasParams(), want)
		}
		if strings.Contains(frame, "null") && req.Params != nil && string(req.Params) != "[null]" {
			t.Errorf("%s: Params = %s, want nil for null", frame, req.Params)
		}
	}
	if (&Request{Params: json.RawMessage(`{}`)}).HasParams() != true || (&Request{}).HasParams() {
		t.Error("HasParams of a Request built by hand does not follow Params")
	}
}

// nullParams encodes as null through AppendJSON, as rpcimpl.NullValue,
// which generated stubs pass for params that are always null, does.
type nullParams struct{}

func (nullParams) AppendJSON(b []byte) ([]byte, error) { return append(b, "null"...), nil }

func TestNullParamsSent(t *testing.T) {
	c, p := newRaw(t, Options{})
	go func() { _ = c.Notify(ctxLimit(t), "m", nullParams{}) }()
	if got := p.recv(); got != `{"jsonrpc":"2.0","method":"m","params":null}` {
		t.Errorf("Notify(null appender) sent %s", got)
	}
}

func TestDecodeParamsByPositionNamesTheIndex(t *testing.T) {
	var xs []int64
	req := &Request{Params: json.RawMessage(`[1,"x",3]`)}
	err := req.DecodeParams(&xs)
	var rpcErr *Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != CodeInvalidParams || !strings.Contains(string(rpcErr.Data), `"field":"[1]"`) {
		t.Errorf("DecodeParams([1,\"x\",3]) = %v, want -32602 naming [1]", err)
	}
	if err := (&Request{Params: json.RawMessage(`[4,5]`)}).DecodeParams(&xs); err != nil || len(xs) != 2 || xs[1] != 5 {
		t.Errorf("DecodeParams([4,5]) = %v, %v", xs, err)
	}
	var pair [2]int64
	if err := (&Request{Params: json.RawMessage(`[4,5]`)}).DecodeParams(&pair); err != nil || pair != [2]int64{4, 5} {
		t.Errorf("DecodeParams([4,5]) into [2]int64 = %v, %v", pair, err)
	}
	for _, bad := range []string{`[4]`, `[4,5,6]`} {
		if err := (&Request{Params: json.RawMessage(bad)}).DecodeParams(&pair); !errors.Is(err, ErrInvalidParams) || !strings.Contains(err.Error(), "array of 2 items") {
			t.Errorf("DecodeParams(%s) into [2]int64 = %v, want -32602", bad, err)
		}
	}
	var raw json.RawMessage
	if err := (&Request{Params: json.RawMessage(`[4,5]`)}).DecodeParams(&raw); err != nil || string(raw) != `[4,5]` {
		t.Errorf("DecodeParams into json.RawMessage = %s, %v", raw, err)
	}
}
