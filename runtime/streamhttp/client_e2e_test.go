package streamhttp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// tallyProto is a small protocol that is not MCP, to show the transport
// serves any: "open" starts a session and names the revision in "rev";
// "add" sends an "added" notification, then answers the sum; "confirm"
// asks the client (client/approve) before answering; "block" waits until
// cancelled; "poll" ends its event stream at once, then notifies
// "progress" and answers once released; "broadcast" makes the server send
// "news" unrelated to any request, which travels on the GET stream.
var tallyProto = Protocol{
	Path:           "/tally",
	Handshake:      "open",
	SessionHeader:  "Tally-Session",
	VersionHeader:  "Tally-Revision",
	VersionField:   "rev",
	DefaultVersion: "1",
}

// tallyServer runs tallyProto behind our Handler.
type tallyServer struct {
	url       string
	handler   *Handler
	blocked   chan struct{}      // a "block" handler started
	cancelled chan string        // methods whose handler saw its context end
	release   chan struct{}      // lets "poll" answer
	conns     chan *jsonrpc.Conn // the server side of each session
	said      chan string        // params of each "said" notification
}

func newTallyServer(t *testing.T, opts ServerOptions) *tallyServer {
	t.Helper()
	ts := &tallyServer{blocked: make(chan struct{}, 4), cancelled: make(chan string, 4), release: make(chan struct{}, 4), conns: make(chan *jsonrpc.Conn, 16), said: make(chan string, 16)}
	ts.handler = NewHandler(tallyProto, func(s *Session) {
		ts.conns <- jsonrpc.NewConn(s, jsonrpc.Options{
			Handler:      jsonrpc.HandlerFunc(ts.handle),
			Handshake:    "open",
			Cancellation: jsonrpc.CancelLSP,
		})
	}, opts)
	srv := httptest.NewServer(ts.handler)
	ts.url = srv.URL + tallyProto.Path
	t.Cleanup(func() {
		if err := ts.handler.Close(); err != nil {
			t.Errorf("Handler.Close: %v", err)
		}
		srv.Close()
	})
	return ts
}

func (ts *tallyServer) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	conn := jsonrpc.ConnFromContext(ctx)
	switch req.Method {
	case "open":
		return map[string]string{"rev": "2"}, nil
	case "add":
		var nums []int
		if err := req.DecodeParams(&nums); err != nil {
			return nil, err
		}
		sum := 0
		for _, n := range nums {
			sum += n
		}
		if err := conn.Notify(ctx, "added", map[string]int{"count": len(nums)}); err != nil {
			return nil, err
		}
		return sum, nil
	case "confirm":
		var ok bool
		if err := conn.Call(ctx, "client/approve", req.Params, &ok); err != nil {
			return nil, err
		}
		return map[string]bool{"approved": ok}, nil
	case "block":
		ts.blocked <- struct{}{}
		<-ctx.Done()
		ts.cancelled <- req.Method
		return nil, ctx.Err()
	case "poll":
		if err := CloseStream(ctx, 30*time.Millisecond); err != nil {
			return nil, err
		}
		if err := conn.Notify(ctx, "progress", map[string]int{"step": 1}); err != nil {
			return nil, err
		}
		select {
		case <-ts.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return "polled", nil
	case "said":
		ts.said <- string(req.Params)
		return nil, nil
	case "broadcast":
		go func() { _ = conn.Notify(context.Background(), "news", []string{"hello"}) }()
		return "sent", nil
	}
	return nil, jsonrpc.MethodNotFound(req.Method)
}

// TestClientEndToEnd runs our client against our server over the tally
// protocol: calls both ways, notifications on the POST and GET streams,
// cancellation, a stream the server ends with CloseStream that the client
// resumes, and Close ending the server's session.
func TestClientEndToEnd(t *testing.T) {
	ts := newTallyServer(t, ServerOptions{Versions: []string{"2"}})
	stream, err := Dial(context.Background(), ts.url, tallyProto, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	notes := make(chan string, 16)
	client := jsonrpc.NewConn(stream, jsonrpc.Options{
		Cancellation: jsonrpc.CancelLSP,
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method == "client/approve" {
				return string(req.Params) == `["spend"]`, nil
			}
			notes <- req.Method + " " + string(req.Params)
			return nil, nil
		}),
	})
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	var opened struct{ Rev string }
	if err := client.Call(ctx, "open", nil, &opened); err != nil || opened.Rev != "2" {
		t.Fatalf("open = %+v, %v", opened, err)
	}
	if stream.SessionID() == "" || stream.Version() != "2" {
		t.Fatalf("session %q, revision %q", stream.SessionID(), stream.Version())
	}
	server := within(t, ts.conns, 10*time.Second, "the server's session")
	if err := client.Notify(ctx, "opened", nil); err != nil { // opens the GET stream
		t.Fatal(err)
	}

	t.Run("call with a related notification", func(t *testing.T) {
		var sum int
		if err := client.Call(ctx, "add", []int{1, 2, 3}, &sum); err != nil || sum != 6 {
			t.Fatalf("add = %d, %v", sum, err)
		}
		if n := within(t, notes, 10*time.Second, "the added notification"); n != `added {"count":3}` {
			t.Errorf("notification %q", n)
		}
	})
	t.Run("server calls the client", func(t *testing.T) {
		var res struct{ Approved bool }
		if err := client.Call(ctx, "confirm", []string{"spend"}, &res); err != nil || !res.Approved {
			t.Fatalf("confirm = %+v, %v", res, err)
		}
	})
	t.Run("unrelated notification on the GET stream", func(t *testing.T) {
		if err := client.Call(ctx, "broadcast", nil, nil); err != nil {
			t.Fatal(err)
		}
		if n := within(t, notes, 10*time.Second, "the news"); n != `news ["hello"]` {
			t.Errorf("notification %q", n)
		}
	})
	t.Run("cancellation", func(t *testing.T) {
		cctx, ccancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- client.Call(cctx, "block", nil, nil) }()
		within(t, ts.blocked, 10*time.Second, "the server handling the call")
		ccancel()
		if err := within(t, done, 10*time.Second, "the cancelled call"); !errors.Is(err, context.Canceled) {
			t.Errorf("call = %v, want context.Canceled", err)
		}
		if m := within(t, ts.cancelled, 10*time.Second, "the server handler's cancellation"); m != "block" {
			t.Errorf("cancelled %q", m)
		}
	})
	t.Run("CloseStream and resumption", func(t *testing.T) {
		out := make(chan error, 1)
		var res string
		go func() { out <- client.Call(ctx, "poll", nil, &res) }()
		if n := within(t, notes, 10*time.Second, "the progress sent after the stream closed"); n != `progress {"step":1}` {
			t.Errorf("notification %q", n)
		}
		ts.release <- struct{}{}
		if err := within(t, out, 10*time.Second, "the answer on the resumed stream"); err != nil || res != "polled" {
			t.Fatalf("poll = %q, %v", res, err)
		}
	})

	if err := client.Close(); err != nil {
		t.Fatal(err)
	}
	within(t, server.Done(), 10*time.Second, "the server's session ending after DELETE")
	var raw json.RawMessage
	if err := client.Call(ctx, "add", []int{1}, &raw); err == nil {
		t.Error("a call after Close succeeded")
	}
}

// TestClientJSONServerCallsBack: a server answering with application/json
// sends its response headers only with the answer, and sends the
// messages of a request it is serving on the GET stream. When such a
// request calls the client back, the client's answer must not wait for
// the headers of the request it unblocks.
func TestClientJSONServerCallsBack(t *testing.T) {
	ts := newTallyServer(t, ServerOptions{JSONResponse: true})
	stream, err := Dial(context.Background(), ts.url, tallyProto, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	client := jsonrpc.NewConn(stream, jsonrpc.Options{
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			return true, nil
		}),
	})
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := client.Call(ctx, "open", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := client.Notify(ctx, "opened", nil); err != nil {
		t.Fatal(err)
	}
	var res struct{ Approved bool }
	if err := client.Call(ctx, "confirm", []string{"x"}, &res); err != nil || !res.Approved {
		t.Fatalf("confirm = %+v, %v", res, err)
	}
}

// TestClientJSONServerCancel: with a server answering with
// application/json, the cancellation of a call in progress reaches the
// server (after at most HeaderWait) instead of waiting for the headers of
// the answer it cancels.
func TestClientJSONServerCancel(t *testing.T) {
	ts := newTallyServer(t, ServerOptions{JSONResponse: true})
	stream, err := Dial(context.Background(), ts.url, tallyProto, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	client := jsonrpc.NewConn(stream, jsonrpc.Options{Cancellation: jsonrpc.CancelLSP})
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := client.Call(ctx, "open", nil, nil); err != nil {
		t.Fatal(err)
	}
	cctx, ccancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- client.Call(cctx, "block", nil, nil) }()
	within(t, ts.blocked, 10*time.Second, "the server handling the call")
	ccancel()
	if err := within(t, done, 10*time.Second, "the cancelled call"); !errors.Is(err, context.Canceled) {
		t.Errorf("call = %v", err)
	}
	within(t, ts.cancelled, 10*time.Second, "the server handler's cancellation")
	var sum int
	if err := client.Call(ctx, "add", []int{2, 2}, &sum); err != nil || sum != 4 {
		t.Errorf("add after the cancellation = %d, %v", sum, err)
	}
}
