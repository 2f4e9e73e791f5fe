package jsonrpc_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// text is the params of the examples' methods.
type text struct {
	Text string `json:"text"`
}

// number is the params of the examples' arithmetic methods.
type number struct {
	N int `json:"n"`
}

// Two peers over an in-memory pipe, each calling the other: either side
// of a connection can send requests and answer them.
func ExampleConn_Call() {
	a, b := transport.Pipe()

	upper := jsonrpc.NewConn(a, jsonrpc.Options{
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			var p text
			if err := req.DecodeParams(&p); err != nil {
				return nil, err
			}
			return strings.ToUpper(p.Text), nil
		}),
	})
	defer upper.Close()

	length := jsonrpc.NewConn(b, jsonrpc.Options{
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			var p text
			if err := req.DecodeParams(&p); err != nil {
				return nil, err
			}
			return len(p.Text), nil
		}),
	})
	defer length.Close()

	ctx := context.Background()
	var n int
	if err := upper.Call(ctx, "length", text{"hello"}, &n); err != nil {
		fmt.Println("error:", err)
		return
	}
	var s string
	if err := length.Call(ctx, "upper", text{"hello"}, &s); err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(n, s)
	// Output: 5 HELLO
}

// A method the peer does not handle fails with the peer's *Error, which
// matches the predefined errors under errors.Is.
func ExampleError() {
	a, b := transport.Pipe()
	client := jsonrpc.NewConn(a, jsonrpc.Options{})
	defer client.Close()
	server := jsonrpc.NewConn(b, jsonrpc.Options{}) // no handler
	defer server.Close()

	err := client.Call(context.Background(), "missing", nil, nil)
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		fmt.Println(rpcErr.Code, rpcErr.Message)
	}
	fmt.Println(errors.Is(err, jsonrpc.ErrMethodNotFound))
	// Output:
	// -32601 Method not found
	// true
}

// A batch sends several calls in one message and sets each element's
// Result and Err from the peer's answers.
func ExampleConn_Batch() {
	a, b := transport.Pipe()
	server := jsonrpc.NewConn(b, jsonrpc.Options{
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method != "square" {
				return nil, jsonrpc.ErrMethodNotFound
			}
			var p number
			if err := req.DecodeParams(&p); err != nil {
				return nil, err
			}
			return p.N * p.N, nil
		}),
	})
	defer server.Close()
	client := jsonrpc.NewConn(a, jsonrpc.Options{})
	defer client.Close()

	var two, three int
	calls := []*jsonrpc.BatchCall{
		{Method: "square", Params: number{2}, Result: &two},
		{Method: "square", Params: number{3}, Result: &three},
		{Method: "cube", Params: number{4}},
	}
	if err := client.Batch(context.Background(), calls); err != nil {
		fmt.Println("batch not sent:", err)
		return
	}
	for _, c := range calls {
		fmt.Printf("%s: %v\n", c.Method, c.Err)
	}
	fmt.Println(two, three)
	// Output:
	// square: <nil>
	// square: <nil>
	// cube: jsonrpc error -32601: Method not found
	// 4 9
}
