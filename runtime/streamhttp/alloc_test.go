package streamhttp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// Costs per session and per POST that the MCP-over-HTTP rows of bench/
// measure.

// TestClientWaitsReuseTimers: the client's waits (for the previous POST's
// headers, for the last one at Close, before reconnecting) take a pooled
// timer instead of making one each (3 allocations). Each wait here ends at
// once: the stream has ended.
func TestClientWaitsReuseTimers(t *testing.T) {
	s, err := Dial(context.Background(), "http://127.0.0.1:1/mcp", testProto, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.cancel()
	p := &inFlight{headers: make(chan struct{})}
	s.prev = p
	n := testing.AllocsPerRun(100, func() {
		s.awaitHeaders(p, time.Hour)
		s.awaitPrevious(outgoing{})
		if s.sleep(time.Hour) {
			t.Fatal("sleep returned true after the stream ended")
		}
	})
	// Under the race detector sync.Pool drops a quarter of what it is given.
	if n >= 3 {
		t.Errorf("three waits: %v allocations, want under 3 (one timer each made 3)", n)
	}
}

// TestNewSessionAllocations: a session makes its GET stream only when a
// GET or a message outside a request needs it, so that one whose client
// opens none costs 7 allocations to make (10 with the stream made at
// once).
func TestNewSessionAllocations(t *testing.T) {
	h := NewHandler(testProto, func(*Session) {}, ServerOptions{})
	defer h.Close()
	if n := testing.AllocsPerRun(100, func() { newSession(h, "s1") }); n > 7 {
		t.Errorf("newSession: %v allocations, want at most 7", n)
	}
}

// TestGETStreamMadeWhenNeeded: a session whose client only POSTs has no
// GET stream; a message outside a request makes it, and a GET then gets
// that message.
func TestGETStreamMadeWhenNeeded(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	sid := ts.hello(t)
	resp := ts.call(t, sid, 1, "echo", `"x"`)
	resp.Body.Close()
	ts.h.mu.Lock()
	s := ts.h.sessions[sid]
	ts.h.mu.Unlock()
	s.mu.Lock()
	_, made := s.streams[0]
	s.mu.Unlock()
	if made {
		t.Fatal("the GET stream was made before anything needed it")
	}
	conn := waitFor(t, ts.conns, long, "the server's connection")
	if err := conn.Notify(context.Background(), "news", "late"); err != nil {
		t.Fatal(err)
	}
	get := ts.do(t, request{method: http.MethodGet, session: sid, accept: "text/event-stream"})
	defer get.Body.Close()
	ev, m := newSSE(t, get).message(t)
	if m["method"] != "news" || ev.id == "" {
		t.Errorf("GET stream: event %+v, message %v; want the news", ev, m)
	}
}

// TestDialAllocations: Dial makes the stream and what it needs (the
// parsed URL, channels, the awaited set, its context), and nothing for a
// logger when none is given.
func TestDialAllocations(t *testing.T) {
	n := testing.AllocsPerRun(100, func() {
		s, err := Dial(context.Background(), "http://127.0.0.1:1/mcp", testProto, ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s.cancel()
	})
	if n > 11 {
		t.Errorf("Dial: %v allocations, want at most 11", n)
	}
}

// TestInspectOutgoingInPlace: the id of a POST's one request goes in the
// room its in-flight record has for it; only a batch's further ids
// allocate.
func TestInspectOutgoingInPlace(t *testing.T) {
	var room [1]json.RawMessage
	msg := []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"x"}}`)
	if n := testing.AllocsPerRun(100, func() {
		if o := inspectOutgoing(msg, "initialize", room[:0]); len(o.requests) != 1 || string(o.requests[0]) != "12" {
			t.Fatalf("requests %q", o.requests)
		}
	}); n != 0 {
		t.Errorf("%v allocations for one request, want 0", n)
	}
	batch := []byte(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"b","method":"c"}]`)
	if o := inspectOutgoing(batch, "initialize", room[:0]); fmt.Sprintf("%s", o.requests) != `[1 "b"]` || !o.notification {
		t.Errorf("batch: %+v", o)
	}
}
