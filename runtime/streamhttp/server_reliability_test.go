package streamhttp

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

func init() {
	// Another file of the package may define -update already.
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// hostileCase is one row of RELIABILITY.md: hostile HTTP input, what the
// Handler answers, and what stays bounded.
type hostileCase struct {
	input, answer, bound string
	run                  func(t *testing.T)
}

var hostileCases = []hostileCase{
	{"body past MaxBodyBytes, sent chunked (no Content-Length)", "413; the session goes on",
		"reading stops at the limit: under 1 MiB allocated for an 8 MiB body with a 64 KiB limit", testHostileBodyStreamed},
	{"Content-Length announcing 1 GiB, no body sent", "413 at once, before any body byte", "nothing allocated for the announced length", testHostileBodyAnnounced},
	{"Content-Type text/plain, or none", "415", "body not read", testHostileContentType},
	{"POST body that is not JSON, or nested 100,000 deep", "400, JSON-RPC -32700 Parse error, id null", "the connection never sees it", testHostileNotJSON},
	{"request without the session header", "400", "no session created", testHostileNoSession},
	{"forged or ended session id", "404 (POST, GET and DELETE)", "no session created", testHostileForgedSession},
	{"request id already in flight in the session", "400, JSON-RPC -32600 with that id; the first request is answered", "one stream per id", testHostileDuplicateID},
	{"GET event stream left open without reading while the server sends 2 MiB", "the stream is dropped after WriteTimeout; the session's POSTs are answered meanwhile", "stored events stay within MaxEventBytes", testHostileUnreadGET},
	{"POST event stream left unread (a slow client) while its handler sends 2 MiB", "the stream is dropped after WriteTimeout; the handler and the session's other requests go on", "stored events stay within MaxEventBytes", testHostileUnreadPOST},
	{"5000 sessions opened and abandoned (2000 under the race detector)", "past MaxSessions the session idle for longest ends (its connection sees EOF)", "at most MaxSessions sessions; every evicted connection ends", testHostileManySessions},
	{"new session while MaxSessions sessions are busy", "503 with Retry-After", "no session created", testHostileBusySessions},
	{"more concurrent streams than MaxStreams in one session", "429", "MaxStreams responses per session", testHostileManyStreams},
	{"second GET stream while one is open", "409", "one GET stream per session", testHostileSecondGET},
	{"resumption with an unknown, malformed or evicted Last-Event-ID", "400", "nothing replayed", testHostileBadLastEventID},
	{"session left idle", "ended after IdleTimeout (its connection sees EOF; later requests get 404); a session with an open stream is not idle", "no idle session outlives IdleTimeout", testHostileIdle},
	{"Host or Origin of another site on a loopback listener (DNS rebinding)", "403", "the request is not read", testHostileRebinding},
}

func TestServerReliability(t *testing.T) {
	for _, c := range hostileCases {
		t.Run(c.input, c.run)
	}
	checkGolden(t, "RELIABILITY.md", renderReliability(), "go test ./runtime/streamhttp -run TestServerReliability")
}

func renderReliability() []byte {
	var b strings.Builder
	b.WriteString("# runtime/streamhttp: hostile HTTP input\n\n")
	b.WriteString("Generated from `hostileCases` in `server_reliability_test.go` by\n")
	b.WriteString("`go test ./runtime/streamhttp -run TestServerReliability -update`; the\n")
	b.WriteString("test fails when this file differs from the table. Each row is a subtest\n")
	b.WriteString("of `TestServerReliability` driving a `Handler` through `httptest` with\n")
	b.WriteString("raw HTTP, serving a small protocol that is not MCP; goleak checks that\n")
	b.WriteString("no goroutine outlives the tests.\n\n")
	fmt.Fprintf(&b, "Limits (defaults): body %d MiB, %d sessions, %d streams per session,\n", DefaultMaxBodyBytes>>20, DefaultMaxSessions, DefaultMaxStreams)
	fmt.Fprintf(&b, "%d MiB of stored events per session, idle sessions end after %v, a\n", DefaultMaxEventBytes>>20, DefaultIdleTimeout)
	fmt.Fprintf(&b, "stream write times out after %v; tests lower them to keep inputs small.\n\n", DefaultWriteTimeout)
	b.WriteString("| hostile input | answer | bound | proved by |\n|---|---|---|---|\n")
	for _, c := range hostileCases {
		fmt.Fprintf(&b, "| %s | %s | %s | `TestServerReliability/%s` |\n", c.input, c.answer, c.bound, strings.ReplaceAll(c.input, " ", "_"))
	}
	return []byte(b.String())
}

// logWatch is a slog handler that reports each record's message.
type logWatch chan string

func (w logWatch) Enabled(context.Context, slog.Level) bool { return true }
func (w logWatch) Handle(_ context.Context, r slog.Record) error {
	select {
	case w <- r.Message:
	default:
	}
	return nil
}
func (w logWatch) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w logWatch) WithGroup(string) slog.Handler      { return w }

// waitLog waits for a log message containing part.
func waitLog(t *testing.T, w logWatch, parts ...string) {
	t.Helper()
	deadline := time.After(long)
	for {
		select {
		case m := <-w:
			for _, part := range parts {
				if strings.Contains(m, part) {
					return
				}
			}
		case <-deadline:
			t.Fatalf("no log message with any of %q within %v", parts, long)
		}
	}
}

// waitDropped waits until the server gives up on a stream its client does
// not read. Either way is right: the write times out ("did not read"), or
// the stored events are evicted before the stream gets to them ("read too
// slowly"), which wins when the handler floods faster than the write
// deadline expires.
func waitDropped(t *testing.T, w logWatch) {
	t.Helper()
	waitLog(t, w, "did not read", "read too slowly")
}

// chunks is a body of n bytes that announces no length.
type chunks struct{ n int }

func (c *chunks) Read(p []byte) (int, error) {
	if c.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), c.n)
	for i := range p[:k] {
		p[i] = ' '
	}
	c.n -= k
	return k, nil
}

func testHostileBodyStreamed(t *testing.T) {
	const limit = 64 << 10
	ts := newEchoServer(t, ServerOptions{MaxBodyBytes: limit})
	sid := ts.hello(t)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	req, _ := http.NewRequest(http.MethodPost, ts.url, io.NopCloser(&chunks{n: 8 << 20}))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set(echoProto.SessionHeader, sid)
	resp, err := ts.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	runtime.ReadMemStats(&after)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", resp.StatusCode)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("%d bytes allocated for a body past a %d-byte limit", got, limit)
	}
	if m := ts.callJSON(t, sid, 1, "echo", `[1]`); fmt.Sprint(m["result"]) != "[1]" {
		t.Fatalf("the session after a 413: %v", m)
	}
}

// rawRequest sends head (request line and headers, without the blank
// line) over a new TCP connection and returns the status line.
func rawRequest(t *testing.T, ts *echoServer, head string) string {
	t.Helper()
	c, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(long))
	if _, err := io.WriteString(c, head+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(line)
}

func testHostileBodyAnnounced(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	sid := ts.hello(t)
	status := rawRequest(t, ts, "POST /rpc HTTP/1.1\r\nHost: "+ts.Listener.Addr().String()+
		"\r\nContent-Type: application/json\r\nAccept: application/json\r\n"+echoProto.SessionHeader+": "+sid+"\r\nContent-Length: 1073741824")
	if status != "HTTP/1.1 413 Request Entity Too Large" {
		t.Fatalf("status line %q, want 413", status)
	}
}

func testHostileContentType(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	sid := ts.hello(t)
	for _, ct := range []string{"text/plain", "-", "application/jsonx"} {
		resp := ts.do(t, request{session: sid, ctype: ct, body: `{"jsonrpc":"2.0","id":1,"method":"echo"}`})
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnsupportedMediaType {
			t.Errorf("Content-Type %q: status %d, want 415", ct, resp.StatusCode)
		}
	}
	resp := ts.do(t, request{session: sid, ctype: "application/json; charset=utf-8", body: `{"jsonrpc":"2.0","method":"note"}`})
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("application/json with a charset: status %d, want 202", resp.StatusCode)
	}
}

func testHostileNotJSON(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	sid := ts.hello(t)
	for _, body := range []string{`{"jsonrpc":"2.0",`, "\x00\x01", strings.Repeat("[", 100000) + strings.Repeat("]", 100000)} {
		resp := ts.do(t, request{session: sid, body: body})
		m := decodeBody(t, resp)
		if e, _ := m["error"].(map[string]any); resp.StatusCode != 400 || e == nil || e["code"] != float64(-32700) || m["id"] != nil {
			t.Errorf("body %.20q: status %d, %v", body, resp.StatusCode, m)
		}
	}
}

func testHostileNoSession(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	ts.hello(t)
	for _, rq := range []request{
		{body: `{"jsonrpc":"2.0","id":1,"method":"echo"}`},
		{body: `{"jsonrpc":"2.0","method":"note"}`},
		{method: http.MethodGet, accept: "text/event-stream"},
		{method: http.MethodDelete},
	} {
		resp := ts.do(t, rq)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s %s: status %d, want 400", rq.method, rq.body, resp.StatusCode)
		}
	}
	if n := countSessions(ts.h); n != 1 {
		t.Errorf("%d sessions, want the one hello opened", n)
	}
}

func countSessions(h *Handler) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

func testHostileForgedSession(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	ended := ts.hello(t)
	ts.do(t, request{method: http.MethodDelete, session: ended}).Body.Close()
	for _, sid := range []string{"forged", ended, strings.Repeat("A", 4096), "\x7f"} {
		for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
			resp, err := ts.try(context.Background(), request{method: method, session: sid, body: `{"jsonrpc":"2.0","id":1,"method":"echo"}`})
			if err != nil { // net/http refuses to send some header values
				continue
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("%s with session %.10q: status %d, want 404", method, sid, resp.StatusCode)
			}
		}
	}
	if n := countSessions(ts.h); n != 0 {
		t.Errorf("%d sessions, want none", n)
	}
}

func testHostileDuplicateID(t *testing.T) {
	TestServerDuplicateRequestID(t)
}

// floodLimits are the options of the tests whose server floods a client
// that does not read.
func floodLimits(w logWatch) ServerOptions {
	return ServerOptions{WriteTimeout: 100 * time.Millisecond, MaxEventBytes: 1 << 20, Logger: slog.New(w)}
}

func sessionOf(ts *echoServer, sid string) *Session {
	ts.h.mu.Lock()
	defer ts.h.mu.Unlock()
	return ts.h.sessions[sid]
}

// storeBound checks the session's stored events against MaxEventBytes
// (plus the one message that may exceed it).
func storeBound(t *testing.T, s *Session, limit, message int) {
	t.Helper()
	s.mu.Lock()
	n := s.bytes
	s.mu.Unlock()
	if n > limit+message {
		t.Errorf("%d bytes of events stored, limit %d", n, limit)
	}
}

func testHostileUnreadGET(t *testing.T) {
	w := make(logWatch, 1000)
	ts := newEchoServer(t, floodLimits(w), smallBuffers)
	sid := ts.hello(t)
	get := ts.do(t, request{method: http.MethodGet, session: sid, accept: "text/event-stream"})
	defer get.Body.Close() // never read
	if m := decodeBody(t, ts.do(t, request{session: sid, accept: "application/json",
		body: `{"jsonrpc":"2.0","id":1,"method":"flood","params":{"n":32,"size":65536}}`})); m["result"] != "flooded" {
		t.Fatalf("flood: %v", m)
	}
	if m := ts.callJSON(t, sid, 2, "echo", `[2]`); fmt.Sprint(m["result"]) != "[2]" {
		t.Fatalf("echo while the GET stream is stuck: %v", m)
	}
	waitDropped(t, w)
	storeBound(t, sessionOf(ts, sid), 1<<20, 70000)
	again := ts.do(t, request{method: http.MethodGet, session: sid, accept: "text/event-stream"})
	again.Body.Close()
	if again.StatusCode != http.StatusOK {
		t.Fatalf("GET after the stuck stream was dropped: status %d", again.StatusCode)
	}
}

func testHostileUnreadPOST(t *testing.T) {
	w := make(logWatch, 1000)
	ts := newEchoServer(t, floodLimits(w), smallBuffers)
	sid := ts.hello(t)
	flood := ts.call(t, sid, 1, "flood", `{"n":32,"size":65536,"related":true}`)
	defer flood.Body.Close() // never read
	if m := ts.callJSON(t, sid, 2, "echo", `[2]`); fmt.Sprint(m["result"]) != "[2]" {
		t.Fatalf("echo while the flood stream is stuck: %v", m)
	}
	waitDropped(t, w)
	storeBound(t, sessionOf(ts, sid), 1<<20, 70000)
}

func testHostileManySessions(t *testing.T) {
	const max = 100
	total := 5000
	if raceEnabled {
		total = 2000 // the race detector makes each session ten times slower
	}
	ts := newEchoServer(t, ServerOptions{MaxSessions: max, Logger: slog.New(slog.DiscardHandler)}, lightConns)
	for i := range total {
		ts.hello(t)
		if n := countSessions(ts.h); n > max {
			t.Fatalf("after %d sessions: %d open, limit %d", i+1, n, max)
		}
	}
	for range total {
		conn := waitFor(t, ts.conns, long, "a connection")
		if s := conn.Stream().(*Session); sessionOf(ts, s.ID()) != s {
			waitFor(t, conn.Done(), long, "an evicted session's connection ending")
		}
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	if ms.HeapInuse > 256<<20 {
		t.Errorf("heap in use %d MiB after %d sessions", ms.HeapInuse>>20, total)
	}
}

func testHostileBusySessions(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{MaxSessions: 2})
	for range 2 {
		sid := ts.hello(t)
		get := ts.do(t, request{method: http.MethodGet, session: sid, accept: "text/event-stream"})
		defer get.Body.Close()
		if _, err := newSSE(t, get).next(); err != nil { // attached
			t.Fatal(err)
		}
	}
	resp := ts.do(t, request{body: `{"jsonrpc":"2.0","id":0,"method":"hello"}`})
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("status %d, Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if n := countSessions(ts.h); n != 2 {
		t.Fatalf("%d sessions, want 2", n)
	}
}

func testHostileManyStreams(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{MaxStreams: 2})
	sid := ts.hello(t)
	for i := range 2 {
		resp := ts.call(t, sid, 10+i, "wait", "")
		defer resp.Body.Close()
		if _, err := newSSE(t, resp).next(); err != nil {
			t.Fatal(err)
		}
	}
	resp := ts.call(t, sid, 20, "echo", "")
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("third stream: status %d, want 429", resp.StatusCode)
	}
	ts.release <- struct{}{}
	ts.release <- struct{}{}
}

func testHostileSecondGET(t *testing.T) {
	TestServerGETStreamGetsUnrelatedMessages(t)
}

func testHostileBadLastEventID(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{MaxEventBytes: 64 << 10})
	sid := ts.hello(t)
	decodeBody(t, ts.do(t, request{session: sid, accept: "application/json",
		body: `{"jsonrpc":"2.0","id":1,"method":"flood","params":{"n":8,"size":20000}}`}))
	for _, id := range []string{"0_0", "99_1", "0_999", "x", "1_-1", strings.Repeat("9", 40) + "_1", "0_1_2"} {
		resp := ts.do(t, request{method: http.MethodGet, session: sid, accept: "text/event-stream", header: map[string]string{"Last-Event-ID": id}})
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("Last-Event-ID %.12q: status %d, want 400", id, resp.StatusCode)
		}
	}
}

func testHostileIdle(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{IdleTimeout: 50 * time.Millisecond})
	busy := ts.hello(t)
	busyConn := waitFor(t, ts.conns, long, "a connection")
	get := ts.do(t, request{method: http.MethodGet, session: busy, accept: "text/event-stream"})
	defer get.Body.Close()
	if _, err := newSSE(t, get).next(); err != nil {
		t.Fatal(err)
	}
	idle := ts.hello(t)
	conn := waitFor(t, ts.conns, long, "a connection")
	waitFor(t, conn.Done(), long, "the idle session's connection ending")
	resp := ts.call(t, idle, 1, "echo", "")
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("expired session: status %d, want 404", resp.StatusCode)
	}
	// The session with an open stream is not idle, however late its
	// timer fires.
	s := sessionOf(ts, busy)
	s.mu.Lock()
	s.lastUsed = time.Now().Add(-time.Hour)
	s.mu.Unlock()
	s.expire()
	select {
	case <-busyConn.Done():
		t.Fatal("a session with an open GET stream expired")
	default:
	}
}

func testHostileRebinding(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	for _, h := range []map[string]string{
		{"Host": "evil.example"},
		{"Host": "evil.example:80", "Origin": "http://evil.example"},
		{"Origin": "http://evil.example"},
		{"Origin": "http://localhost.evil.example"},
	} {
		resp := ts.do(t, request{body: `{"jsonrpc":"2.0","id":0,"method":"hello"}`, header: h})
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%v: status %d, want 403", h, resp.StatusCode)
		}
	}
	if n := countSessions(ts.h); n != 0 {
		t.Errorf("%d sessions opened", n)
	}
}
