package streamhttp

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"
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
	posted := make(chan error, 1)
	go func() {
		resp, err := ts.try(ctx, request{session: sid, version: "v1", body: `{"jsonrpc":"2.0","id":1,"method":"wait"}`})
		if err == nil {
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("status %s", resp.Status)
			} else {
				<-ctx.Done() // the stream stays open until the test ends
			}
		}
		posted <- err
	}()
	select {
	case <-ts.started:
	case err := <-posted:
		t.Fatalf("the wait request failed before its handler started: %v", err)
	case <-time.After(long):
		t.Fatal("the wait handler did not start")
	}
	del := ts.do(t, request{method: http.MethodDelete, session: sid})
	del.Body.Close()
	if del.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: status %d", del.StatusCode)
	}
	waitFor(t, conn.Done(), long, "the connection to end with its handler cancelled")
}
