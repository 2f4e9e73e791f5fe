package streamhttp

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// TestCloseDeliversWrittenNotification: a notification written just
// before Close reaches the server; Close does not cancel its POST. Each
// round is a new session, so that a POST cancelled even once fails the
// test.
func TestCloseDeliversWrittenNotification(t *testing.T) {
	ts := newTallyServer(t, ServerOptions{Versions: []string{"2"}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for round := range 10 {
		stream, err := Dial(ctx, ts.url, tallyProto, ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		client := jsonrpc.NewConn(stream, jsonrpc.Options{})
		if err := client.Call(ctx, "open", nil, nil); err != nil {
			t.Fatalf("round %d: open: %v", round, err)
		}
		server := within(t, ts.conns, 10*time.Second, "the server's session")
		want := fmt.Sprintf(`{"round":%d}`, round)
		if err := client.Notify(ctx, "said", map[string]int{"round": round}); err != nil {
			t.Fatalf("round %d: notify: %v", round, err)
		}
		if err := client.Close(); err != nil {
			t.Fatalf("round %d: close: %v", round, err)
		}
		if got := within(t, ts.said, 10*time.Second, "the notification written before Close"); got != want {
			t.Fatalf("round %d: the server got %s, want %s", round, got, want)
		}
		within(t, server.Done(), 10*time.Second, "the server's session ending")
	}
}
