package streamhttp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// methodLog records the HTTP method of every request reaching a handler.
type methodLog struct {
	mu      sync.Mutex
	methods []string
}

func (l *methodLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.methods = append(l.methods, r.Method)
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (l *methodLog) count(method string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range l.methods {
		if m == method {
			n++
		}
	}
	return n
}

func (l *methodLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return "[" + strings.Join(l.methods, " ") + "]"
}

// TestClientNoGETStream: with NoGETStream a whole session (the handshake,
// the notification after it, a call with a related notification, Close)
// sends no GET, and the DELETE still goes; without it the same session
// opens the GET stream.
func TestClientNoGETStream(t *testing.T) {
	for _, noGET := range []bool{true, false} {
		ts := newTallyServer(t, ServerOptions{Versions: []string{"2"}})
		var log methodLog
		srv := httptest.NewServer(log.wrap(ts.handler))
		defer srv.Close()
		stream, err := Dial(context.Background(), srv.URL+tallyProto.Path, tallyProto, ClientOptions{NoGETStream: noGET})
		if err != nil {
			t.Fatal(err)
		}
		notes := make(chan string, 4)
		client := jsonrpc.NewConn(stream, jsonrpc.Options{
			Handler: jsonrpc.HandlerFunc(func(_ context.Context, req *jsonrpc.Request) (any, error) {
				notes <- req.Method
				return nil, nil
			}),
		})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		if err := client.Call(ctx, "open", nil, nil); err != nil {
			t.Fatalf("open: %v", err)
		}
		server := within(t, ts.conns, 10*time.Second, "the server's session")
		if err := client.Notify(ctx, "opened", nil); err != nil {
			t.Fatal(err)
		}
		var sum int
		if err := client.Call(ctx, "add", []int{1, 2}, &sum); err != nil || sum != 3 {
			t.Fatalf("add = %d, %v", sum, err)
		}
		if n := within(t, notes, 10*time.Second, "the added notification"); n != "added" {
			t.Errorf("notification %q", n)
		}
		if err := client.Close(); err != nil {
			t.Fatal(err)
		}
		within(t, server.Done(), 10*time.Second, "the server's session ending after DELETE")
		cancel()
		gets, deletes := log.count(http.MethodGet), log.count(http.MethodDelete)
		switch {
		case noGET && gets != 0:
			t.Errorf("NoGETStream: %d GET requests reached the server: %s", gets, &log)
		case !noGET && gets != 1:
			t.Errorf("without NoGETStream: %d GET requests, want the GET stream: %s", gets, &log)
		}
		if deletes != 1 || log.count(http.MethodPost) != 3 {
			t.Errorf("NoGETStream %v: requests %s, want 3 POSTs and a DELETE", noGET, &log)
		}
	}
}
