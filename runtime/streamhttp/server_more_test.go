package streamhttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

func TestServerKeepAliveComments(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{KeepAlive: 10 * time.Millisecond})
	sid := ts.hello(t)
	get := ts.do(t, request{method: http.MethodGet, session: sid, accept: "text/event-stream"})
	defer get.Body.Close()
	stream := newSSE(t, get)
	for {
		e, err := stream.next()
		if err != nil {
			t.Fatal(err)
		}
		if e.comment {
			return
		}
	}
}

func TestServerJSONResponseOption(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{JSONResponse: true})
	sid := ts.hello(t)
	resp := ts.call(t, sid, 1, "echo", `[1]`)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json", ct)
	}
	if m := decodeBody(t, resp); fmt.Sprint(m["result"]) != "[1]" {
		t.Fatalf("answer %v", m)
	}
	// A client accepting only event streams still gets one.
	resp = ts.do(t, request{session: sid, accept: "text/event-stream", body: `{"jsonrpc":"2.0","id":2,"method":"echo","params":[2]}`})
	defer resp.Body.Close()
	if _, m := newSSE(t, resp).message(t); fmt.Sprint(m["result"]) != "[2]" {
		t.Fatalf("answer %v", m)
	}
}

func TestServerCloseEndsSessions(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	sid := ts.hello(t)
	conn := waitFor(t, ts.conns, long, "a connection")
	get := ts.do(t, request{method: http.MethodGet, session: sid, accept: "text/event-stream"})
	defer get.Body.Close()
	stream := newSSE(t, get)
	if err := ts.h.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-conn.Done():
	default:
		t.Fatal("Close returned before the session's connection ended")
	}
	stream.end(t)
	resp := ts.do(t, request{body: `{"jsonrpc":"2.0","id":0,"method":"hello"}`})
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("new session after Close: status %d, want 503", resp.StatusCode)
	}
}

// plainStream hides Session's RelatedWriter, so that a Conn writes
// newline-delimited JSON through Write.
type plainStream struct{ io.ReadWriteCloser }

func TestServerPlainNDJSONWrites(t *testing.T) {
	ts := &echoServer{release: make(chan struct{}, 1), conns: make(chan *jsonrpc.Conn, 4)}
	ts.h = NewHandler(echoProto, func(s *Session) {
		ts.conns <- jsonrpc.NewConn(plainStream{s}, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(ts.handle)})
	}, ServerOptions{})
	ts.Server = httptest.NewServer(ts.h)
	ts.client = ts.Server.Client()
	ts.url = ts.Server.URL + echoProto.Path
	defer func() {
		if err := ts.h.Close(); err != nil {
			t.Error(err)
		}
		ts.Server.Close()
	}()
	sid := ts.hello(t)
	resp := ts.call(t, sid, 1, "ask", "")
	defer resp.Body.Close()
	get := ts.do(t, request{method: http.MethodGet, session: sid, accept: "text/event-stream"})
	defer get.Body.Close()
	stream := newSSE(t, get)
	// Without RelatedWriter nothing is known to relate to the request:
	// its messages go to the GET stream, its answer to its POST.
	if _, m := stream.message(t); m["method"] != "progress" {
		t.Fatalf("GET stream: %v", m)
	}
	_, m := stream.message(t)
	ts.do(t, request{session: sid, body: fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":"plain"}`, m["id"])}).Body.Close()
	if _, m := newSSE(t, resp).message(t); m["result"] != "client said plain" {
		t.Fatalf("answer %v", m)
	}
}

func TestServerProtocolWithoutHandshakeOrSessions(t *testing.T) {
	for _, proto := range []Protocol{{Path: "/x", SessionHeader: "X-Session"}, {Path: "/x"}} {
		ts := &echoServer{conns: make(chan *jsonrpc.Conn, 4)}
		ts.h = NewHandler(proto, func(s *Session) {
			ts.conns <- jsonrpc.NewConn(s, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(ts.handle)})
		}, ServerOptions{})
		ts.Server = httptest.NewServer(ts.h)
		ts.client = ts.Server.Client()
		ts.url = ts.Server.URL + proto.Path
		resp := ts.do(t, request{accept: "application/json", body: `{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`})
		sid := resp.Header.Get("X-Session")
		if m := decodeBody(t, resp); fmt.Sprint(m["result"]) != "[1]" {
			t.Errorf("%+v: answer %v", proto, m)
		}
		if (sid != "") != (proto.SessionHeader != "") {
			t.Errorf("%+v: session id %q", proto, sid)
		}
		if err := ts.h.Close(); err != nil {
			t.Error(err)
		}
		ts.Server.Close()
	}
}

func TestCloseStreamOutsideAStream(t *testing.T) {
	if err := CloseStream(context.Background(), 0); !errors.Is(err, ErrNoStream) {
		t.Fatalf("CloseStream outside a handler: %v", err)
	}
	ts := newEchoServer(t, ServerOptions{})
	sid := ts.hello(t)
	// "poll" fails with CloseStream's error when answered as JSON.
	m := ts.callJSON(t, sid, 1, "poll", "")
	if e, _ := m["error"].(map[string]any); e == nil {
		t.Fatalf("poll answered as JSON: %v, want CloseStream's error", m)
	}
	// And over a stream other than a Session.
	a, b := newPipe()
	defer a.Close()
	errc := make(chan error, 1)
	server := jsonrpc.NewConn(a, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
		errc <- CloseStream(ctx, 0)
		return nil, nil
	})})
	defer server.Close()
	client := jsonrpc.NewConn(b, jsonrpc.Options{})
	defer client.Close()
	if err := client.Call(context.Background(), "x", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, ErrNoStream) {
		t.Fatalf("CloseStream over a pipe: %v", err)
	}
}

// newPipe returns the two ends of an in-memory stream.
func newPipe() (io.ReadWriteCloser, io.ReadWriteCloser) {
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	return pipeEnd{ar, aw}, pipeEnd{br, bw}
}

type pipeEnd struct {
	*io.PipeReader
	*io.PipeWriter
}

func (p pipeEnd) Close() error {
	p.PipeReader.Close()
	return p.PipeWriter.Close()
}

// TestServerAcceptVariants checks the kind of answer each Accept header
// gets for a request answered at once: with AnswerWait (an hour here, so
// that only the answer decides) application/json whenever the client
// accepts it; with a negative AnswerWait an event stream whenever the
// client accepts one.
func TestServerAcceptVariants(t *testing.T) {
	lazy := newEchoServer(t, ServerOptions{AnswerWait: time.Hour})
	atOnce := newEchoServer(t, ServerOptions{AnswerWait: -1})
	lazySID, atOnceSID := lazy.hello(t), atOnce.hello(t)
	for i, c := range []struct {
		accept       string
		lazy, atOnce string // the answer's Content-Type, or "" for 406
	}{
		{"application/json, text/event-stream", "application/json", "text/event-stream"},
		{"text/event-stream", "text/event-stream", "text/event-stream"},
		{"application/json", "application/json", "application/json"},
		{"application/json;q=0.9, text/event-stream;q=0", "application/json", "application/json"},
		{"*/*", "application/json", "text/event-stream"},
		{"-", "application/json", "text/event-stream"},
		{"text/html", "", ""},
	} {
		for _, srv := range []struct {
			ts    *echoServer
			sid   string
			ctype string
		}{{lazy, lazySID, c.lazy}, {atOnce, atOnceSID, c.atOnce}} {
			resp := srv.ts.do(t, request{session: srv.sid, accept: c.accept, body: fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"echo"}`, i)})
			resp.Body.Close()
			got := resp.Header.Get("Content-Type")
			if srv.ctype == "" {
				if resp.StatusCode != http.StatusNotAcceptable {
					t.Errorf("Accept %q: status %d, want 406", c.accept, resp.StatusCode)
				}
				continue
			}
			if got != srv.ctype {
				t.Errorf("Accept %q, AnswerWait %v: Content-Type %q, want %q", c.accept, srv.ts.h.opts.AnswerWait, got, srv.ctype)
			}
		}
	}
}

func TestServerCancelledRequestEndsItsStream(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{}, func(ts *echoServer) {
		ts.connOpts = jsonrpc.Options{Cancellation: jsonrpc.CancelMCP}
	})
	sid := ts.hello(t)
	cancel := func(id int) {
		resp := ts.do(t, request{session: sid, body: fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`, id)})
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("cancellation: status %d", resp.StatusCode)
		}
	}
	resp := ts.call(t, sid, 5, "wait", "")
	defer resp.Body.Close()
	stream := newSSE(t, resp)
	waitFor(t, ts.started, long, "the request's handler starting")
	cancel(5)
	stream.end(t) // no answer comes; the stream ends
	if m := ts.callJSON(t, sid, 5, "echo", `[5]`); fmt.Sprint(m["result"]) != "[5]" {
		t.Fatalf("reusing the cancelled id: %v", m)
	}

	status := make(chan int, 1)
	go func() {
		r, err := ts.try(context.Background(), request{session: sid, accept: "application/json", body: `{"jsonrpc":"2.0","id":6,"method":"wait"}`})
		if err != nil {
			status <- 0
			return
		}
		r.Body.Close()
		status <- r.StatusCode
	}()
	waitFor(t, ts.started, long, "the request's handler starting")
	cancel(6)
	if got := waitFor(t, status, long, "the JSON POST's answer"); got != http.StatusAccepted {
		t.Fatalf("cancelled JSON request: status %d, want 202", got)
	}
}
