package rpcotel_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/rpcgen/rpcgen/contrib/otel/rpcotel"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// echo answers "echo" with its params, "fail" with a -32001 error, "panic"
// by panicking, and sends the params of "note" notifications on notes.
func echo(notes chan<- json.RawMessage) jsonrpc.Handler {
	return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case "echo":
			return req.Params, nil
		case "fail":
			return nil, jsonrpc.NewError(-32001, "no such account", map[string]string{"account": "42"})
		case "panic":
			panic("handler bug")
		case "note":
			notes <- req.Params
			return nil, nil
		}
		return nil, jsonrpc.MethodNotFound(req.Method)
	})
}

func TestCallSpans(t *testing.T) {
	for _, style := range []struct {
		name string
		ids  jsonrpc.IDStyle
	}{{"numbers", jsonrpc.IntegerIDs}, {"strings", jsonrpc.StringIDs}} {
		t.Run(style.name, func(t *testing.T) {
			tel := newTelemetry(t)
			ids := make(chan string, 1)
			client, _ := pair(t, tel, echo(nil), jsonrpc.Options{IDs: style.ids}, jsonrpc.Options{Middleware: []jsonrpc.Middleware{handled(ids)}})
			var got json.RawMessage
			if err := client.Call(bounded(t), "echo", map[string]int{"n": 1}, &got); err != nil {
				t.Fatal(err)
			}
			wire := receive(t, ids, "the server's span")
			if string(got) != `{"n":1,"_meta":{"traceparent":"`+traceparent(tel.span(t, "client", "echo").SpanContext)+`"}}` {
				t.Errorf("the server received params %s", got)
			}

			wantID := "1"
			if want := `1`; style.ids == jsonrpc.StringIDs {
				want = `"1"`
				if wire != want {
					t.Fatalf("wire id %s, want %s", wire, want)
				}
			} else if wire != want {
				t.Fatalf("wire id %s, want %s", wire, want)
			}
			for _, kind := range []string{"client", "server"} {
				s := tel.span(t, kind, "echo")
				a := attrs(s.Attributes)
				if a["rpc.system"].AsString() != "jsonrpc" || a["rpc.method"].AsString() != "echo" || a["rpc.jsonrpc.version"].AsString() != "2.0" {
					t.Errorf("%s span attributes %v", kind, s.Attributes)
				}
				if id := a["rpc.jsonrpc.request_id"]; id.AsString() != wantID {
					t.Errorf("%s span rpc.jsonrpc.request_id = %q, want %q (the wire id %s)", kind, id.AsString(), wantID, wire)
				}
				if _, ok := a["rpc.jsonrpc.error_code"]; ok || s.Status.Code != codes.Unset {
					t.Errorf("%s span of a success has status %v and attributes %v", kind, s.Status, s.Attributes)
				}
			}
			clientSpan, serverSpan := tel.span(t, "client", "echo"), tel.span(t, "server", "echo")
			if clientSpan.SpanKind != trace.SpanKindClient || serverSpan.SpanKind != trace.SpanKindServer {
				t.Errorf("kinds %v and %v", clientSpan.SpanKind, serverSpan.SpanKind)
			}
			if !serverSpan.Parent.IsRemote() || serverSpan.Parent.SpanID() != clientSpan.SpanContext.SpanID() ||
				serverSpan.SpanContext.TraceID() != clientSpan.SpanContext.TraceID() {
				t.Errorf("the server span's parent is %v, want the client span %v", serverSpan.Parent, clientSpan.SpanContext)
			}
		})
	}
}

// traceparent is the W3C traceparent of sc.
func traceparent(sc trace.SpanContext) string {
	return "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-" + sc.TraceFlags().String()
}

func TestErrorAnswer(t *testing.T) {
	tel := newTelemetry(t)
	ids := make(chan string, 1)
	client, _ := pair(t, tel, echo(nil), jsonrpc.Options{}, jsonrpc.Options{Middleware: []jsonrpc.Middleware{handled(ids)}})
	err := client.Call(bounded(t), "fail", nil, nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32001 {
		t.Fatalf("call error %v, want the -32001 answer", err)
	}
	receive(t, ids, "the server's span")
	for _, kind := range []string{"client", "server"} {
		s := tel.span(t, kind, "fail")
		a := attrs(s.Attributes)
		if a["rpc.jsonrpc.error_code"].AsInt64() != -32001 || a["rpc.jsonrpc.error_message"].AsString() != "no such account" {
			t.Errorf("%s span attributes %v, want error code -32001 and its message", kind, s.Attributes)
		}
		if a["error.type"].AsString() != "-32001" {
			t.Errorf("%s span error.type = %q, want -32001", kind, a["error.type"].AsString())
		}
		if s.Status.Code != codes.Error || s.Status.Description != "no such account" {
			t.Errorf("%s span status %+v, want Error with the message", kind, s.Status)
		}
	}
}

func TestPanicRecordedAsInternalError(t *testing.T) {
	tel := newTelemetry(t)
	client, _ := pair(t, tel, echo(nil), jsonrpc.Options{}, jsonrpc.Options{})
	if err := client.Call(bounded(t), "panic", nil, nil); !errors.Is(err, jsonrpc.ErrInternal) {
		t.Fatalf("call error %v, want -32603", err)
	}
	// The server span ended before the answer was written: the client has
	// its answer, so both spans are there.
	for _, kind := range []string{"client", "server"} {
		s := tel.span(t, kind, "panic")
		if a := attrs(s.Attributes); a["rpc.jsonrpc.error_code"].AsInt64() != jsonrpc.CodeInternalError || s.Status.Code != codes.Error {
			t.Errorf("%s span %v %v, want -32603 and status Error", kind, s.Status, s.Attributes)
		}
	}
}

func TestNotificationSpans(t *testing.T) {
	tel := newTelemetry(t)
	notes := make(chan json.RawMessage, 1)
	done := make(chan string, 1)
	client, _ := pair(t, tel, echo(notes), jsonrpc.Options{}, jsonrpc.Options{Middleware: []jsonrpc.Middleware{handled(done)}})
	if err := client.Notify(bounded(t), "note", map[string]any{"_meta": map[string]any{"k": "v"}, "text": "hi"}); err != nil {
		t.Fatal(err)
	}
	params := receive(t, notes, "the notification")
	receive(t, done, "the server's span")
	clientSpan, serverSpan := tel.span(t, "client", "note"), tel.span(t, "server", "note")
	if want := `{"_meta":{"k":"v","traceparent":"` + traceparent(clientSpan.SpanContext) + `"},"text":"hi"}`; string(params) != want {
		t.Errorf("the server received params\n%s, want\n%s", params, want)
	}
	if clientSpan.SpanKind != trace.SpanKindClient || serverSpan.SpanKind != trace.SpanKindServer {
		t.Errorf("kinds %v and %v", clientSpan.SpanKind, serverSpan.SpanKind)
	}
	if _, ok := attrs(clientSpan.Attributes)["rpc.jsonrpc.request_id"]; ok {
		t.Errorf("the client span of a notification has an id: %v", clientSpan.Attributes)
	}
	if _, ok := attrs(serverSpan.Attributes)["rpc.jsonrpc.request_id"]; ok {
		t.Errorf("the server span of a notification has an id: %v", serverSpan.Attributes)
	}
	if serverSpan.Parent.SpanID() != clientSpan.SpanContext.SpanID() {
		t.Errorf("the server span's parent is %v, want the client span %v", serverSpan.Parent, clientSpan.SpanContext)
	}
}

func TestDurations(t *testing.T) {
	tel := newTelemetry(t)
	ids := make(chan string, 4)
	client, _ := pair(t, tel, echo(nil), jsonrpc.Options{}, jsonrpc.Options{Middleware: []jsonrpc.Middleware{handled(ids)}})
	ctx := bounded(t)
	for _, method := range []string{"echo", "echo", "fail", "made/up"} {
		_ = client.Call(ctx, method, nil, nil)
		receive(t, ids, "the server's span of "+method)
	}
	type point struct {
		method, errType string
		code            int64
	}
	for _, tc := range []struct {
		metric string
		want   map[point]uint64
	}{
		{"rpc.client.duration", map[point]uint64{{"echo", "", 0}: 2, {"fail", "-32001", -32001}: 1, {"made/up", "-32601", -32601}: 1}},
		// The server does not know made/up: a name the peer made up is no
		// time series of its own.
		{"rpc.server.duration", map[point]uint64{{"echo", "", 0}: 2, {"fail", "-32001", -32001}: 1, {"_OTHER", "-32601", -32601}: 1}},
	} {
		unit, points := tel.histogram(t, tc.metric)
		if unit != "ms" {
			t.Errorf("%s unit %q, want ms", tc.metric, unit)
		}
		got := map[point]uint64{}
		for _, p := range points {
			a := attrs(p.Attributes.ToSlice())
			if a["rpc.system"].AsString() != "jsonrpc" {
				t.Errorf("%s point without rpc.system jsonrpc: %v", tc.metric, p.Attributes.ToSlice())
			}
			if _, ok := a["rpc.jsonrpc.request_id"]; ok {
				t.Errorf("%s point has a request id: %v", tc.metric, p.Attributes.ToSlice())
			}
			got[point{a["rpc.method"].AsString(), a["error.type"].AsString(), a["rpc.jsonrpc.error_code"].AsInt64()}] += p.Count
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s points %v, want %v", tc.metric, got, tc.want)
		}
		for p, n := range tc.want {
			if got[p] != n {
				t.Errorf("%s %+v counted %d, want %d (all: %v)", tc.metric, p, got[p], n, got)
			}
		}
	}
}

func TestCancelledCall(t *testing.T) {
	tel := newTelemetry(t)
	started := make(chan struct{})
	block := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		close(started)
		<-ctx.Done() // the connection's end
		return nil, ctx.Err()
	})
	client, _ := pair(t, tel, block, jsonrpc.Options{}, jsonrpc.Options{})
	ctx, cancel := context.WithCancel(bounded(t))
	errc := make(chan error, 1)
	go func() { errc <- client.Call(ctx, "block", nil, nil) }()
	receive(t, started, "the handler's start")
	cancel()
	if err := receive(t, errc, "the call's return"); !errors.Is(err, context.Canceled) {
		t.Fatalf("call error %v, want context.Canceled", err)
	}
	s := tel.span(t, "client", "block")
	if a := attrs(s.Attributes); a["error.type"].AsString() != "canceled" || s.Status.Code != codes.Error {
		t.Errorf("client span %v %v, want status Error and error.type canceled", s.Status, s.Attributes)
	}
	if _, ok := attrs(s.Attributes)["rpc.jsonrpc.error_code"]; ok {
		t.Errorf("a cancelled call has an error code: %v", s.Attributes)
	}
}

// A peer's _meta that is huge, malformed or of the wrong type does not
// fail the request: the trace is just not continued.
func TestHostileMeta(t *testing.T) {
	const valid = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	tel := newTelemetry(t)
	ids := make(chan string, 1)
	a, b := net.Pipe()
	server := jsonrpc.NewConn(b, jsonrpc.Options{
		Handler:    echo(nil),
		Middleware: []jsonrpc.Middleware{handled(ids), rpcotel.ServerMiddleware(tel.options()...)},
	})
	client := jsonrpc.NewConn(a, jsonrpc.Options{}) // sends what it is given
	t.Cleanup(func() {
		_ = client.Close()
		_ = server.Close()
		_ = client.Wait()
		_ = server.Wait()
	})
	for _, params := range []string{
		`{"_meta":{"traceparent":"` + valid + `","pad":"` + strings.Repeat("x", 100<<10) + `"}}`,
		`{"_meta":{"traceparent":"` + strings.Repeat("0", 200<<10) + `"}}`,
		`{"_meta":{"traceparent":"00-not-a-trace"}}`,
		`{"_meta":{"traceparent":["` + valid + `"]}}`,
		`{"_meta":"` + valid + `"}`,
		`{"_meta":` + strings.Repeat("[", 50) + strings.Repeat("]", 50) + `}`,
		`[{"_meta":{"traceparent":"` + valid + `"}}]`,
	} {
		tel.spans.Reset()
		var got json.RawMessage
		if err := client.Call(bounded(t), "echo", json.RawMessage(params), &got); err != nil {
			t.Fatalf("params %.80s…: %v", params, err)
		}
		if len(got) != len(params) {
			t.Errorf("params %.80s… came back as %.80s…", params, got)
		}
		receive(t, ids, "the server's span")
		if s := tel.span(t, "server", "echo"); s.Parent.IsValid() {
			t.Errorf("params %.80s… continued the trace %v", params, s.Parent)
		}
	}
}
