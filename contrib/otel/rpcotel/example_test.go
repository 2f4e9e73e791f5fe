package rpcotel_test

import (
	"context"
	"fmt"
	"net"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/rpcgen/rpcgen/contrib/otel/rpcotel"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// Two peers, each traced by its middleware: the client's span for a call
// and the server's span for the same request share the trace, because
// the client writes the trace context into the params' "_meta" member and
// the server reads it from there.
func Example() {
	ctx := context.Background()
	// In a program: an SDK tracer provider with a real exporter, set once
	// with otel.SetTracerProvider, and otel.SetTextMapPropagator; the
	// middleware then needs no options but WithMetaMember.
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer func() { _ = tp.Shutdown(ctx) }()
	opts := []rpcotel.Option{
		rpcotel.WithTracerProvider(tp),
		rpcotel.WithPropagator(propagation.TraceContext{}),
		rpcotel.WithMetaMember("_meta"),
	}

	a, b := net.Pipe()
	server := jsonrpc.NewConn(b, jsonrpc.Options{
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			var p struct{ A, B int }
			if err := req.DecodeParams(&p); err != nil {
				return nil, err
			}
			return p.A + p.B, nil
		}),
		Middleware: []jsonrpc.Middleware{rpcotel.ServerMiddleware(opts...)},
	})
	client := jsonrpc.NewConn(a, jsonrpc.Options{
		Outgoing: []jsonrpc.OutgoingMiddleware{rpcotel.ClientMiddleware(opts...)},
	})
	var sum int
	if err := client.Call(ctx, "add", map[string]int{"a": 1, "b": 2}, &sum); err != nil {
		fmt.Println(err)
	}
	_ = client.Close()
	_ = server.Close()
	_ = client.Wait()
	_ = server.Wait()

	fmt.Println("sum:", sum)
	all := spans.GetSpans()
	for _, s := range all {
		id := ""
		for _, kv := range s.Attributes {
			if kv.Key == "rpc.jsonrpc.request_id" {
				id = kv.Value.AsString()
			}
		}
		fmt.Printf("%s span %q, request id %s, in the client's trace: %v\n",
			s.SpanKind, s.Name, id, s.SpanContext.TraceID() == all[len(all)-1].SpanContext.TraceID())
	}
	// Output:
	// sum: 3
	// server span "add", request id 1, in the client's trace: true
	// client span "add", request id 1, in the client's trace: true
}
