package streamhttp

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// The choice of a POST's answer kind (ServerOptions.AnswerWait). The
// servers here wait an hour, so that only the messages decide.

// TestServerAnswerAloneIsJSON: a request whose answer is the first
// message for it gets that answer as one application/json body, the
// handshake included, and the session keeps nothing of it.
func TestServerAnswerAloneIsJSON(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{AnswerWait: time.Hour})
	hello := ts.do(t, request{body: `{"jsonrpc":"2.0","id":0,"method":"hello","params":{"version":"v1"}}`})
	sid := hello.Header.Get(echoProto.SessionHeader)
	if ct := hello.Header.Get("Content-Type"); ct != "application/json" || sid == "" {
		t.Fatalf("hello: Content-Type %q, session %q; want application/json and a session", ct, sid)
	}
	if m := decodeBody(t, hello); fmt.Sprint(m["result"]) != "map[version:v1]" {
		t.Fatalf("hello answered %v", m)
	}
	for i, params := range []string{`{"a": [1, 2]}`, `["` + strings.Repeat("x", 5000) + `"]`} { // small, and past net/http's own length
		resp := ts.call(t, sid, i+1, "echo", params)
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "application/json" {
			t.Fatalf("echo: status %d, Content-Type %q; want 200 application/json", resp.StatusCode, ct)
		}
		if m := decodeBody(t, resp); fmt.Sprint(m["id"]) != fmt.Sprint(i+1) || m["result"] == nil {
			t.Fatalf("echo answered %v", m)
		}
	}
	s := sessionOf(ts, sid)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.streams) != 0 || len(s.store) != 0 || s.bytes != 0 || len(s.byRequest) != 0 {
		t.Fatalf("after the answers: %d streams (want none: the GET stream is made when needed), %d events, %d bytes, %d requests", len(s.streams), len(s.store), s.bytes, len(s.byRequest))
	}
}

// TestServerProgressFirstStartsEventStream: a message related to the
// request before its answer starts the event stream: the priming event,
// the notification, then the answer.
func TestServerProgressFirstStartsEventStream(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{AnswerWait: time.Hour})
	sid := ts.hello(t)
	resp := ts.call(t, sid, 5, "flood", `{"N":1,"Size":1,"Related":true}`)
	defer resp.Body.Close()
	sse := newSSE(t, resp)
	first, err := sse.next()
	if err != nil || !strings.HasSuffix(first.id, "_0") || first.data != "" || first.retry != "1000" {
		t.Fatalf("first event %+v (%v), want a priming event with id, retry and no data", first, err)
	}
	if _, m := sse.message(t); m["method"] != "flood" {
		t.Fatalf("first message %v, want the notification", m)
	}
	if _, m := sse.message(t); m["result"] != "flooded" || fmt.Sprint(m["id"]) != "5" {
		t.Fatalf("second message %v, want the answer", m)
	}
	sse.end(t)
}

// TestServerBatchGetsEventStream: the answer to a batch goes as an event
// stream (after its priming event), as before.
func TestServerBatchGetsEventStream(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{AnswerWait: time.Hour})
	sid := ts.hello(t)
	resp := ts.do(t, request{session: sid, version: "v1", body: `[{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]},{"jsonrpc":"2.0","id":2,"method":"echo","params":[2]}]`})
	defer resp.Body.Close()
	sse := newSSE(t, resp)
	e, err := sse.next()
	if err != nil || e.data != "" || !strings.HasSuffix(e.id, "_0") {
		t.Fatalf("first event %+v (%v), want a priming event", e, err)
	}
	if e, err = sse.next(); err != nil || !strings.Contains(e.data, `"result":[1]`) || !strings.Contains(e.data, `"result":[2]`) {
		t.Fatalf("event %+v (%v), want the batch's answer", e, err)
	}
	sse.end(t)
}

// TestServerStreamOnlyClientGetsStream: a client that accepts only event
// streams gets one for an answer ready at once.
func TestServerStreamOnlyClientGetsStream(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{AnswerWait: time.Hour})
	sid := ts.hello(t)
	resp := ts.do(t, request{session: sid, version: "v1", accept: "text/event-stream", body: `{"jsonrpc":"2.0","id":3,"method":"echo","params":[3]}`})
	defer resp.Body.Close()
	sse := newSSE(t, resp)
	if _, m := sse.message(t); fmt.Sprint(m["result"]) != "[3]" {
		t.Fatalf("answer %v", m)
	}
	sse.end(t)
}

// TestServerAnswerWaitStartsStream: a request still running when
// AnswerWait passes gets its event stream, priming event first, while
// its handler still works; the answer follows on it.
func TestServerAnswerWaitStartsStream(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{AnswerWait: time.Millisecond})
	sid := ts.hello(t)
	got := ts.postWait(t, sid)
	waitFor(t, ts.started, long, "the handler to start")
	resp := waitFor(t, got, long, "the response headers while the handler waits")
	if resp == nil {
		return
	}
	defer resp.Body.Close()
	sse := newSSE(t, resp)
	if e, err := sse.next(); err != nil || e.data != "" || !strings.HasSuffix(e.id, "_0") {
		t.Fatalf("first event %+v (%v), want a priming event", e, err)
	}
	ts.release <- struct{}{}
	if _, m := sse.message(t); m["result"] != "waited" {
		t.Fatalf("answer %v", m)
	}
	sse.end(t)
}

// TestServerUndecidedCannotBeResumed: while a POST's answer kind is
// undecided, no event id of its stream exists, so a GET naming one gets
// 400 and leaves the POST its answer.
func TestServerUndecidedCannotBeResumed(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{AnswerWait: time.Hour})
	sid := ts.hello(t) // stream 1
	got := ts.postWait(t, sid)
	waitFor(t, ts.started, long, "the handler to start")
	get := ts.do(t, request{method: http.MethodGet, session: sid, version: "v1", accept: "text/event-stream",
		header: map[string]string{"Last-Event-ID": formatEventID(2, 0)}})
	get.Body.Close()
	if get.StatusCode != http.StatusBadRequest {
		t.Errorf("GET resuming the undecided stream: status %d, want 400", get.StatusCode)
	}
	ts.release <- struct{}{}
	resp := waitFor(t, got, long, "the answer")
	if resp == nil {
		return
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json", ct)
	}
	if m := decodeBody(t, resp); m["result"] != "waited" {
		t.Fatalf("answer %v", m)
	}
}

// TestServerUndecidedSessionEnd: a POST still waiting for its first
// message when its session ends gets 404, as a JSON answer would, rather
// than an empty 200.
func TestServerUndecidedSessionEnd(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{AnswerWait: time.Hour})
	sid := ts.hello(t)
	got := ts.postWait(t, sid)
	waitFor(t, ts.started, long, "the handler to start")
	del := ts.do(t, request{method: http.MethodDelete, session: sid})
	del.Body.Close()
	resp := waitFor(t, got, long, "the POST's answer")
	if resp == nil {
		return
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("POST waiting when its session ended: status %d, want 404", resp.StatusCode)
	}
}

// TestAnswerWaitDefault: a zero AnswerWait takes the default that
// runtime/README.md lists, and a negative one stays negative (off).
func TestAnswerWaitDefault(t *testing.T) {
	if got := (ServerOptions{}).withDefaults().AnswerWait; got != DefaultAnswerWait || DefaultAnswerWait != 5*time.Millisecond {
		t.Errorf("default AnswerWait %v (DefaultAnswerWait %v), want 5ms", got, DefaultAnswerWait)
	}
	if got := (ServerOptions{AnswerWait: -1}).withDefaults().AnswerWait; got >= 0 {
		t.Errorf("AnswerWait -1 became %v", got)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if row := "| 5 ms | `ServerOptions.AnswerWait` |"; !strings.Contains(string(readme), row) {
		t.Errorf("runtime/README.md does not document %q", row)
	}
}
