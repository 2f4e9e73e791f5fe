package jsonrpc_test

import (
	"context"
	"fmt"
	"net"

	"github.com/rpcgen/rpcgen/runtime/framing"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// Two peers over an in-memory pipe: the host asks the extension to run a
// command, and the extension calls back into the host while handling it.
func Example() {
	hostEnd, extEnd := net.Pipe()

	host := jsonrpc.NewConn(hostEnd, jsonrpc.Options{
		Framing: framing.ContentLength,
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method == "editor/getMessage" {
				return map[string]string{"message": "MSH|^~\\&|HOST"}, nil
			}
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found", nil)
		}),
	})
	defer host.Close()

	ext := jsonrpc.NewConn(extEnd, jsonrpc.Options{
		Framing: framing.ContentLength,
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			var msg struct {
				Message string `json:"message"`
			}
			// Call back into the host over the same connection.
			if err := jsonrpc.ConnFromContext(ctx).Call(ctx, "editor/getMessage", nil, &msg); err != nil {
				return nil, err
			}
			return map[string]int{"length": len(msg.Message)}, nil
		}),
	})
	defer ext.Close()

	var result struct {
		Length int `json:"length"`
	}
	if err := host.Call(context.Background(), "command/execute", map[string]string{"command": "count"}, &result); err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println("message length:", result.Length)
	// Output: message length: 13
}
