package supex_test

import (
	"context"
	"errors"
	"net"
	"testing"

	"github.com/rpcgen/rpcgen/generated/supex"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

type sessionKey struct{}

// blockingRuntime answers ping once its context ends, saying which
// session its context carried.
type blockingRuntime struct {
	supex.UnimplementedRuntime
	started chan string
}

func (r blockingRuntime) Ping(ctx context.Context) (*supex.PingResult, error) {
	session, _ := ctx.Value(sessionKey{}).(string)
	r.started <- session
	<-ctx.Done()
	return nil, ctx.Err()
}

// jsonrpc.Options.BaseContext passed to a generated Connect function
// reaches the implementation's methods, and cancelling it stops them.
func TestBaseContextReachesGeneratedServer(t *testing.T) {
	a, b := net.Pipe()
	base, cancel := context.WithCancel(context.WithValue(context.Background(), sessionKey{}, "s1"))
	defer cancel()
	impl := blockingRuntime{started: make(chan string, 1)}
	runtime := supex.ConnectRuntime(b, impl, jsonrpc.Options{BaseContext: base})
	t.Cleanup(func() { runtime.Close() })
	driver, rt := supex.ConnectDriver(a, jsonrpc.Options{})
	t.Cleanup(func() { driver.Close() })

	answered := make(chan error, 1)
	go func() {
		_, err := rt.Ping(ctxT(t))
		answered <- err
	}()
	if session := <-impl.started; session != "s1" {
		t.Errorf("Ping saw session %q, want s1", session)
	}
	cancel()
	var rpcErr *jsonrpc.Error
	if err := <-answered; !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInternalError {
		t.Errorf("Ping cancelled by the base context: %v, want -32603", err)
	}
}
