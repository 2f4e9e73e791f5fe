package jsonrpc_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// tenantKey is the context key of the examples' per-connection value.
type tenantKey struct{}

// A server's handlers get their values from Options.BaseContext, and
// cancelling it stops every running handler on shutdown: the peer still
// gets an answer, and the connection stays open until it is closed.
func ExampleOptions_baseContext() {
	a, b := transport.Pipe()

	base, shutdown := context.WithCancel(context.WithValue(context.Background(), tenantKey{}, "acme"))
	defer shutdown()
	started := make(chan struct{})
	server := jsonrpc.NewConn(a, jsonrpc.Options{
		BaseContext: base,
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			tenant := ctx.Value(tenantKey{}).(string)
			if req.Method == "whoami" {
				return tenant, nil
			}
			close(started)
			<-ctx.Done() // a long job, until shutdown
			return nil, jsonrpc.NewError(-32000, "shutting down", tenant)
		}),
	})
	defer server.Close()
	client := jsonrpc.NewConn(b, jsonrpc.Options{})
	defer client.Close()

	ctx := context.Background()
	var tenant string
	err := client.Call(ctx, "whoami", nil, &tenant)
	fmt.Println(tenant, err)

	answered := make(chan error, 1)
	go func() { answered <- client.Call(ctx, "job", nil, nil) }()
	<-started
	shutdown()
	var rpcErr *jsonrpc.Error
	if err := <-answered; errors.As(err, &rpcErr) {
		fmt.Println(rpcErr.Code, rpcErr.Message)
	}
	// Output:
	// acme <nil>
	// -32000 shutting down
}
