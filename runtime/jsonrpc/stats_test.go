package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"expvar"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// checkStats fails t for each field of got that differs from want, by name.
func checkStats(t *testing.T, who string, got, want Stats) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	var gm, wm map[string]any
	json.Unmarshal(g, &gm)
	json.Unmarshal(w, &wm)
	for k, wv := range wm {
		if fmt.Sprint(gm[k]) != fmt.Sprint(wv) {
			t.Errorf("%s: %s = %v, want %v", who, k, gm[k], wv)
		}
	}
}

func TestStatsErrorCodeCountedOnBothSides(t *testing.T) {
	client, server := pair(t, Options{}, Options{})
	err := client.Call(ctxLimit(t), "nope", nil, nil)
	var rpcErr *Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != CodeMethodNotFound {
		t.Fatalf("call of an unknown method returned %v, want -32601", err)
	}
	cs, ss := client.Stats(), server.Stats()
	checkStats(t, "client", cs, Stats{
		Connections:    1,
		ErrorsReceived: map[int64]int64{CodeMethodNotFound: 1},
		MessagesIn:     1, MessagesOut: 1,
		BytesIn: ss.BytesOut, BytesOut: ss.BytesIn,
	})
	checkStats(t, "server", ss, Stats{
		Connections:     1,
		RequestsHandled: 1,
		ErrorsSent:      map[int64]int64{CodeMethodNotFound: 1},
		MessagesIn:      1, MessagesOut: 1,
		BytesIn: cs.BytesOut, BytesOut: cs.BytesIn,
	})
	if cs.BytesOut == 0 || cs.BytesIn == 0 {
		t.Errorf("client counted %d bytes out and %d in, want both above zero", cs.BytesOut, cs.BytesIn)
	}
}

func TestStatsBytesAreTheMessagesSizes(t *testing.T) {
	for _, f := range []framing.Framing{framing.NDJSON, framing.ContentLength} {
		t.Run(f.Name(), func(t *testing.T) {
			// The request waits for the notification to be handled.
			c, p := newRaw(t, Options{Framing: f, Handler: HandlerFunc(addHandler), OrderRequestsAfterNotifications: true})
			req := `{"jsonrpc":"2.0","id":1,"method":"add","params":{"a":1,"b":2}}`
			note := `{"jsonrpc":"2.0","method":"tick"}`
			p.send(note)
			p.send(req)
			reply := p.recv()
			checkStats(t, "conn", c.Stats(), Stats{
				Connections:          1,
				RequestsHandled:      1,
				NotificationsHandled: 1,
				BytesIn:              int64(len(note) + len(req)),
				BytesOut:             int64(len(reply)),
				MessagesIn:           2,
				MessagesOut:          1,
				ErrorsSent:           nil,
			})
		})
	}
}

func TestStatsBatchIsOneMessage(t *testing.T) {
	c, p := newRaw(t, Options{Handler: mux{"add": addHandler}})
	batch := `[{"jsonrpc":"2.0","id":1,"method":"add","params":{"a":1,"b":2}},{"jsonrpc":"2.0","id":2,"method":"nope"}]`
	p.send(batch)
	reply := p.recv()
	checkStats(t, "conn", c.Stats(), Stats{
		Connections:     1,
		RequestsHandled: 2,
		ErrorsSent:      map[int64]int64{CodeMethodNotFound: 1},
		BytesIn:         int64(len(batch)), BytesOut: int64(len(reply)),
		MessagesIn: 1, MessagesOut: 1,
	})
}

func TestStatsInvalidInputCountsErrorsSent(t *testing.T) {
	c, p := newRaw(t, Options{})
	bad, invalid := `{not json`, `{"jsonrpc":"2.0","id":1}`
	p.send(bad)
	r1 := p.recv()
	p.send(invalid)
	r2 := p.recv()
	checkStats(t, "conn", c.Stats(), Stats{
		Connections: 1,
		ErrorsSent:  map[int64]int64{CodeParseError: 1, CodeInvalidRequest: 1},
		BytesIn:     int64(len(bad) + len(invalid)), BytesOut: int64(len(r1) + len(r2)),
		MessagesIn: 2, MessagesOut: 2,
	})
}

func TestStatsCancellationSentAndReceived(t *testing.T) {
	started, cancelled := make(chan struct{}, 1), make(chan error, 1)
	h := mux{"slow": blockUntilCancelled(started, cancelled)}
	client, server := pair(t, Options{Cancellation: CancelLSP}, Options{Cancellation: CancelLSP, Handler: h})
	ctx, cancel := context.WithCancel(ctxLimit(t))
	errc := make(chan error, 1)
	go func() { errc <- client.Call(ctx, "slow", nil, nil) }()
	<-started
	if s := client.Stats(); s.CallsInFlight != 1 {
		t.Errorf("client: calls_in_flight = %d while the call waits, want 1", s.CallsInFlight)
	}
	if s := server.Stats(); s.RequestsInFlight != 1 {
		t.Errorf("server: requests_in_flight = %d while the handler runs, want 1", s.RequestsInFlight)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call returned %v", err)
	}
	<-cancelled // the server read the cancellation (counted before it cancels)
	if got := client.Stats().CancelsSent; got != 1 {
		t.Errorf("client: cancels_sent = %d, want 1", got)
	}
	if got := server.Stats().CancelsReceived; got != 1 {
		t.Errorf("server: cancels_received = %d, want 1", got)
	}
	if got := client.Stats().CallsInFlight; got != 0 {
		t.Errorf("client: calls_in_flight = %d after the cancelled call returned, want 0", got)
	}
}

func TestStatsTimeout(t *testing.T) {
	release := make(chan struct{})
	h := mux{"slow": func(ctx context.Context, _ *Request) (any, error) {
		<-release
		return nil, nil
	}}
	defer close(release)
	client, _ := pair(t, Options{Timeout: func(string) Timeout { return Timeout{After: time.Millisecond} }}, Options{Handler: h})
	var te *TimeoutError
	if err := client.Call(context.Background(), "slow", nil, nil); !errors.As(err, &te) {
		t.Fatalf("call returned %v, want a *TimeoutError", err)
	}
	s := client.Stats()
	if s.Timeouts != 1 || s.CancelsSent != 0 || s.CallsInFlight != 0 {
		t.Errorf("client: timeouts %d, cancels_sent %d, calls_in_flight %d; want 1, 0, 0", s.Timeouts, s.CancelsSent, s.CallsInFlight)
	}
}

// gatedStream is a stream whose writes wait, once blocked is called, until
// open is called, reporting the first write that waits on entered.
type gatedStream struct {
	net.Conn
	mu      sync.Mutex
	gate    chan struct{} // nil: writes go through
	entered chan struct{}
}

func (g *gatedStream) block() {
	g.mu.Lock()
	g.gate, g.entered = make(chan struct{}), make(chan struct{}, 1)
	g.mu.Unlock()
}

func (g *gatedStream) open() {
	g.mu.Lock()
	if g.gate != nil {
		close(g.gate)
		g.gate = nil
	}
	g.mu.Unlock()
}

func (g *gatedStream) Write(b []byte) (int, error) {
	g.mu.Lock()
	gate, entered := g.gate, g.entered
	g.mu.Unlock()
	if gate != nil {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-gate
	}
	return g.Conn.Write(b)
}

func TestStatsQueueGaugesReturnToZero(t *testing.T) {
	s1, s2 := net.Pipe()
	gated := &gatedStream{Conn: s1}
	release, last, held := make(chan struct{}), make(chan struct{}), make(chan struct{}, 4)
	h := mux{
		"hold": func(ctx context.Context, _ *Request) (any, error) { held <- struct{}{}; <-release; return nil, nil },
		"ping": func(context.Context, *Request) (any, error) { return "pong", nil },
		"tick": func(context.Context, *Request) (any, error) { return nil, nil },
		"last": func(context.Context, *Request) (any, error) { close(last); return nil, nil },
	}
	server := NewConn(s2, Options{Handler: h})
	client := NewConn(gated, Options{})
	t.Cleanup(func() { gated.open(); client.Close(); server.Close() })
	ctx := ctxLimit(t)

	// Incoming: the first notification holds the only notification
	// worker; the answer to the request sent after the next three means
	// the server has queued them.
	for range 4 {
		if err := client.Notify(ctx, "hold", nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := client.Call(ctx, "ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	<-held // the worker has taken the first notification
	if got := server.Stats().QueuedIncoming; got != 3 {
		t.Errorf("server: queued_incoming = %d with three notifications waiting, want 3", got)
	}
	close(release)

	// Outgoing: the write loop waits in a write; two more messages queue.
	gated.block()
	if err := client.Notify(ctx, "tick", nil); err != nil {
		t.Fatal(err)
	}
	<-gated.entered
	for range 2 {
		if err := client.Notify(ctx, "tick", nil); err != nil {
			t.Fatal(err)
		}
	}
	if got := client.Stats().QueuedOutgoing; got != 2 {
		t.Errorf("client: queued_outgoing = %d with two messages behind a blocked write, want 2", got)
	}
	gated.open()

	// When the last notification's handler runs, everything before it
	// has been read, taken from the queues and answered.
	if err := client.Notify(ctx, "last", nil); err != nil {
		t.Fatal(err)
	}
	<-last
	cs, ss := client.Stats(), server.Stats()
	for name, v := range map[string]int64{
		"client queued_outgoing": cs.QueuedOutgoing, "client calls_in_flight": cs.CallsInFlight,
		"server queued_incoming": ss.QueuedIncoming, "server requests_in_flight": ss.RequestsInFlight,
		"server queued_outgoing": ss.QueuedOutgoing,
	} {
		if v != 0 {
			t.Errorf("%s = %d after the last message, want 0", name, v)
		}
	}
	if cs.MessagesOut != 9 || ss.MessagesIn != 9 || ss.RequestsHandled != 1 || ss.NotificationsHandled < 7 {
		t.Errorf("messages out %d, in %d, requests handled %d, notifications handled %d; want 9, 9, 1, at least 7",
			cs.MessagesOut, ss.MessagesIn, ss.RequestsHandled, ss.NotificationsHandled)
	}
}

func TestMetricsSharedByConnections(t *testing.T) {
	m := new(Metrics)
	h := mux{"add": addHandler}
	c1, s1 := pair(t, Options{}, Options{Handler: h, Metrics: m})
	c2, s2 := pair(t, Options{}, Options{Handler: h, Metrics: m})
	ctx := ctxLimit(t)
	for _, c := range []*Conn{c1, c2, c2} {
		if err := c.Call(ctx, "add", addParams{A: 1, B: 2}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := c1.Call(ctx, "nope", nil, nil); err == nil {
		t.Fatal("call of an unknown method succeeded")
	}
	got := m.Snapshot()
	one, two := s1.Stats(), s2.Stats()
	checkStats(t, "metrics", got, Stats{
		Connections:     2,
		RequestsHandled: 4,
		ErrorsSent:      map[int64]int64{CodeMethodNotFound: 1},
		MessagesIn:      4, MessagesOut: 4,
		BytesIn: one.BytesIn + two.BytesIn, BytesOut: one.BytesOut + two.BytesOut,
	})
	if one.RequestsHandled != 2 || two.RequestsHandled != 2 {
		t.Errorf("per connection: requests handled %d and %d, want 2 and 2", one.RequestsHandled, two.RequestsHandled)
	}
	s1.Close()
	after := m.Snapshot()
	if after.Connections != 1 || after.RequestsHandled != 4 {
		t.Errorf("after one connection closed: connections %d, requests handled %d; want 1, 4", after.Connections, after.RequestsHandled)
	}
}

func TestMetricsExpvarJSON(t *testing.T) {
	m := new(Metrics)
	var _ expvar.Var = m
	client, _ := pair(t, Options{}, Options{Metrics: m})
	client.Call(ctxLimit(t), "nope", nil, nil)
	var got map[string]any
	if err := json.Unmarshal([]byte(m.String()), &got); err != nil {
		t.Fatalf("String() = %s, not JSON: %v", m.String(), err)
	}
	for _, k := range []string{"connections", "calls_in_flight", "requests_in_flight", "queued_incoming", "queued_outgoing",
		"requests_handled", "notifications_handled", "errors_sent", "errors_received", "timeouts",
		"cancels_sent", "cancels_received", "bytes_in", "bytes_out", "messages_in", "messages_out"} {
		if _, ok := got[k]; !ok {
			t.Errorf("expvar JSON %s has no %q", m.String(), k)
		}
	}
	if codes, _ := got["errors_sent"].(map[string]any); codes["-32601"] != 1.0 {
		t.Errorf("errors_sent = %v, want {\"-32601\": 1}", got["errors_sent"])
	}
	var zero Metrics
	if err := json.Unmarshal([]byte(zero.String()), &got); err != nil {
		t.Errorf("zero Metrics: String() = %s, not JSON: %v", zero.String(), err)
	}
}

func TestStatsErrorCodesBounded(t *testing.T) {
	var c codeCounts
	for code := range int64(MaxStatsCodes + 10) {
		c.add(code)
		c.add(code)
	}
	m, other := c.snapshot()
	if len(m) != MaxStatsCodes || other != 20 || m[0] != 2 {
		t.Errorf("%d codes told apart, %d other, code 0 counted %d; want %d, 20, 2", len(m), other, m[0], MaxStatsCodes)
	}
}

func TestStatsConcurrentSnapshots(t *testing.T) {
	m := new(Metrics)
	client, server := pair(t, Options{Metrics: m}, Options{Handler: mux{"add": addHandler}, Metrics: m})
	ctx := ctxLimit(t)
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 4 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = client.Stats()
				_ = server.Stats()
				_ = m.String()
			}
		})
	}
	var callers sync.WaitGroup
	for i := range 8 {
		callers.Go(func() {
			for range 20 {
				if i%2 == 0 {
					client.Call(ctx, "add", addParams{A: 1, B: 2}, nil)
				} else {
					client.Call(ctx, fmt.Sprint("m", i), nil, nil)
				}
			}
		})
	}
	callers.Wait()
	close(stop)
	readers.Wait()
	s := m.Snapshot()
	if s.RequestsHandled != 160 || s.ErrorsSent[CodeMethodNotFound] != 80 || s.ErrorsReceived[CodeMethodNotFound] != 80 {
		t.Errorf("requests handled %d, errors sent %v, received %v; want 160, 80, 80", s.RequestsHandled, s.ErrorsSent, s.ErrorsReceived)
	}
}
