package rpcotel

import (
	"context"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/semconv/v1.38.0/rpcconv"
	"go.opentelemetry.io/otel/trace"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// ServerMiddleware returns middleware for the side that answers: each
// incoming request and notification gets a span of kind server, named
// after its method, and its handling time goes into the histogram
// rpc.server.duration (milliseconds). With [WithMetaMember], the span
// continues the trace whose context the params carry in that member.
//
// A handler's *jsonrpc.Error (found with errors.As) is the error answer:
// its code and message become rpc.jsonrpc.error_code and
// rpc.jsonrpc.error_message, and the span's status Error. Any other
// error also marks the span failed, with error.type "canceled",
// "timeout", "closed" or "_OTHER"; a panic is recorded as the -32603
// answer the runtime sends for it, and goes on up.
//
// Names the peer chose (methods, ids) are shortened with
// [jsonrpc.Truncate]; the duration of a request answered with -32601
// Method not found is recorded under the method "_OTHER".
func ServerMiddleware(opts ...Option) jsonrpc.Middleware {
	c := newConfig(opts)
	tracer := c.tracer()
	duration, err := rpcconv.NewServerDuration(c.meter())
	if err != nil {
		otel.Handle(err) // duration is then a no-op histogram
	}
	return func(next jsonrpc.Handler) jsonrpc.Handler {
		return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (result any, err error) {
			if c.metaMember != "" {
				ctx = extract(ctx, c.propagator, req.Params, c.metaMember)
			}
			method := jsonrpc.Truncate(req.Method)
			ctx, span := tracer.Start(ctx, method,
				trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(spanAttrs(method, req.ID)...))
			start := time.Now()
			end := func(err error) {
				o := outcomeOf(err)
				attrs := o.record(span, err, method)
				if o.answer != nil && o.answer.Code == jsonrpc.CodeMethodNotFound {
					attrs[0] = attribute.String(string(attrs[0].Key), otherMethod)
				}
				duration.Inst().Record(ctx, milliseconds(time.Since(start)), metric.WithAttributes(attrs...))
				span.End()
			}
			defer func() {
				if r := recover(); r != nil {
					end(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error"})
					panic(r)
				}
			}()
			result, err = next.Handle(ctx, req)
			end(err)
			return result, err
		})
	}
}

// milliseconds is d in (fractional) milliseconds, the unit of the RPC
// duration histograms.
func milliseconds(d time.Duration) float64 {
	return float64(d) / float64(time.Millisecond)
}
