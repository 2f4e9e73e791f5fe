package streamhttp

import (
	"context"
	"net/http"
	"testing"
)

// A session ended by DELETE reaches no client any more: its connection
// cancels the handler still running at once instead of letting it finish
// for jsonrpc.Options.FinishTimeout (30 s, past the wait below).
func TestServerDeleteCancelsRunningHandlers(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	sid := ts.hello(t)
	conn := waitFor(t, ts.conns, long, "a connection")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		resp, err := ts.try(ctx, request{session: sid, body: `{"jsonrpc":"2.0","id":1,"method":"wait"}`})
		if err == nil {
			resp.Body.Close()
		}
	}()
	waitFor(t, ts.started, long, "the wait handler to start")
	del := ts.do(t, request{method: http.MethodDelete, session: sid})
	del.Body.Close()
	if del.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: status %d", del.StatusCode)
	}
	waitFor(t, conn.Done(), long, "the connection to end with its handler cancelled")
}
