package transport_test

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// A JSON-RPC server on TCP, one client call, and a graceful shutdown.
func ExampleServer() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	srv := &transport.Server{
		Handler: func(ctx context.Context, c net.Conn) {
			conn := jsonrpc.NewConn(c, jsonrpc.Options{
				Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
					return "hello from " + req.Method, nil
				}),
			})
			defer conn.Close()
			select {
			case <-conn.Done(): // the client went away
			case <-ctx.Done(): // the server is shutting down
			}
		},
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	c, err := transport.Dial(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	client := jsonrpc.NewConn(c, jsonrpc.Options{})
	var reply string
	err = client.Call(context.Background(), "greet", nil, &reply)
	fmt.Println(reply, err)
	client.Close()

	fmt.Println("shutdown:", srv.Shutdown(context.Background()))
	fmt.Println("serve:", errors.Is(<-served, transport.ErrServerClosed))
	// Output:
	// hello from greet <nil>
	// shutdown: <nil>
	// serve: true
}
