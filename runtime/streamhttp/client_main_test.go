package streamhttp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testProto is MCP's use of Streamable HTTP, written out here.
var testProto = Protocol{
	Path:           "/mcp",
	Handshake:      "initialize",
	SessionHeader:  "Mcp-Session-Id",
	VersionHeader:  "MCP-Protocol-Version",
	VersionField:   "protocolVersion",
	DefaultVersion: "2025-03-26",
}

// hit is one request a test server received.
type hit struct {
	Method string      // HTTP method
	Header http.Header // request headers
	Msg    wireMsg     // the decoded body of a POST
	Body   string      // the raw body
	At     time.Time   // arrival
}

// wireMsg is a JSON-RPC message as a test server sees it.
type wireMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// isNotification reports whether m is a notification.
func (m wireMsg) isNotification() bool { return m.Method != "" && len(m.ID) == 0 }

// testServer is an httptest server whose handler a test writes; every
// request is recorded on hits before the handler runs.
type testServer struct {
	*httptest.Server
	hits chan hit
}

// newTestServer starts a server running handle, closed when the test ends.
func newTestServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, h hit)) *testServer {
	t.Helper()
	ts := &testServer{hits: make(chan hit, 100)}
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h := hit{Method: r.Method, Header: r.Header.Clone(), Body: string(body), At: time.Now()}
		if r.Method == http.MethodPost {
			_ = json.Unmarshal(body, &h.Msg)
		}
		select {
		case ts.hits <- h:
		default:
			t.Errorf("test server: too many requests")
		}
		handle(w, r, h)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// next returns the next request the server received.
func (ts *testServer) next(t *testing.T) hit {
	t.Helper()
	select {
	case h := <-ts.hits:
		return h
	case <-time.After(10 * time.Second):
		t.Fatal("the server received no request within 10s")
		return hit{}
	}
}

// nextOf returns the next request with the given HTTP method, skipping
// others.
func (ts *testServer) nextOf(t *testing.T, method string) hit {
	t.Helper()
	for {
		if h := ts.next(t); h.Method == method {
			return h
		}
	}
}

// nextCall returns the next POST of a message with the given method,
// skipping other requests.
func (ts *testServer) nextCall(t *testing.T, method string) hit {
	t.Helper()
	for {
		if h := ts.next(t); h.Method == http.MethodPost && h.Msg.Method == method {
			return h
		}
	}
}

// writeJSON answers with one JSON body.
func writeJSON(w http.ResponseWriter, header map[string]string, body string) {
	for k, v := range header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, body)
}

// startSSE sends the headers of an event stream.
func startSSE(w http.ResponseWriter, header map[string]string) {
	for k, v := range header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

// sse writes raw event-stream text and flushes it.
func sse(w http.ResponseWriter, text string) {
	_, _ = io.WriteString(w, text)
	w.(http.Flusher).Flush()
}

// result is the JSON text of a response to id with the given result.
func result(id json.RawMessage, res string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, res)
}

// initResult answers the handshake.
func initResult(id json.RawMessage) string {
	return result(id, `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"t","version":"1"}}`)
}

// dial opens a ClientStream to ts, closed when the test ends.
func dial(t *testing.T, ts *testServer, opts ClientOptions) *ClientStream {
	t.Helper()
	s, err := Dial(context.Background(), ts.URL+"/mcp", testProto, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// connect runs a jsonrpc.Conn over a ClientStream to ts and performs the
// handshake and the notification that follows it.
func connect(t *testing.T, ts *testServer, opts ClientOptions, h jsonrpc.Handler) (*jsonrpc.Conn, *ClientStream) {
	t.Helper()
	s := dial(t, ts, opts)
	c := jsonrpc.NewConn(s, jsonrpc.Options{Handler: h, Cancellation: jsonrpc.CancelMCP})
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var res map[string]any
	if err := c.Call(ctx, "initialize", map[string]any{"protocolVersion": "2025-11-25"}, &res); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if err := c.Notify(ctx, "notifications/initialized", nil); err != nil {
		t.Fatalf("initialized: %v", err)
	}
	return c, s
}

// mcpBasics answers the handshake (with session "s1"), notifications
// (202), GET (405) and DELETE (200); it reports whether it handled r.
func mcpBasics(w http.ResponseWriter, r *http.Request, h hit) bool {
	sid := map[string]string{"Mcp-Session-Id": "s1"}
	switch {
	case r.Method == http.MethodGet:
		w.WriteHeader(http.StatusMethodNotAllowed)
	case r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusOK)
	case h.Msg.Method == "initialize":
		writeJSON(w, sid, initResult(h.Msg.ID))
	case h.Msg.isNotification(), h.Msg.Method == "" && len(h.Msg.ID) > 0:
		w.WriteHeader(http.StatusAccepted)
	default:
		return false
	}
	return true
}

// within waits for ch, failing the test after d (a bound against hangs).
func within[T any](t *testing.T, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("%s did not happen within %v", what, d)
		panic("unreachable")
	}
}

// callAsync runs c.Call in a goroutine and returns its outcome on a
// channel.
func callAsync(c *jsonrpc.Conn, method string, params any) <-chan callOutcome {
	ch := make(chan callOutcome, 1)
	go func() {
		var res json.RawMessage
		err := c.Call(context.Background(), method, params, &res)
		ch <- callOutcome{res, err}
	}()
	return ch
}

// callOutcome is what a call returned.
type callOutcome struct {
	res json.RawMessage
	err error
}

// logEvents is a slog handler that passes on each record's message, so
// that a test can wait for one.
type logEvents chan string

func (l logEvents) Enabled(context.Context, slog.Level) bool { return true }
func (l logEvents) Handle(_ context.Context, r slog.Record) error {
	select {
	case l <- r.Message:
	default:
	}
	return nil
}
func (l logEvents) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l logEvents) WithGroup(string) slog.Handler      { return l }

// waitFor waits for a log message containing part.
func (l logEvents) waitFor(t *testing.T, part string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case m := <-l:
			if strings.Contains(m, part) {
				return
			}
		case <-deadline:
			t.Fatalf("no log message %q within 10s", part)
		}
	}
}

// newTextLogger returns a logger writing text to w.
func newTextLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// logSink keeps log output for assertions.
type logSink struct {
	mu   sync.Mutex
	msgs []string
}

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, string(p))
	return len(p), nil
}

func (l *logSink) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.msgs, "")
}
