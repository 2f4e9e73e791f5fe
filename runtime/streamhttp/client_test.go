package streamhttp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// TestClientSessionAndVersionHeaders: the handshake goes without session
// or revision headers; every later request carries the session id from
// the handshake's answer and the revision from its result; the first
// notification after it opens the GET stream (405: none); Close sends
// DELETE with the session id.
func TestClientSessionAndVersionHeaders(t *testing.T) {
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		if !mcpBasics(w, r, h) {
			writeJSON(w, nil, result(h.Msg.ID, `{"echo":`+string(h.Msg.Params)+`}`))
		}
	})
	c, s := connect(t, ts, ClientOptions{}, nil)

	init := ts.next(t)
	if init.Msg.Method != "initialize" {
		t.Fatalf("first request: %+v", init)
	}
	if got := init.Header.Get("Accept"); !strings.Contains(got, "application/json") || !strings.Contains(got, "text/event-stream") {
		t.Errorf("Accept = %q", got)
	}
	if got := init.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type = %q", got)
	}
	if init.Header.Get("Mcp-Session-Id") != "" || init.Header.Get("MCP-Protocol-Version") != "" {
		t.Errorf("handshake carried session headers: %v", init.Header)
	}
	note := ts.next(t)
	if note.Msg.Method != "notifications/initialized" {
		t.Fatalf("second request: %+v", note)
	}
	get := ts.next(t)
	if get.Method != http.MethodGet || get.Header.Get("Accept") != "text/event-stream" {
		t.Fatalf("third request: %s %v", get.Method, get.Header)
	}
	for _, h := range []hit{note, get} {
		if h.Header.Get("Mcp-Session-Id") != "s1" || h.Header.Get("MCP-Protocol-Version") != "2025-11-25" {
			t.Errorf("%s lacks the session headers: %v", h.Method, h.Header)
		}
	}
	if s.SessionID() != "s1" || s.Version() != "2025-11-25" {
		t.Errorf("SessionID, Version = %q, %q", s.SessionID(), s.Version())
	}

	var res struct{ Echo []int }
	if err := c.Call(context.Background(), "echo", []int{1, 2}, &res); err != nil || len(res.Echo) != 2 {
		t.Fatalf("echo: %v %v", res, err)
	}
	if h := ts.next(t); h.Header.Get("Mcp-Session-Id") != "s1" {
		t.Errorf("call lacks the session id: %v", h.Header)
	}

	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	del := ts.next(t)
	if del.Method != http.MethodDelete || del.Header.Get("Mcp-Session-Id") != "s1" {
		t.Fatalf("after Close: %s %v", del.Method, del.Header)
	}
	if n, err := s.Read(make([]byte, 10)); n != 0 || err != io.EOF {
		t.Errorf("Read after Close = %d, %v; want io.EOF", n, err)
	}
	if _, err := s.Write([]byte("{}\n")); !errors.Is(err, ErrClientClosed) {
		t.Errorf("Write after Close = %v", err)
	}
}

// TestClientSSEAnswer: a request answered with an event stream that
// carries a server notification and a server request before the answer;
// the data is split over several data lines, lines end in CRLF, comments
// and a priming event come first. The client compacts each message into
// one line, answers the server's request by POST, and gets its answer.
func TestClientSSEAnswer(t *testing.T) {
	answered := make(chan wireMsg, 1)
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		switch {
		case h.Msg.Method == "" && len(h.Msg.ID) > 0:
			answered <- h.Msg
			w.WriteHeader(http.StatusAccepted)
		case mcpBasics(w, r, h):
		case h.Msg.Method == "work":
			startSSE(w, nil)
			sse(w, ": keep-alive\r\nid: p\r\nretry: 3000\r\ndata:\r\n\r\n")
			sse(w, "event: message\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata:  \"method\":\"progress\",\r\ndata: \"params\":{\"n\":1}}\r\n\r\n")
			sse(w, "id: q\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"ask\"}\n\n")
			got := within(t, answered, 10*time.Second, "the answer to the server's request")
			if string(got.ID) != `"srv-1"` || string(got.Result) != `"yes"` {
				t.Errorf("answer to the server: %+v", got)
			}
			sse(w, "id: r\rdata: "+result(h.Msg.ID, `{"done": true}`)+"\r\r")
		}
	})
	progress := make(chan json.RawMessage, 1)
	handler := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "progress" {
			progress <- req.Params
			return nil, nil
		}
		return "yes", nil
	})
	c, _ := connect(t, ts, ClientOptions{}, handler)
	var res struct{ Done bool }
	if err := c.Call(context.Background(), "work", nil, &res); err != nil || !res.Done {
		t.Fatalf("work: %v %v", res, err)
	}
	if p := within(t, progress, 10*time.Second, "the progress notification"); string(p) != `{"n":1}` {
		t.Errorf("progress params = %s", p)
	}
}

// TestClientWriteAssembly: writes holding part of a message, or several,
// become one POST per message, in order; a POST whose event stream is
// still open does not hold back the next POST.
func TestClientWriteAssembly(t *testing.T) {
	second := make(chan struct{})
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		switch string(h.Msg.ID) {
		case "1":
			startSSE(w, nil)
			<-second // answered only once request 2 has been POSTed
			sse(w, "data: "+result(h.Msg.ID, "1")+"\n\n")
		case "2":
			close(second)
			writeJSON(w, nil, result(h.Msg.ID, "2"))
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	s := dial(t, ts, ClientOptions{})
	writes := []string{
		`{"jsonrpc":"2.0","id":1,`,
		`"method":"a"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"b"}` + "\n\n" + `{"jsonrpc":"2.0",`,
		`"method":"n"}` + "\n",
	}
	for _, w := range writes {
		if n, err := s.Write([]byte(w)); n != len(w) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	var methods []string
	for range 3 {
		methods = append(methods, ts.next(t).Msg.Method)
	}
	if strings.Join(methods, ",") != "a,b,n" {
		t.Errorf("POSTed %v, want a,b,n", methods)
	}
	r := newLineReader(s)
	got := []string{r.line(t), r.line(t)}
	want := map[string]bool{result([]byte("1"), "1"): true, result([]byte("2"), "2"): true}
	for _, g := range got {
		if !want[g] {
			t.Errorf("read %q", g)
		}
	}
}

// lineReader reads lines from a stream in a goroutine-free way, for tests.
type lineReader struct {
	r   io.Reader
	buf []byte
}

func newLineReader(r io.Reader) *lineReader { return &lineReader{r: r} }

// line reads the next line, without its newline.
func (l *lineReader) line(t *testing.T) string {
	t.Helper()
	for {
		if i := strings.IndexByte(string(l.buf), '\n'); i >= 0 {
			s := string(l.buf[:i])
			l.buf = l.buf[i+1:]
			return s
		}
		p := make([]byte, 7) // small reads: lines arrive in pieces
		n, err := l.r.Read(p)
		l.buf = append(l.buf, p[:n]...)
		if err != nil {
			t.Fatalf("reading a line: %v (have %q)", err, l.buf)
		}
	}
}

// testClientSessionGone: a 404 to a request carrying the session id fails
// the call at once with ErrSessionNotFound, ends the stream (another call
// testClientUnauthorized: a 401 ends the stream with an *HTTPError that
// testClientHTTPErrorAnswers: a request answered with an HTTP error fails
// at once with the server's JSON-RPC error when the body holds one, else
// TestClientGETStream: the GET stream delivers the server's requests and
// notifications; the answers go back by POST.
func TestClientGETStream(t *testing.T) {
	answered := make(chan wireMsg, 1)
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		switch {
		case r.Method == http.MethodGet:
			startSSE(w, nil)
			sse(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"hello\"}\n\n")
			sse(w, "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ask\"}\n\n")
			<-r.Context().Done()
		case h.Msg.Method == "" && len(h.Msg.ID) > 0:
			answered <- h.Msg
			w.WriteHeader(http.StatusAccepted)
		default:
			mcpBasics(w, r, h)
		}
	})
	hello := make(chan struct{}, 1)
	handler := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "hello" {
			hello <- struct{}{}
			return nil, nil
		}
		return 42, nil
	})
	connect(t, ts, ClientOptions{}, handler)
	within(t, hello, 10*time.Second, "the notification from the GET stream")
	got := within(t, answered, 10*time.Second, "the answer to the server's request")
	if string(got.ID) != "7" || string(got.Result) != "42" {
		t.Errorf("answer: %+v", got)
	}
}

// TestClientCloseStopsStreams: Close returns while a POST's event stream
// and the GET stream are open and silent, and leaves no goroutine behind
// (goleak checks at the end); the call waiting fails.
func TestClientCloseStopsStreams(t *testing.T) {
	getOpen := make(chan struct{})
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		switch {
		case r.Method == http.MethodGet:
			startSSE(w, nil)
			close(getOpen)
			<-r.Context().Done()
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusMethodNotAllowed) // fine: Close ignores it
		case h.Msg.Method == "slow":
			startSSE(w, nil)
			<-r.Context().Done()
		default:
			mcpBasics(w, r, h)
		}
	})
	c, s := connect(t, ts, ClientOptions{}, nil)
	within(t, getOpen, 10*time.Second, "the GET stream")
	call := callAsync(c, "slow", nil)
	ts.nextCall(t, "slow")
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	if err := within(t, closed, 10*time.Second, "Close"); err != nil {
		t.Errorf("Close = %v", err)
	}
	if out := within(t, call, 10*time.Second, "the call's end"); out.err == nil {
		t.Error("the call succeeded")
	}
}

// TestDialRejects: Dial checks its URL and context.
func TestDialRejects(t *testing.T) {
	for _, u := range []string{"ftp://x/mcp", "/mcp", "http://%zz"} {
		if _, err := Dial(context.Background(), u, testProto, ClientOptions{}); err == nil {
			t.Errorf("Dial(%q) succeeded", u)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Dial(ctx, "http://localhost/mcp", testProto, ClientOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Dial with a cancelled context = %v", err)
	}
}

// TestClientPOSTOrder: a message is POSTed only once the previous POST's
// response headers arrived: within HeaderWait for a request, always for
// the handshake (the next request needs its session id).
func TestClientPOSTOrder(t *testing.T) {
	for _, tt := range []struct {
		name, first string
		wait        time.Duration
	}{
		{"request", "a", time.Hour},
		{"handshake", "initialize", time.Nanosecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			arrived, release := make(chan struct{}), make(chan struct{})
			var headersSent atomic.Bool
			ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
				switch h.Msg.Method {
				case tt.first:
					close(arrived)
					<-release
					headersSent.Store(true)
					writeJSON(w, map[string]string{"Mcp-Session-Id": "s1"}, result(h.Msg.ID, "1"))
				case "b":
					if !headersSent.Load() {
						t.Error("b was POSTed before the headers of the POST before it")
					}
					if tt.first == "initialize" && h.Header.Get("Mcp-Session-Id") != "s1" {
						t.Error("b lacks the session id")
					}
					writeJSON(w, nil, result(h.Msg.ID, "2"))
				default:
					mcpBasics(w, r, h)
				}
			})
			s := dial(t, ts, ClientOptions{HeaderWait: tt.wait})
			wrote := make(chan error, 1)
			go func() {
				_, err := s.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"` + tt.first + `"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"b"}` + "\n"))
				wrote <- err
			}()
			within(t, arrived, 10*time.Second, "the first POST")
			close(release)
			if err := within(t, wrote, 10*time.Second, "the Write"); err != nil {
				t.Fatal(err)
			}
			r := newLineReader(s)
			r.line(t)
			r.line(t)
		})
	}
}

// TestClientEmptyJSONToNotification: a 200 with an empty JSON body to a
// notification is fine (some servers answer so instead of 202): nothing
// TestClientBatch: a batch is one POST; its answers, as a JSON array or
// as one event each, are read, and the event stream is left once every
// request in the batch is answered.
func TestClientBatch(t *testing.T) {
	left := make(chan struct{})
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		var batch []wireMsg
		_ = json.Unmarshal([]byte(h.Body), &batch)
		if len(batch) != 2 {
			t.Errorf("POST body %s", h.Body)
			return
		}
		if batch[0].Method == "json" {
			writeJSON(w, nil, "["+result(batch[0].ID, "1")+","+result(batch[1].ID, "2")+"]")
			return
		}
		startSSE(w, nil)
		sse(w, "id: 1\ndata: "+result(batch[1].ID, "4")+"\n\nid: 2\ndata: "+result(batch[0].ID, "3")+"\n\n")
		<-r.Context().Done()
		close(left)
	})
	s := dial(t, ts, ClientOptions{})
	r := newLineReader(s)
	if _, err := s.Write([]byte(`[{"jsonrpc":"2.0","id":1,"method":"json"},{"jsonrpc":"2.0","id":2,"method":"json"}]` + "\n")); err != nil {
		t.Fatal(err)
	}
	if got, want := r.line(t), "["+result([]byte("1"), "1")+","+result([]byte("2"), "2")+"]"; got != want {
		t.Errorf("JSON batch answer %s, want %s", got, want)
	}
	if _, err := s.Write([]byte(`[{"jsonrpc":"2.0","id":3,"method":"sse"},{"jsonrpc":"2.0","id":4,"method":"sse"}]` + "\n")); err != nil {
		t.Fatal(err)
	}
	if got, want := r.line(t)+r.line(t), result([]byte("4"), "4")+result([]byte("3"), "3"); got != want {
		t.Errorf("streamed batch answers %s, want %s", got, want)
	}
	within(t, left, 10*time.Second, "the client leaving the answered stream")
}

// testClientUnreachable: a server that cannot be reached ends the stream:
// authTransport is a RoundTripper of the kind an OAuth client plugs into
// ClientOptions.HTTPClient: on a 401 it gets a token and sends the
// TestClientRoundTripperAndHeaders: requests go through the HTTPClient's
// Transport, which can replay a POST's body after a 401, and carry the
