package streamhttp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// fails the same way) and Close sends no DELETE.
func testClientSessionGone(t *testing.T) {
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		if r.Method == http.MethodPost && h.Msg.Method == "work" {
			http.Error(w, "no such session", http.StatusNotFound)
			return
		}
		mcpBasics(w, r, h)
	})
	c, s := connect(t, ts, ClientOptions{}, nil)
	out := within(t, callAsync(c, "work", nil), 10*time.Second, "the failed call")
	if !errors.Is(out.err, ErrSessionNotFound) {
		t.Fatalf("call error = %v, want ErrSessionNotFound", out.err)
	}
	var he *HTTPError
	if !errors.As(out.err, &he) || he.StatusCode != 404 || !strings.Contains(he.Body, "no such session") {
		t.Errorf("call error = %v, want an HTTPError 404", out.err)
	}
	within(t, c.Done(), 10*time.Second, "the connection's end")
	if err := c.Err(); !errors.Is(err, ErrSessionNotFound) {
		t.Errorf("the connection ended with %v", err)
	}
	if err := s.failure(); !errors.Is(err, ErrSessionNotFound) || strings.Count(err.Error(), "streamhttp: ") != 1 {
		t.Errorf("the stream ended with %q, want ErrSessionNotFound with one streamhttp: prefix", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case h := <-ts.hits:
			if h.Method == http.MethodDelete {
				t.Fatal("DELETE sent for a session the server forgot")
			}
			continue
		default:
		}
		break
	}
}

// carries the WWW-Authenticate header, and the call waiting fails with it.
func testClientUnauthorized(t *testing.T) {
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://x/.well-known/oauth-protected-resource"`)
		w.WriteHeader(http.StatusUnauthorized)
	})
	s := dial(t, ts, ClientOptions{})
	c := jsonrpc.NewConn(s, jsonrpc.Options{})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := c.Call(ctx, "initialize", nil, nil)
	var he *HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusUnauthorized || he.Method != http.MethodPost {
		t.Fatalf("call error = %v, want an HTTPError 401", err)
	}
	if !strings.Contains(he.Header.Get("WWW-Authenticate"), "resource_metadata") {
		t.Errorf("WWW-Authenticate = %q", he.Header.Get("WWW-Authenticate"))
	}
}

// with -32603 carrying the status; the session carries on.
func testClientHTTPErrorAnswers(t *testing.T) {
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		switch {
		case mcpBasics(w, r, h):
		case h.Msg.Method == "bad":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: nope"}}`)
		case h.Msg.Method == "broken":
			http.Error(w, "kaput", http.StatusInternalServerError)
		case h.Msg.Method == "wrongtype":
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, "<html>")
		default:
			writeJSON(w, nil, result(h.Msg.ID, `"ok"`))
		}
	})
	c, _ := connect(t, ts, ClientOptions{}, nil)
	var je *jsonrpc.Error
	out := within(t, callAsync(c, "bad", nil), 10*time.Second, "the 400 call")
	if !errors.As(out.err, &je) || je.Code != -32600 || je.Message != "Bad Request: nope" {
		t.Errorf("400: %v", out.err)
	}
	out = within(t, callAsync(c, "broken", nil), 10*time.Second, "the 500 call")
	if !errors.As(out.err, &je) || je.Code != CodeHTTPFailure || !strings.Contains(string(je.Data), `"status":500`) || !strings.Contains(string(je.Data), "kaput") {
		t.Errorf("500: %v (data %s)", out.err, je.Data)
	}
	out = within(t, callAsync(c, "wrongtype", nil), 10*time.Second, "the text/html call")
	if !errors.As(out.err, &je) || je.Code != CodeHTTPFailure || !strings.Contains(je.Message, "text/html") {
		t.Errorf("text/html: %v", out.err)
	}
	out = within(t, callAsync(c, "fine", nil), 10*time.Second, "the good call")
	if out.err != nil || string(out.res) != `"ok"` {
		t.Errorf("after errors: %s %v", out.res, out.err)
	}
}

// is logged, nothing read.
func TestClientEmptyJSONToNotification(t *testing.T) {
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		switch {
		case h.Msg.Method == "note":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
		case !mcpBasics(w, r, h):
			writeJSON(w, nil, result(h.Msg.ID, "1"))
		}
	})
	logs := &logSink{}
	c, s := connect(t, ts, ClientOptions{Logger: newTextLogger(logs)}, nil)
	if err := c.Notify(context.Background(), "note", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(context.Background(), "x", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // waits for the body readers
		t.Fatal(err)
	}
	if l := logs.String(); l != "" {
		t.Errorf("logged: %s", l)
	}
}

// the handshake fails at once with the network error.
func testClientUnreachable(t *testing.T) {
	ts := newTestServer(t, func(http.ResponseWriter, *http.Request, hit) {})
	url := ts.URL
	ts.Close()
	s, err := Dial(context.Background(), url+"/mcp", testProto, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := jsonrpc.NewConn(s, jsonrpc.Options{})
	defer c.Close()
	out := within(t, callAsync(c, "initialize", nil), 10*time.Second, "the failed handshake")
	var opErr *net.OpError
	if !errors.As(out.err, &opErr) || !strings.Contains(out.err.Error(), "POST") {
		t.Fatalf("call error = %v, want the network error", out.err)
	}
}

// request again, replaying its body.
type authTransport struct{ retried atomic.Int64 }

func (a *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	resp.Body.Close()
	again := req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		again.Body = body
	}
	again.Header.Set("Authorization", "Bearer t0k3n")
	a.retried.Add(1)
	return http.DefaultTransport.RoundTrip(again)
}

// extra Header.
func TestClientRoundTripperAndHeaders(t *testing.T) {
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		if r.Header.Get("Authorization") != "Bearer t0k3n" {
			w.Header().Set("WWW-Authenticate", "Bearer")
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if r.Header.Get("X-Tenant") != "blue" {
			t.Errorf("%s without the extra header", r.Method)
		}
		if !mcpBasics(w, r, h) {
			writeJSON(w, nil, result(h.Msg.ID, string(h.Msg.Params)))
		}
	})
	rt := &authTransport{}
	c, _ := connect(t, ts, ClientOptions{HTTPClient: &http.Client{Transport: rt}, Header: http.Header{"X-Tenant": {"blue"}}}, nil)
	var res []int
	if err := c.Call(context.Background(), "echo", []int{7}, &res); err != nil || len(res) != 1 || res[0] != 7 {
		t.Fatalf("echo = %v, %v", res, err)
	}
	if rt.retried.Load() == 0 {
		t.Error("the transport never retried")
	}
}

// TestClientExactMemberNames: the client reads members as the
// jsonrpc.Conn does, by exact name: {"Id": 2, ...} answers nothing, so
// the stream that owed the answer and ends without it fails the call at
// once instead of leaving it waiting.
func TestClientExactMemberNames(t *testing.T) {
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		if h.Msg.Method == "work" {
			startSSE(w, nil)
			sse(w, `data: {"jsonrpc":"2.0","Id":`+string(h.Msg.ID)+`,"result":1}`+"\n\n")
			return
		}
		mcpBasics(w, r, h)
	})
	c, _ := connect(t, ts, ClientOptions{}, nil)
	out := within(t, callAsync(c, "work", nil), 10*time.Second, "the call's failure")
	var je *jsonrpc.Error
	if !errors.As(out.err, &je) || je.Code != CodeHTTPFailure {
		t.Fatalf("call error = %v, want -32603", out.err)
	}
}

// TestFailPendingSkipsAnswered: a request answered on another stream gets
// no made-up error when the stream that owed its answer fails.
func TestFailPendingSkipsAnswered(t *testing.T) {
	s, err := Dial(context.Background(), "http://127.0.0.1:1/", testProto, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.expect([]json.RawMessage{json.RawMessage("1"), json.RawMessage("2")})
	s.noteAnswer(json.RawMessage("1"), []byte(result([]byte("1"), "true")+"\n"))
	s.failPending(pendingOf("1", "2"), errors.New("lost"))
	if got := string(<-s.incoming); !strings.Contains(got, `"id":2`) {
		t.Errorf("made-up answer %s, want one for id 2", got)
	}
	select {
	case line := <-s.incoming:
		t.Errorf("a second made-up answer: %s", line)
	default:
	}
}
