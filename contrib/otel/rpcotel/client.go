package rpcotel

import (
	"context"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/semconv/v1.38.0/rpcconv"
	"go.opentelemetry.io/otel/trace"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// ClientMiddleware returns outgoing middleware for the side that calls:
// each call and notification sent gets a span of kind client, named after
// its method, with the id the request goes out with, and the time until
// its answer (or failure) goes into the histogram rpc.client.duration
// (milliseconds); a notification's ends once it is written. With
// [WithMetaMember], the trace context of that span is written into the
// params' member of that name: Outgoing.Params is replaced with a value
// that encodes as the params with that member merged in, which is why
// this middleware belongs last in [jsonrpc.Options.Outgoing], after any
// that looks at the params.
//
// An error answer from the peer (a *jsonrpc.Error, found with errors.As)
// sets rpc.jsonrpc.error_code and rpc.jsonrpc.error_message and the span's
// status Error; a call that fails otherwise is marked failed with
// error.type "canceled", "timeout", "closed" or "_OTHER".
func ClientMiddleware(opts ...Option) jsonrpc.OutgoingMiddleware {
	c := newConfig(opts)
	tracer := c.tracer()
	duration, err := rpcconv.NewClientDuration(c.meter())
	if err != nil {
		otel.Handle(err) // duration is then a no-op histogram
	}
	return func(next jsonrpc.SendFunc) jsonrpc.SendFunc {
		return func(ctx context.Context, out *jsonrpc.Outgoing) (err error) {
			ctx, span := tracer.Start(ctx, out.Method,
				trace.WithSpanKind(trace.SpanKindClient),
				trace.WithAttributes(spanAttrs(out.Method, out.ID)...))
			start := time.Now()
			ended := false
			defer func() {
				if !ended { // next panicked
					span.End()
				}
			}()
			if c.metaMember != "" {
				out.Params = inject(ctx, c.propagator, out.Params, c.metaMember)
			}
			err = next(ctx, out)
			attrs := outcomeOf(err).record(span, err, out.Method)
			duration.Inst().Record(ctx, milliseconds(time.Since(start)), metric.WithAttributes(attrs...))
			span.End()
			ended = true
			return err
		}
	}
}
