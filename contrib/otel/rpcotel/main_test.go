package rpcotel_test

import (
	"context"
	"net"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.uber.org/goleak"

	"github.com/rpcgen/rpcgen/contrib/otel/rpcotel"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// waitLimit bounds every wait so that a bug fails a test instead of
// hanging it; it is never a pass criterion.
const waitLimit = 10 * time.Second

// telemetry is an SDK tracer provider that exports each span as it ends
// into memory, and a meter provider read by hand.
type telemetry struct {
	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
	tp     *sdktrace.TracerProvider
	mp     *sdkmetric.MeterProvider
}

func newTelemetry(t *testing.T) *telemetry {
	t.Helper()
	tel := &telemetry{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	tel.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(tel.spans))
	tel.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(tel.reader))
	t.Cleanup(func() {
		_ = tel.tp.Shutdown(context.Background())
		_ = tel.mp.Shutdown(context.Background())
	})
	return tel
}

// options are the middleware options that record into tel, propagating
// W3C trace context in "_meta".
func (tel *telemetry) options(extra ...rpcotel.Option) []rpcotel.Option {
	return append([]rpcotel.Option{
		rpcotel.WithTracerProvider(tel.tp),
		rpcotel.WithMeterProvider(tel.mp),
		rpcotel.WithPropagator(propagation.TraceContext{}),
		rpcotel.WithMetaMember("_meta"),
	}, extra...)
}

// span returns the one ended span of the kind and name, failing the test
// when there is not exactly one.
func (tel *telemetry) span(t *testing.T, kind string, name string) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	for _, s := range tel.spans.GetSpans() {
		if s.SpanKind.String() == kind && s.Name == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d %s spans named %q, want 1; spans: %v", len(found), kind, name, names(tel.spans.GetSpans()))
	}
	return found[0]
}

func names(spans tracetest.SpanStubs) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.SpanKind.String()+" "+s.Name)
	}
	return out
}

// histogram returns the data points of the float64 histogram named name.
func (tel *telemetry) histogram(t *testing.T, name string) (unit string, points []metricdata.HistogramDataPoint[float64]) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := tel.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			h, ok := m.Data.(metricdata.Histogram[float64])
			if !ok {
				t.Fatalf("%s is a %T, want a float64 histogram", name, m.Data)
			}
			return m.Unit, h.DataPoints
		}
	}
	t.Fatalf("no metric %s", name)
	return "", nil
}

// attrs maps a span's or a data point's attributes by key.
func attrs(kvs []attribute.KeyValue) map[string]attribute.Value {
	m := map[string]attribute.Value{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value
	}
	return m
}

// pair connects a client and a server over net.Pipe, each traced by its
// middleware, and closes both when the test ends.
func pair(t *testing.T, tel *telemetry, h jsonrpc.Handler, clientOpts, serverOpts jsonrpc.Options) (client, server *jsonrpc.Conn) {
	t.Helper()
	a, b := net.Pipe()
	serverOpts.Handler = h
	serverOpts.Middleware = append(serverOpts.Middleware, rpcotel.ServerMiddleware(tel.options()...))
	clientOpts.Outgoing = append(clientOpts.Outgoing, rpcotel.ClientMiddleware(tel.options()...))
	server = jsonrpc.NewConn(b, serverOpts)
	client = jsonrpc.NewConn(a, clientOpts)
	t.Cleanup(func() {
		_ = client.Close()
		_ = server.Close()
		_ = client.Wait()
		_ = server.Wait()
	})
	return client, server
}

// bounded is a context that ends after waitLimit, so that a call that
// hangs fails the test.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	t.Cleanup(cancel)
	return ctx
}

// handled returns middleware, to go outside the server middleware, that
// sends each request's id (its JSON text) on ch once the inner
// middleware, and so the server span, is done with it.
func handled(ch chan<- string) jsonrpc.Middleware {
	return func(next jsonrpc.Handler) jsonrpc.Handler {
		return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			result, err := next.Handle(ctx, req)
			ch <- req.ID.String()
			return result, err
		})
	}
}

// receive returns the next value on ch, failing the test after waitLimit.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("%s did not happen within %v", what, waitLimit)
		panic("unreachable")
	}
}
