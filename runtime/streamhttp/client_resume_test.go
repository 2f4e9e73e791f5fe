package streamhttp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// TestClientSSERetry is the conformance suite's sse-retry scenario: the
// GET stream opens with a priming event and stays open; a tools/call is
// answered by a stream holding only a priming event (id, retry 500) that
// the server closes 50 ms later; the client must reconnect by GET with
// Last-Event-ID after the server's 500 ms and read the answer there. The
// client's own ReconnectDelay is set far longer (a minute), so a client
// that ignored the server's retry would not reconnect within the test's
// bound; how late a loaded machine wakes the client is not asserted (the
// conformance suite in interop/mcpconformance times the real scenario).
func TestClientSSERetry(t *testing.T) {
	var closedAt atomic.Int64
	var pending atomic.Value // the id of the tools/call
	var events atomic.Int64
	var toolPriming atomic.Value // the id of the tools/call stream's priming event
	sid := map[string]string{"Mcp-Session-Id": "session-1"}
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		switch {
		case r.Method == http.MethodGet:
			startSSE(w, sid)
			sse(w, "id: event-"+itoa(events.Add(1))+"\nretry: 500\ndata: \n\n")
			// Only a resumed GET answers: the first GET's handler may run
			// after the tools/call was sent, and answering there would
			// spare the client the resumption this test is about.
			if id, ok := pending.Load().(string); ok && id != "" && r.Header.Get("Last-Event-ID") != "" {
				pending.Store("")
				sse(w, "event: message\nid: event-"+itoa(events.Add(1))+"\ndata: "+result([]byte(id), `{"content":[]}`)+"\n\n")
			}
			<-r.Context().Done()
		case h.Msg.Method == "initialize":
			writeJSON(w, sid, result(h.Msg.ID, `{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},"serverInfo":{"name":"t","version":"1"}}`))
		case h.Msg.Method == "tools/call":
			pending.Store(string(h.Msg.ID))
			startSSE(w, sid)
			id := "event-" + itoa(events.Add(1))
			toolPriming.Store(id)
			sse(w, "id: "+id+"\nretry: 500\ndata: \n\n")
			time.Sleep(50 * time.Millisecond) // the scenario's timing, on the server's side
			closedAt.Store(time.Now().UnixNano())
		case h.Msg.isNotification():
			w.WriteHeader(http.StatusAccepted)
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusMethodNotAllowed)
		default:
			writeJSON(w, sid, result(h.Msg.ID, `{}`))
		}
	})
	c, _ := connect(t, ts, ClientOptions{ReconnectDelay: time.Minute, MaxReconnectDelay: time.Minute}, nil)
	first := ts.nextOf(t, http.MethodGet)
	if first.Header.Get("Last-Event-ID") != "" {
		t.Errorf("the first GET carries Last-Event-ID %q", first.Header.Get("Last-Event-ID"))
	}
	out := callAsync(c, "tools/call", map[string]any{"name": "test_reconnection"})
	resumed := ts.nextOf(t, http.MethodGet)
	delay := time.Duration(resumed.At.UnixNano() - closedAt.Load())
	t.Logf("reconnected %v after the stream closed", delay)
	if delay < 450*time.Millisecond {
		t.Errorf("reconnected %v after the stream closed; want the server's retry of 500ms (-50)", delay)
	}
	if got, want := resumed.Header.Get("Last-Event-ID"), toolPriming.Load(); got != want {
		t.Errorf("Last-Event-ID = %q, want %q (the tools/call stream's priming event)", got, want)
	}
	if resumed.Header.Get("Mcp-Session-Id") != "session-1" || resumed.Header.Get("MCP-Protocol-Version") != "2025-03-26" {
		t.Errorf("the resumed GET lacks the session headers: %v", resumed.Header)
	}
	got := within(t, out, 10*time.Second, "the answer on the resumed stream")
	if got.err != nil || string(got.res) != `{"content":[]}` {
		t.Errorf("tools/call = %s, %v", got.res, got.err)
	}
}

// itoa formats n.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestClientNoResumeAfterAnswer: a POST's stream that has delivered its
// answer is left (the client closes it) and never resumed, even with a
// retry of 0.
func TestClientNoResumeAfterAnswer(t *testing.T) {
	left := make(chan struct{})
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		switch {
		case r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "":
			t.Errorf("resumed a stream after its answer (Last-Event-ID %q)", r.Header.Get("Last-Event-ID"))
			w.WriteHeader(http.StatusMethodNotAllowed)
		case h.Msg.Method == "work":
			startSSE(w, nil)
			sse(w, "id: 1\nretry: 0\ndata:\n\nid: 2\ndata: "+result(h.Msg.ID, "true")+"\n\n")
			<-r.Context().Done() // the client leaves once it has the answer
			close(left)
		default:
			mcpBasics(w, r, h)
		}
	})
	c, s := connect(t, ts, ClientOptions{}, nil)
	out := within(t, callAsync(c, "work", nil), 10*time.Second, "the answer")
	if out.err != nil {
		t.Fatal(out.err)
	}
	within(t, left, 10*time.Second, "the client leaving the answered stream")
	if err := s.Close(); err != nil { // waits for every stream goroutine
		t.Fatal(err)
	}
}

// testClientLostStreamWithoutID: a POST's stream that ends before the
// answer, having carried no event id, cannot be resumed: the call fails at
// once with -32603.
func testClientLostStreamWithoutID(t *testing.T) {
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		if h.Msg.Method == "work" {
			startSSE(w, nil)
			sse(w, ": nothing here\n\n")
			return
		}
		mcpBasics(w, r, h)
	})
	c, _ := connect(t, ts, ClientOptions{}, nil)
	out := within(t, callAsync(c, "work", nil), 10*time.Second, "the failed call")
	var je *jsonrpc.Error
	if !errors.As(out.err, &je) || je.Code != CodeHTTPFailure || !strings.Contains(je.Message, "no event id") {
		t.Fatalf("call error = %v", out.err)
	}
}

// testClientResumeGivesUp: when every resumption attempt fails, the call
// fails with -32603 after MaxReconnects attempts, waiting the growing
// ReconnectDelay between them.
func testClientResumeGivesUp(t *testing.T) {
	var attempts atomic.Int64
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		switch {
		case r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") == "e1":
			attempts.Add(1)
			http.Error(w, "try later", http.StatusServiceUnavailable)
		case h.Msg.Method == "work":
			startSSE(w, nil)
			sse(w, "id: e1\ndata:\n\n")
		default:
			mcpBasics(w, r, h)
		}
	})
	c, _ := connect(t, ts, ClientOptions{MaxReconnects: 3, ReconnectDelay: time.Millisecond}, nil)
	out := within(t, callAsync(c, "work", nil), 10*time.Second, "the failed call")
	var je *jsonrpc.Error
	if !errors.As(out.err, &je) || je.Code != CodeHTTPFailure || !strings.Contains(je.Message, "gave up") {
		t.Fatalf("call error = %v", out.err)
	}
	if n := attempts.Load(); n != 3 {
		t.Errorf("%d attempts, want 3", n)
	}
}

// TestClientResumeUntilAnswer: a stream resumed on GET that drops again
// before the answer is resumed again, from the last id seen on any of its
// connections, until the answer comes.
func TestClientResumeUntilAnswer(t *testing.T) {
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		switch {
		case r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") == "a":
			startSSE(w, nil)
			sse(w, "retry: 1\nid: b\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"note\"}\n\n")
		case r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") == "b":
			startSSE(w, nil)
			sse(w, "id: c\ndata: "+result([]byte("2"), `"done"`)+"\n\n")
			<-r.Context().Done()
		case h.Msg.Method == "work":
			startSSE(w, nil)
			sse(w, "id: a\nretry: 1\ndata:\n\n")
		default:
			mcpBasics(w, r, h)
		}
	})
	notes := make(chan struct{}, 1)
	c, _ := connect(t, ts, ClientOptions{}, jsonrpc.HandlerFunc(func(context.Context, *jsonrpc.Request) (any, error) {
		notes <- struct{}{}
		return nil, nil
	}))
	out := within(t, callAsync(c, "work", nil), 10*time.Second, "the answer")
	if out.err != nil || string(out.res) != `"done"` {
		t.Fatalf("work = %s, %v", out.res, out.err)
	}
	within(t, notes, 10*time.Second, "the notification on the first resumed stream")
}

// TestClientGETReconnects: the GET stream, dropped by the server, is
// reopened after its retry delay with Last-Event-ID, and messages keep
// coming on it.
func TestClientGETReconnects(t *testing.T) {
	var gets atomic.Int64
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		switch {
		case r.Method == http.MethodGet && gets.Add(1) == 1:
			startSSE(w, nil)
			sse(w, "id: g1\nretry: 5\ndata:\n\n") // then drop
		case r.Method == http.MethodGet:
			startSSE(w, nil)
			sse(w, "id: g2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"hello\"}\n\n")
			<-r.Context().Done()
		default:
			mcpBasics(w, r, h)
		}
	})
	hello := make(chan struct{}, 1)
	connect(t, ts, ClientOptions{}, jsonrpc.HandlerFunc(func(context.Context, *jsonrpc.Request) (any, error) {
		hello <- struct{}{}
		return nil, nil
	}))
	ts.nextOf(t, http.MethodGet)
	if got := ts.nextOf(t, http.MethodGet).Header.Get("Last-Event-ID"); got != "g1" {
		t.Errorf("reconnecting GET: Last-Event-ID = %q, want g1", got)
	}
	within(t, hello, 10*time.Second, "the notification on the reopened GET stream")
}

// TestClientGET405StopsTrying: a 405 to the GET means the server offers no
// such stream: the client does not ask again.
func TestClientGET405StopsTrying(t *testing.T) {
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		if !mcpBasics(w, r, h) {
			writeJSON(w, nil, result(h.Msg.ID, "1"))
		}
	})
	c, s := connect(t, ts, ClientOptions{ReconnectDelay: time.Millisecond}, nil)
	ts.nextOf(t, http.MethodGet)
	for range 3 { // more notifications, and calls: still one GET
		if err := c.Notify(context.Background(), "n", nil); err != nil {
			t.Fatal(err)
		}
		if err := c.Call(context.Background(), "x", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case h := <-ts.hits:
			if h.Method == http.MethodGet {
				t.Fatal("a second GET after 405")
			}
			continue
		default:
		}
		break
	}
}

// testClientMessageLimit: a JSON answer or an event past MaxMessageBytes
// fails the call waiting for it with -32603, without being read whole.
func testClientMessageLimit(t *testing.T) {
	big := `"` + strings.Repeat("x", 2000) + `"`
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		switch h.Msg.Method {
		case "json":
			writeJSON(w, nil, result(h.Msg.ID, big))
		case "sse":
			startSSE(w, nil)
			sse(w, "id: 1\ndata: "+result(h.Msg.ID, big)+"\n\n")
		case "lines":
			startSSE(w, nil)
			sse(w, "id: 1\n"+strings.Repeat("data: "+strings.Repeat("y", 100)+"\n", 30)+"\n")
		case "small":
			writeJSON(w, nil, result(h.Msg.ID, `"ok"`))
		default:
			mcpBasics(w, r, h)
		}
	})
	c, _ := connect(t, ts, ClientOptions{MaxMessageBytes: 1024}, nil)
	for _, m := range []string{"json", "sse", "lines"} {
		out := within(t, callAsync(c, m, nil), 10*time.Second, "the "+m+" call")
		var je *jsonrpc.Error
		if !errors.As(out.err, &je) || je.Code != CodeHTTPFailure || !strings.Contains(je.Message, "1024") {
			t.Errorf("%s: %v", m, out.err)
		}
	}
	out := within(t, callAsync(c, "small", nil), 10*time.Second, "the small call")
	if out.err != nil {
		t.Errorf("small: %v", out.err)
	}
}

// testClientDropsNonJSONEvents: an event whose data is not JSON is logged
// and dropped; the next event is read.
func testClientDropsNonJSONEvents(t *testing.T) {
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		if h.Msg.Method == "work" {
			startSSE(w, nil)
			sse(w, "data: not json\n\ndata: "+result(h.Msg.ID, "1")+"\n\n")
			return
		}
		mcpBasics(w, r, h)
	})
	logs := &logSink{}
	c, _ := connect(t, ts, ClientOptions{Logger: newTextLogger(logs)}, nil)
	if out := within(t, callAsync(c, "work", nil), 10*time.Second, "the call"); out.err != nil || string(out.res) != "1" {
		t.Fatalf("work = %s, %v", out.res, out.err)
	}
	if !strings.Contains(logs.String(), "not JSON") {
		t.Errorf("logs: %s", logs)
	}
}

// testClientCloseDuringReconnectDelay: Close does not wait for a pending
// reconnection delay.
func testClientCloseDuringReconnectDelay(t *testing.T) {
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		if h.Msg.Method == "work" {
			startSSE(w, nil)
			sse(w, "id: 1\nretry: 3600000\ndata:\n\n")
			return
		}
		mcpBasics(w, r, h)
	})
	c, s := connect(t, ts, ClientOptions{}, nil)
	out := callAsync(c, "work", nil)
	ts.nextCall(t, "work")
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	within(t, closed, 10*time.Second, "Close during an hour-long retry delay")
	if got := within(t, out, 10*time.Second, "the call's end"); got.err == nil {
		t.Error("the call succeeded")
	}
}

// testClientGETRefusedStopsTrying: a server without a GET route (a
// stateless one answering 404 or 400) is not asked again, and a 404 to a
// GET without session id does not end the stream.
func testClientGETRefusedStopsTrying(t *testing.T) {
	for _, status := range []int{http.StatusNotFound, http.StatusBadRequest} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
				switch {
				case r.Method == http.MethodGet:
					http.Error(w, "no", status)
				case h.Msg.Method == "initialize": // no session id: stateless
					writeJSON(w, nil, initResult(h.Msg.ID))
				case h.Msg.isNotification():
					w.WriteHeader(http.StatusAccepted)
				default:
					writeJSON(w, nil, result(h.Msg.ID, "1"))
				}
			})
			c, s := connect(t, ts, ClientOptions{ReconnectDelay: time.Nanosecond}, nil)
			ts.nextOf(t, http.MethodGet)
			if err := c.Call(context.Background(), "x", nil, nil); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil { // waits for the GET goroutine
				t.Fatal(err)
			}
			for {
				select {
				case h := <-ts.hits:
					if h.Method == http.MethodGet {
						t.Fatal("a second GET")
					}
					continue
				default:
				}
				break
			}
		})
	}
}

// TestReconnectDelay: the server's retry is waited exactly, however many
// attempts failed; without one the delay starts at ReconnectDelay and
// grows by half with each failed attempt, up to MaxReconnectDelay.
func TestReconnectDelay(t *testing.T) {
	s := &ClientStream{opts: ClientOptions{ReconnectDelay: time.Second, MaxReconnectDelay: 3 * time.Second}.withDefaults()}
	want := []time.Duration{time.Second, 1500 * time.Millisecond, 2250 * time.Millisecond, 3 * time.Second, 3 * time.Second}
	for failures, w := range want {
		if got := s.reconnectDelay(&eventStream{failures: failures}); got != w {
			t.Errorf("after %d failures: %v, want %v", failures, got, w)
		}
		if got := s.reconnectDelay(&eventStream{failures: failures, retry: 500 * time.Millisecond, hasRetry: true}); got != 500*time.Millisecond {
			t.Errorf("after %d failures with retry 500ms: %v", failures, got)
		}
	}
}

// TestClientAnswerOnAnotherStream: when the answer a POST's stream owes
// comes on the GET stream instead, the POST's stream is not resumed once
// it ends.
func TestClientAnswerOnAnotherStream(t *testing.T) {
	work := make(chan json.RawMessage, 1)
	endPOST := make(chan struct{})
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		switch {
		case r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "":
			t.Errorf("resumed with Last-Event-ID %q though the answer came", r.Header.Get("Last-Event-ID"))
			w.WriteHeader(http.StatusMethodNotAllowed)
		case r.Method == http.MethodGet:
			startSSE(w, nil)
			id := <-work
			sse(w, "data: "+result(id, `"via GET"`)+"\n\n")
			<-r.Context().Done()
		case h.Msg.Method == "work":
			startSSE(w, nil)
			sse(w, "id: p1\nretry: 0\ndata:\n\n")
			work <- h.Msg.ID
			<-endPOST
		default:
			mcpBasics(w, r, h)
		}
	})
	logs := make(logEvents, 100)
	c, s := connect(t, ts, ClientOptions{Logger: slog.New(logs)}, nil)
	out := within(t, callAsync(c, "work", nil), 10*time.Second, "the answer")
	if out.err != nil || string(out.res) != `"via GET"` {
		t.Fatalf("work = %s, %v", out.res, out.err)
	}
	close(endPOST)
	logs.waitFor(t, "event stream done") // the POST's stream, resumed or not
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
