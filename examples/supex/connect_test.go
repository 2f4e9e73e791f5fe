package supex_test

import (
	"encoding/json"
	"net"
	"testing"

	"github.com/rpcgen/rpcgen/generated/supex"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// The driver receives nothing, so ConnectDriver takes no handler; a
// request the runtime sends it anyway is answered with -32601 naming the
// method, and the connection carries on.
func TestDriverAnswersMethodNotFound(t *testing.T) {
	a, b := net.Pipe()
	driver, rt := supex.ConnectDriver(a, jsonrpc.Options{})
	t.Cleanup(func() { driver.Close() })
	runtime := supex.ConnectRuntime(b, supex.UnimplementedRuntime{}, jsonrpc.Options{})
	t.Cleanup(func() { runtime.Close() })
	ctx := ctxT(t)

	err := runtime.Call(ctx, "roots/list", nil, nil)
	e := wantCode(t, err, jsonrpc.ErrMethodNotFound)
	var data struct{ Method string }
	if err := json.Unmarshal(e.Data, &data); err != nil || data.Method != "roots/list" {
		t.Errorf("-32601 data %s: want the method roots/list", e.Data)
	}

	// The driver's side still calls the runtime.
	_, err = rt.Ping(ctx)
	wantCode(t, err, jsonrpc.ErrMethodNotFound)
}
