// Package rpcotel traces and measures JSON-RPC calls made and answered
// with rpcgen's runtime, with OpenTelemetry.
//
// [ServerMiddleware] is a [jsonrpc.Middleware] for the side that answers,
// [ClientMiddleware] a [jsonrpc.OutgoingMiddleware] for the side that
// calls; a connection that does both takes both. Each request and each
// notification gets a span (of kind server or client) named after its
// method, with the attributes of OpenTelemetry's semantic conventions for
// JSON-RPC as of revision 1.38.0 (rpc.system "jsonrpc", rpc.method,
// rpc.jsonrpc.version, rpc.jsonrpc.request_id, and rpc.jsonrpc.error_code
// and rpc.jsonrpc.error_message on an error answer), and its duration is
// recorded in the histograms rpc.server.duration and rpc.client.duration,
// in milliseconds.
//
// With [WithMetaMember], trace context also crosses the wire inside the
// params, in the member a protocol reserves for request metadata (MCP's
// "_meta"): the client writes the propagator's keys (W3C traceparent and
// tracestate, for instance) into it, and the server continues the trace
// from them, so that the server's span is a child of the client's.
package rpcotel

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.38.0"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the tracer and the meter this
// package uses.
const ScopeName = "github.com/rpcgen/rpcgen/contrib/otel/rpcotel"

// An Option configures [ServerMiddleware] or [ClientMiddleware].
type Option func(*config)

type config struct {
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	propagator     propagation.TextMapPropagator
	metaMember     string
}

// WithTracerProvider sets the provider of the tracer that creates spans;
// by default the global one (otel.GetTracerProvider).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tracerProvider = tp }
}

// WithMeterProvider sets the provider of the meter that records
// durations; by default the global one (otel.GetMeterProvider).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.meterProvider = mp }
}

// WithPropagator sets the propagator that writes and reads trace context
// in the member named by [WithMetaMember]; by default the global one
// (otel.GetTextMapPropagator), which propagates nothing until a program
// sets one, for instance with
// otel.SetTextMapPropagator(propagation.TraceContext{}).
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(c *config) { c.propagator = p }
}

// WithMetaMember names the member of the params that carries request
// metadata, such as MCP's "_meta": the client middleware writes trace
// context into it and the server middleware reads it from there. Off by
// default: with no member named, trace context does not cross the wire.
func WithMetaMember(name string) Option {
	return func(c *config) { c.metaMember = name }
}

// newConfig applies opts over the defaults.
func newConfig(opts []Option) *config {
	c := &config{}
	for _, opt := range opts {
		opt(c)
	}
	if c.tracerProvider == nil {
		c.tracerProvider = otel.GetTracerProvider()
	}
	if c.meterProvider == nil {
		c.meterProvider = otel.GetMeterProvider()
	}
	if c.propagator == nil {
		c.propagator = otel.GetTextMapPropagator()
	}
	return c
}

func (c *config) tracer() trace.Tracer {
	return c.tracerProvider.Tracer(ScopeName, trace.WithSchemaURL(semconv.SchemaURL))
}

func (c *config) meter() metric.Meter {
	return c.meterProvider.Meter(ScopeName, metric.WithSchemaURL(semconv.SchemaURL))
}
