package transport

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

type remoteKey struct{}

// A Handler that passes its ctx, with a value of its own, as
// jsonrpc.Options.BaseContext gives every request handler that value, and
// Shutdown cancels them: the client gets their answers before the
// connection ends.
func TestServerShutdownCancelsJSONRPCHandlers(t *testing.T) {
	started := make(chan struct{})
	s := &Server{Handler: func(ctx context.Context, c net.Conn) {
		ctx = context.WithValue(ctx, remoteKey{}, c.RemoteAddr().String())
		conn := jsonrpc.NewConn(c, jsonrpc.Options{
			BaseContext: ctx,
			Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
				close(started)
				<-ctx.Done()
				return nil, jsonrpc.NewError(-32000, "shutting down", ctx.Value(remoteKey{}))
			}),
		})
		<-conn.Done() // the client closes once answered
	}}
	ln := listen(t)
	errc := serveResult(t, s, ln)
	c := dial(t, ln.Addr())
	client := jsonrpc.NewConn(c, jsonrpc.Options{})
	answered := make(chan error, 1)
	go func() { answered <- client.Call(context.Background(), "job", nil, nil) }()
	<-started
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(context.Background()) }()
	var rpcErr *jsonrpc.Error
	if err := <-answered; !errors.As(err, &rpcErr) || rpcErr.Code != -32000 {
		t.Fatalf("call during shutdown: %v, want -32000", err)
	}
	var remote string
	if err := json.Unmarshal(rpcErr.Data, &remote); err != nil || remote != c.LocalAddr().String() {
		t.Errorf("handler saw remote %q (%v), want %s", remote, err, c.LocalAddr())
	}
	client.Close()
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if err := <-errc; !errors.Is(err, ErrServerClosed) {
		t.Errorf("Serve: %v", err)
	}
}
