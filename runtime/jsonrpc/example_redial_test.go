package jsonrpc_test

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// A Redialer dials again when the server has closed the connection. Here
// Dial opens an in-memory pipe to a server of its own; a real one would
// call transport.Dial.
func ExampleRedialer() {
	var (
		mu      sync.Mutex
		servers []*jsonrpc.Conn
	)
	serve := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		return "pong", nil
	})
	r := &jsonrpc.Redialer{
		Dial: func(ctx context.Context) (io.ReadWriteCloser, error) {
			client, server := transport.Pipe()
			mu.Lock()
			defer mu.Unlock()
			servers = append(servers, jsonrpc.NewConn(server, jsonrpc.Options{Handler: serve}))
			fmt.Println("dial", len(servers))
			return client, nil
		},
	}
	defer r.Close()
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range servers {
			s.Close()
		}
	}()

	ctx := context.Background()
	ping := func() {
		var reply string
		if err := r.Call(ctx, "ping", nil, &reply); err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Println(reply)
	}

	ping()
	ping() // the same connection

	// The server closes the connection; the client sees it end.
	first, err := r.Conn(ctx)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	mu.Lock()
	servers[0].Close()
	mu.Unlock()
	<-first.Done()

	ping() // a new connection
	// Output:
	// dial 1
	// pong
	// pong
	// dial 2
	// pong
}
