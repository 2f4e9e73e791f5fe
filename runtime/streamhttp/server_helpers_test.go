package streamhttp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// The tests serve a small protocol of their own, not MCP, to show the
// transport works for any protocol: "hello" opens a session; "echo"
// answers its params; "ask" sends a notification and calls the client
// back before answering; "poll" closes its event stream, then sends a
// notification and answers once released; "tell" makes the server send
// a notification unrelated to any request.
var echoProto = Protocol{
	Path:           "/rpc",
	Handshake:      "hello",
	SessionHeader:  "Echo-Session",
	VersionHeader:  "Echo-Version",
	VersionField:   "version",
	DefaultVersion: "v0",
}

// echoServer is a Handler serving the echo protocol behind httptest.
type echoServer struct {
	*httptest.Server
	h        *Handler
	url      string
	release  chan struct{} // lets a "poll" or "wait" handler answer
	started  chan struct{} // a "wait" handler has started
	conns    chan *jsonrpc.Conn
	client   *http.Client
	connOpts jsonrpc.Options // the options of the server's connections
}

func newEchoServer(t *testing.T, opts ServerOptions, tweaks ...func(*echoServer)) *echoServer {
	t.Helper()
	ts := &echoServer{release: make(chan struct{}, 16), started: make(chan struct{}, 16), conns: make(chan *jsonrpc.Conn, 10000)}
	if opts.Versions == nil {
		opts.Versions = []string{"v1", "v2"}
	}
	ts.h = NewHandler(echoProto, func(s *Session) {
		var conn *jsonrpc.Conn
		opts := ts.connOpts
		opts.Handler, opts.Handshake = jsonrpc.HandlerFunc(ts.handle), "hello"
		conn = jsonrpc.NewConn(s, opts)
		select {
		case ts.conns <- conn:
		default:
		}
	}, opts)
	ts.Server = httptest.NewUnstartedServer(ts.h)
	for _, tweak := range tweaks {
		tweak(ts)
	}
	ts.Server.Start()
	if ts.client == nil {
		ts.client = ts.Server.Client()
	}
	ts.url = ts.Server.URL + echoProto.Path
	t.Cleanup(func() {
		if err := ts.h.Close(); err != nil {
			t.Errorf("Handler.Close: %v", err)
		}
		ts.Server.Close()
		ts.client.CloseIdleConnections()
	})
	return ts
}

func (ts *echoServer) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	conn := jsonrpc.ConnFromContext(ctx)
	switch req.Method {
	case "hello":
		var p struct {
			Version string `json:"version"`
		}
		_ = req.DecodeParams(&p)
		if p.Version == "bad" {
			return nil, &jsonrpc.Error{Code: -32602, Message: "bad version"}
		}
		return map[string]string{"version": "v1"}, nil
	case "echo":
		return req.Params, nil
	case "pretty":
		return json.RawMessage("{\r\n  \"a\": [\n    1\n  ]\r}"), nil
	case "ask":
		if err := conn.Notify(ctx, "progress", map[string]int{"step": 1}); err != nil {
			return nil, err
		}
		var answer string
		if err := conn.Call(ctx, "client/answer", nil, &answer); err != nil {
			return nil, err
		}
		return "client said " + answer, nil
	case "poll":
		if err := CloseStream(ctx, 25*time.Millisecond); err != nil {
			return nil, err
		}
		if err := conn.Notify(ctx, "progress", map[string]int{"step": 2}); err != nil {
			return nil, err
		}
		select {
		case <-ts.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return "polled", nil
	case "tell":
		go func() { _ = conn.Notify(context.Background(), "news", map[string]string{"what": "unrelated"}) }()
		return "told", nil
	case "flood":
		var p struct {
			N, Size int
			Related bool
		}
		if err := req.DecodeParams(&p); err != nil {
			return nil, err
		}
		nctx := context.Background()
		if p.Related {
			nctx = ctx
		}
		pad := strings.Repeat("x", p.Size)
		for i := range p.N {
			if err := conn.Notify(nctx, "flood", map[string]any{"i": i, "pad": pad}); err != nil {
				return nil, err
			}
		}
		return "flooded", nil
	case "wait":
		select {
		case ts.started <- struct{}{}:
		default:
		}
		select {
		case <-ts.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return "waited", nil
	}
	return nil, jsonrpc.MethodNotFound(req.Method)
}

// lightConns gives the server's connections small queues, for tests
// that open thousands.
func lightConns(ts *echoServer) {
	ts.connOpts = jsonrpc.Options{MaxConcurrentRequests: 4, MaxQueuedRequests: 4, MaxQueuedNotifications: 4, MaxQueuedWrites: 4}
}

// smallBuffers gives the server's and the client's sockets small
// buffers, so that a client that does not read blocks the server's
// writes after kilobytes rather than megabytes.
func smallBuffers(ts *echoServer) {
	ts.Server.Listener = smallListener{ts.Server.Listener}
	d := &net.Dialer{}
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(4096)
		}
		return c, err
	}}
	ts.client = &http.Client{Transport: tr}
}

type smallListener struct{ net.Listener }

func (l smallListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// request is one raw HTTP request to the endpoint.
type request struct {
	method  string
	session string
	version string
	accept  string // default "application/json, text/event-stream"
	ctype   string // default "application/json"
	body    string
	header  map[string]string
}

func (ts *echoServer) do(t *testing.T, rq request) *http.Response {
	t.Helper()
	resp, err := ts.try(context.Background(), rq)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func (ts *echoServer) try(ctx context.Context, rq request) (*http.Response, error) {
	method := rq.method
	if method == "" {
		method = http.MethodPost
	}
	var body io.Reader
	if rq.body != "" {
		body = strings.NewReader(rq.body)
	}
	req, err := http.NewRequestWithContext(ctx, method, ts.url, body)
	if err != nil {
		return nil, err
	}
	if rq.accept == "" {
		rq.accept = "application/json, text/event-stream"
	}
	if rq.accept != "-" {
		req.Header.Set("Accept", rq.accept)
	}
	if rq.ctype == "" {
		rq.ctype = "application/json"
	}
	if method == http.MethodPost && rq.ctype != "-" {
		req.Header.Set("Content-Type", rq.ctype)
	}
	if rq.session != "" {
		req.Header.Set(echoProto.SessionHeader, rq.session)
	}
	if rq.version != "" {
		req.Header.Set(echoProto.VersionHeader, rq.version)
	}
	for k, v := range rq.header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	return ts.client.Do(req)
}

// hello opens a session and returns its id.
func (ts *echoServer) hello(t *testing.T) string {
	t.Helper()
	resp := ts.do(t, request{body: `{"jsonrpc":"2.0","id":0,"method":"hello","params":{"version":"v1"}}`, accept: "application/json"})
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("hello: status %d", resp.StatusCode)
	}
	id := resp.Header.Get(echoProto.SessionHeader)
	if id == "" {
		t.Fatal("hello: no session id")
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return id
}

// callJSON POSTs a request in session sid, accepting only JSON, and
// returns the decoded answer.
func (ts *echoServer) callJSON(t *testing.T, sid string, id int, method, params string) map[string]any {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `"`
	if params != "" {
		body += `,"params":` + params
	}
	return decodeBody(t, ts.do(t, request{session: sid, version: "v1", accept: "application/json", body: body + "}"}))
}

// call POSTs a request in session sid and returns the response.
func (ts *echoServer) call(t *testing.T, sid string, id int, method, params string) *http.Response {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `"`
	if params != "" {
		body += `,"params":` + params
	}
	return ts.do(t, request{session: sid, version: "v1", body: body + "}"})
}

// sseEvent is one server-sent event.
type sseEvent struct {
	id, data, retry string
	comment         bool
}

// sseReader reads the events of an event stream.
type sseReader struct {
	r *bufio.Reader
}

func newSSE(t *testing.T, resp *http.Response) *sseReader {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q, want text/event-stream (status %d)", ct, resp.StatusCode)
	}
	return &sseReader{r: bufio.NewReader(resp.Body)}
}

// next returns the next event (a comment-only block counts as an event
// with comment set), or io.EOF at the end of the stream.
func (s *sseReader) next() (sseEvent, error) {
	var e sseEvent
	seen := false
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			if err == io.EOF && seen {
				return e, io.ErrUnexpectedEOF
			}
			return e, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if seen {
				return e, nil
			}
			continue
		}
		seen = true
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "":
			e.comment = true
		case "id":
			e.id = value
		case "data":
			if e.data != "" {
				e.data += "\n"
			}
			e.data += value
		case "retry":
			e.retry = value
		}
	}
}

// message returns the next event that carries a message, skipping
// priming events and comments.
func (s *sseReader) message(t *testing.T) (sseEvent, map[string]any) {
	t.Helper()
	for {
		e, err := s.next()
		if err != nil {
			t.Fatalf("reading the event stream: %v", err)
		}
		if e.data == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(e.data), &m); err != nil {
			t.Fatalf("event data %q: %v", e.data, err)
		}
		if e.id == "" {
			t.Errorf("event %q has no id", e.data)
		}
		return e, m
	}
}

// end expects the stream to end with no further message.
func (s *sseReader) end(t *testing.T) {
	t.Helper()
	for {
		e, err := s.next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("reading the event stream: %v", err)
		}
		if e.data != "" {
			t.Fatalf("unexpected event %q", e.data)
		}
	}
}

// decodeBody decodes a response body.
func decodeBody(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatalf("decoding the body (status %d): %v", resp.StatusCode, err)
	}
	return m
}

// waitFor fails the test if ch delivers nothing within d, a generous bound
// that only turns a hang into a failure.
func waitFor[T any](t *testing.T, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("%s did not happen within %v", what, d)
		panic("unreachable")
	}
}

// postWait POSTs a "wait" request in session sid from a goroutine of its
// own and returns the channel its response arrives on (closed, with the
// error reported, when the POST fails).
func (ts *echoServer) postWait(t *testing.T, sid string) <-chan *http.Response {
	got := make(chan *http.Response, 1)
	go func() {
		resp, err := ts.try(context.Background(), request{session: sid, version: "v1", body: `{"jsonrpc":"2.0","id":1,"method":"wait"}`})
		if err != nil {
			t.Error(err)
			close(got)
			return
		}
		got <- resp
	}()
	return got
}
