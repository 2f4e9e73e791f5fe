package streamhttp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

const long = 10 * time.Second // only turns a hang into a failure

func TestServerHandshakeJSON(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	resp := ts.do(t, request{body: `{"jsonrpc":"2.0","id":0,"method":"hello","params":{"version":"v1"}}`, accept: "application/json"})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	sid := resp.Header.Get(echoProto.SessionHeader)
	if sid == "" {
		t.Fatal("no session id")
	}
	for _, c := range sid {
		if c < 0x21 || c > 0x7e {
			t.Fatalf("session id %q has a character outside visible ASCII", sid)
		}
	}
	m := decodeBody(t, resp)
	if fmt.Sprint(m["result"]) != "map[version:v1]" || fmt.Sprint(m["id"]) != "0" {
		t.Fatalf("answer %v", m)
	}
	ts.h.mu.Lock()
	s := ts.h.sessions[sid]
	ts.h.mu.Unlock()
	if s == nil || s.Version() != "v1" {
		t.Fatalf("session %v: negotiated version not recorded", s)
	}
}

func TestServerFailedHandshakeEndsSession(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	resp := ts.do(t, request{body: `{"jsonrpc":"2.0","id":0,"method":"hello","params":{"version":"bad"}}`, accept: "application/json"})
	sid := resp.Header.Get(echoProto.SessionHeader)
	if m := decodeBody(t, resp); m["error"] == nil {
		t.Fatalf("answer %v, want an error", m)
	}
	conn := waitFor(t, ts.conns, long, "a connection")
	waitFor(t, conn.Done(), long, "the connection's end")
	resp = ts.call(t, sid, 1, "echo", `"x"`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("status %d after a failed handshake, want 404", resp.StatusCode)
	}
}

func TestServerAnswerAsEventStream(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{AnswerWait: -1}) // an event stream at once
	sid := ts.hello(t)
	resp := ts.call(t, sid, 1, "echo", `{"pretty": [1, 2]}`)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get(echoProto.SessionHeader) != sid {
		t.Fatalf("status %d, session %q", resp.StatusCode, resp.Header.Get(echoProto.SessionHeader))
	}
	sse := newSSE(t, resp)
	first, err := sse.next()
	if err != nil || !strings.HasSuffix(first.id, "_0") || first.data != "" || first.retry != "1000" {
		t.Fatalf("first event %+v (%v), want a priming event with id, retry and no data", first, err)
	}
	e, m := sse.message(t)
	if e.id != strings.TrimSuffix(first.id, "0")+"1" || fmt.Sprint(m["result"]) != "map[pretty:[1 2]]" {
		t.Fatalf("event %+v", e)
	}
	sse.end(t)
	// Delivered whole, the stream's events are no longer stored.
	s := sessionOf(ts, sid)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bytes != 0 {
		t.Fatalf("%d bytes of events still stored after the answer was delivered", s.bytes)
	}
}

func TestServerPrettyBodyStaysOneLine(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	sid := ts.hello(t)
	body := "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 5,\n  \"method\": \"echo\",\n  \"params\": [\n    \"a\\nb\"\n  ]\n}\n"
	resp := ts.do(t, request{session: sid, body: body, accept: "application/json"})
	m := decodeBody(t, resp)
	if fmt.Sprint(m["result"]) != "[a\nb]" {
		t.Fatalf("answer %v", m)
	}
}

func TestServerPrettyAnswerStaysOneEvent(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{AnswerWait: -1}) // an event stream at once
	sid := ts.hello(t)
	resp := ts.call(t, sid, 1, "pretty", "")
	defer resp.Body.Close()
	if _, m := newSSE(t, resp).message(t); fmt.Sprint(m["result"]) != "map[a:[1]]" {
		t.Fatalf("answer %v", m)
	}
}

func TestServerRelatedMessagesOnPOSTStream(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	sid := ts.hello(t)
	resp := ts.call(t, sid, 7, "ask", "")
	defer resp.Body.Close()
	sse := newSSE(t, resp)
	_, m := sse.message(t)
	if m["method"] != "progress" {
		t.Fatalf("first message %v, want the progress notification", m)
	}
	_, m = sse.message(t)
	if m["method"] != "client/answer" || m["id"] == nil {
		t.Fatalf("second message %v, want the server's request", m)
	}
	answer := ts.do(t, request{session: sid, body: fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":"yes"}`, m["id"])})
	answer.Body.Close()
	if answer.StatusCode != http.StatusAccepted {
		t.Fatalf("posting a response: status %d, want 202", answer.StatusCode)
	}
	_, m = sse.message(t)
	if m["result"] != "client said yes" || fmt.Sprint(m["id"]) != "7" {
		t.Fatalf("answer %v", m)
	}
	sse.end(t)
}

func TestServerJSONAnswerSendsRelatedToGET(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	sid := ts.hello(t)
	get := ts.do(t, request{method: http.MethodGet, session: sid, accept: "text/event-stream"})
	defer get.Body.Close()
	stream := newSSE(t, get)
	answered := make(chan map[string]any, 1)
	go func() {
		resp, err := ts.try(context.Background(), request{session: sid, body: `{"jsonrpc":"2.0","id":"a","method":"ask"}`, accept: "application/json"})
		if err != nil {
			answered <- map[string]any{"err": err.Error()}
			return
		}
		answered <- decodeBody(t, resp)
	}()
	_, m := stream.message(t)
	if m["method"] != "progress" {
		t.Fatalf("GET stream: %v, want the progress notification", m)
	}
	_, m = stream.message(t)
	if m["method"] != "client/answer" {
		t.Fatalf("GET stream: %v, want the server's request", m)
	}
	ts.do(t, request{session: sid, body: fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":"no"}`, m["id"])}).Body.Close()
	if m := waitFor(t, answered, long, "the JSON answer"); m["result"] != "client said no" {
		t.Fatalf("answer %v", m)
	}
}

func TestServerGETStreamGetsUnrelatedMessages(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	sid := ts.hello(t)
	// No GET stream yet: the notification waits in the store.
	if m := decodeBody(t, ts.do(t, request{session: sid, body: `{"jsonrpc":"2.0","id":1,"method":"tell"}`, accept: "application/json"})); m["result"] != "told" {
		t.Fatalf("answer %v", m)
	}
	get := ts.do(t, request{method: http.MethodGet, session: sid, accept: "text/event-stream"})
	defer get.Body.Close()
	stream := newSSE(t, get)
	first, err := stream.next()
	if err != nil || first.id != "0_0" || first.retry == "" {
		t.Fatalf("first event %+v (%v), want a priming event", first, err)
	}
	e, m := stream.message(t)
	if m["method"] != "news" || e.id != "0_1" {
		t.Fatalf("GET stream: %+v %v", e, m)
	}

	// A second GET while the first is open conflicts.
	again := ts.do(t, request{method: http.MethodGet, session: sid, accept: "text/event-stream"})
	again.Body.Close()
	if again.StatusCode != http.StatusConflict {
		t.Fatalf("second GET: status %d, want 409", again.StatusCode)
	}
}

// TestServerCloseStreamThenResume: CloseStream ends the stream after an
// id and the retry delay, and a GET with that id resumes it; a POST whose
// answer is still undecided (an AnswerWait of an hour) starts its stream
// for it.
func TestServerCloseStreamThenResume(t *testing.T) {
	for _, wait := range []time.Duration{0, time.Hour, -1} {
		t.Run(fmt.Sprint("AnswerWait=", wait), func(t *testing.T) { testCloseStreamThenResume(t, wait) })
	}
}

func testCloseStreamThenResume(t *testing.T, wait time.Duration) {
	ts := newEchoServer(t, ServerOptions{AnswerWait: wait})
	sid := ts.hello(t)
	resp := ts.call(t, sid, 3, "poll", "")
	sse := newSSE(t, resp)
	var last sseEvent
	for {
		e, err := sse.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if e.data != "" {
			t.Fatalf("message %q before the stream closed", e.data)
		}
		last = e
	}
	resp.Body.Close()
	if last.retry != "25" || last.id == "" {
		t.Fatalf("last event %+v, want an id and retry 25", last)
	}
	get := ts.do(t, request{method: http.MethodGet, session: sid, version: "v1", accept: "text/event-stream",
		header: map[string]string{"Last-Event-ID": last.id}})
	defer get.Body.Close()
	resumed := newSSE(t, get)
	_, m := resumed.message(t)
	if fmt.Sprint(m["params"]) != "map[step:2]" {
		t.Fatalf("resumed stream: %v, want the progress notification sent after the close", m)
	}
	ts.release <- struct{}{}
	_, m = resumed.message(t)
	if m["result"] != "polled" || fmt.Sprint(m["id"]) != "3" {
		t.Fatalf("resumed stream: %v, want the answer", m)
	}
	resumed.end(t)
}

func TestServerResumeReplaysAfterDrop(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	sid := ts.hello(t)
	resp := ts.call(t, sid, 4, "ask", "")
	sse := newSSE(t, resp)
	e1, m := sse.message(t)
	if m["method"] != "progress" {
		t.Fatalf("first message %v", m)
	}
	resp.Body.Close() // the connection drops after the first message
	get := ts.do(t, request{method: http.MethodGet, session: sid, accept: "text/event-stream",
		header: map[string]string{"Last-Event-ID": e1.id}})
	defer get.Body.Close()
	resumed := newSSE(t, get)
	_, m = resumed.message(t)
	if m["method"] != "client/answer" {
		t.Fatalf("resumed stream: %v, want the server's request (replayed or new)", m)
	}
	ts.do(t, request{session: sid, body: fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":"ok"}`, m["id"])}).Body.Close()
	_, m = resumed.message(t)
	if m["result"] != "client said ok" {
		t.Fatalf("resumed stream: %v, want the answer", m)
	}
	resumed.end(t)
}

func TestServerDeleteEndsSession(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	sid := ts.hello(t)
	conn := waitFor(t, ts.conns, long, "a connection")
	del := ts.do(t, request{method: http.MethodDelete, session: sid})
	del.Body.Close()
	if del.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: status %d", del.StatusCode)
	}
	waitFor(t, conn.Done(), long, "the connection seeing EOF")
	for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		resp := ts.do(t, request{method: method, session: sid, body: `{"jsonrpc":"2.0","id":1,"method":"echo"}`})
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s after DELETE: status %d, want 404", method, resp.StatusCode)
		}
	}
}

func TestServerStatusCodes(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	sid := ts.hello(t)
	echo := `{"jsonrpc":"2.0","id":1,"method":"echo"}`
	for _, c := range []struct {
		name   string
		rq     request
		status int
		code   int // JSON-RPC error code in the body, 0: not checked
	}{
		{"notification", request{session: sid, body: `{"jsonrpc":"2.0","method":"note"}`}, 202, 0},
		{"client response", request{session: sid, body: `{"jsonrpc":"2.0","id":99,"result":1}`}, 202, 0},
		{"no session header", request{body: echo}, 400, 0},
		{"unknown session", request{session: "forged", body: echo}, 404, 0},
		{"unsupported version", request{session: sid, version: "v9", body: echo}, 400, 0},
		{"wrong content type", request{session: sid, ctype: "text/plain", body: echo}, 415, 0},
		{"no content type", request{session: sid, ctype: "-", body: echo}, 415, 0},
		{"accepts neither", request{session: sid, accept: "text/html", body: echo}, 406, 0},
		{"not JSON", request{session: sid, body: `{"jsonrpc":`}, 400, -32700},
		{"not JSON-RPC", request{session: sid, body: `42`}, 400, -32600},
		{"object id", request{session: sid, body: `{"jsonrpc":"2.0","id":{},"method":"echo"}`}, 400, -32600},
		{"empty batch", request{session: sid, body: `[]`}, 400, -32600},
		{"members in another case", request{session: sid, body: `{"jsonrpc":"2.0","ID":1,"Method":"echo"}`}, 400, -32600},
		{"id without method or result", request{session: sid, body: `{"jsonrpc":"2.0","id":1}`}, 400, -32600},
		{"PUT", request{method: http.MethodPut, session: sid}, 405, 0},
		{"GET accepts no stream", request{method: http.MethodGet, session: sid, accept: "application/json"}, 406, 0},
		{"GET without session", request{method: http.MethodGet, accept: "text/event-stream"}, 400, 0},
		{"GET malformed Last-Event-ID", request{method: http.MethodGet, session: sid, accept: "text/event-stream", header: map[string]string{"Last-Event-ID": "x"}}, 400, 0},
		{"GET unknown Last-Event-ID", request{method: http.MethodGet, session: sid, accept: "text/event-stream", header: map[string]string{"Last-Event-ID": "77_3"}}, 400, 0},
		{"DELETE without session", request{method: http.MethodDelete}, 400, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := ts.do(t, c.rq)
			defer resp.Body.Close()
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, c.status)
			}
			if c.status == 202 {
				if b, _ := io.ReadAll(resp.Body); len(b) != 0 {
					t.Fatalf("202 with a body %q", b)
				}
			}
			if c.code != 0 {
				m := decodeBody(t, resp)
				if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(c.code) {
					t.Fatalf("body %v, want error code %d", m, c.code)
				}
			}
		})
	}
}

func TestServerDuplicateRequestID(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	sid := ts.hello(t)
	first := ts.call(t, sid, 9, "wait", "")
	defer first.Body.Close()
	sse := newSSE(t, first)
	if e, err := sse.next(); err != nil || e.id == "" { // the stream is set up
		t.Fatalf("priming event %+v, %v", e, err)
	}
	dup := ts.call(t, sid, 9, "echo", "")
	m := decodeBody(t, dup)
	if dup.StatusCode != http.StatusBadRequest || fmt.Sprint(m["error"]) == "" {
		t.Fatalf("duplicate id: status %d, body %v", dup.StatusCode, m)
	}
	ts.release <- struct{}{}
	if _, m := sse.message(t); m["result"] != "waited" {
		t.Fatalf("first request's answer %v", m)
	}
}

func TestServerBatchPassesThrough(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	sid := ts.hello(t)
	resp := ts.do(t, request{session: sid, accept: "application/json",
		body: `[{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]},{"jsonrpc":"2.0","method":"note"},{"jsonrpc":"2.0","id":2,"method":"echo","params":[2]}]`})
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(b), "[") || !strings.Contains(string(b), `"id":2`) {
		t.Fatalf("batch: status %d, body %s", resp.StatusCode, b)
	}
}

func TestServerBatchWithRepeatedID(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	sid := ts.hello(t)
	resp := ts.do(t, request{session: sid, accept: "application/json",
		body: `[{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]},{"jsonrpc":"2.0","id":1,"method":"echo","params":[2]}]`})
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "-32600") {
		t.Fatalf("batch answer %s, want a -32600 for the repeated id", b)
	}
	s := sessionOf(ts, sid)
	s.mu.Lock()
	defer s.mu.Unlock()
	if awaiting := s.active - s.serving; awaiting != 0 || len(s.byRequest) != 0 {
		t.Fatalf("after the answer: %d (%d) requests awaiting answers; want none", awaiting, len(s.byRequest))
	}
}

func TestServerStateless(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{Stateless: true, AnswerWait: -1}) // an event stream at once
	resp := ts.do(t, request{body: `{"jsonrpc":"2.0","id":1,"method":"echo","params":["x"]}`})
	if resp.Header.Get(echoProto.SessionHeader) != "" {
		t.Fatal("stateless answer carries a session id")
	}
	sse := newSSE(t, resp)
	if _, m := sse.message(t); fmt.Sprint(m["result"]) != "[x]" {
		t.Fatalf("answer %v", m)
	}
	sse.end(t)
	resp.Body.Close()
	conn := waitFor(t, ts.conns, long, "the POST's connection")
	waitFor(t, conn.Done(), long, "the POST's connection ending with its answer")
	bad := ts.do(t, request{version: "v9", body: `{"jsonrpc":"2.0","id":2,"method":"echo"}`})
	bad.Body.Close()
	if bad.StatusCode != http.StatusBadRequest {
		t.Errorf("stateless POST with an unsupported version: status %d, want 400", bad.StatusCode)
	}
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		r := ts.do(t, request{method: method, accept: "text/event-stream"})
		r.Body.Close()
		if r.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s: status %d, want 405", method, r.StatusCode)
		}
	}
}

func TestServerOriginAndHost(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{AllowedOrigins: []string{"https://app.example"}})
	echo := `{"jsonrpc":"2.0","id":0,"method":"hello"}`
	for _, c := range []struct {
		header map[string]string
		status int
	}{
		{map[string]string{"Origin": "http://localhost:5173"}, 200},
		{map[string]string{"Origin": "http://127.0.0.1"}, 200},
		{map[string]string{"Origin": "https://[::1]:8443"}, 200},
		{map[string]string{"Origin": "https://app.example"}, 200},
		{map[string]string{"Origin": "https://evil.example"}, 403},
		{map[string]string{"Origin": "null"}, 403},
		{map[string]string{"Host": "evil.example"}, 403},
		{map[string]string{"Host": "localhost:1234"}, 200},
		{map[string]string{"Host": "evil.example", "Origin": "http://evil.example"}, 403},
	} {
		resp := ts.do(t, request{body: echo, accept: "application/json", header: c.header})
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%v: status %d, want %d", c.header, resp.StatusCode, c.status)
		}
	}
}

func TestServerJSONAnswerCannotBeResumed(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	sid := ts.hello(t) // stream 1
	answered := make(chan int, 1)
	go func() {
		resp, err := ts.try(context.Background(), request{session: sid, accept: "application/json", body: `{"jsonrpc":"2.0","id":1,"method":"wait"}`})
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	waitFor(t, ts.started, long, "the JSON request's handler starting")
	get := ts.do(t, request{method: http.MethodGet, session: sid, accept: "text/event-stream", header: map[string]string{"Last-Event-ID": "2_0"}})
	get.Body.Close()
	if get.StatusCode != http.StatusBadRequest {
		t.Fatalf("resuming a JSON answer: status %d, want 400", get.StatusCode)
	}
	ts.release <- struct{}{}
	if got := waitFor(t, answered, long, "the JSON answer"); got != http.StatusOK {
		t.Fatalf("JSON answer: status %d", got)
	}
}
