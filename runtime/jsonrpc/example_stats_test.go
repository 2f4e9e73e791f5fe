package jsonrpc_test

import (
	"context"
	"encoding/json"
	"expvar"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// upperHandler answers "upper" with its text in capitals, and any other
// method with -32601.
var upperHandler = jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if req.Method != "upper" {
		return nil, jsonrpc.MethodNotFound(req.Method)
	}
	var p text
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	return strings.ToUpper(p.Text), nil
})

// A connection's counters after two calls, one answered with an error.
func ExampleConn_Stats() {
	a, b := transport.Pipe()
	server := jsonrpc.NewConn(a, jsonrpc.Options{Handler: upperHandler})
	defer server.Close()
	client := jsonrpc.NewConn(b, jsonrpc.Options{})
	defer client.Close()

	ctx := context.Background()
	_ = client.Call(ctx, "upper", text{"hi"}, nil)
	_ = client.Call(ctx, "lower", text{"HI"}, nil)

	c, s := client.Stats(), server.Stats()
	fmt.Println("client: messages out", c.MessagesOut, "in", c.MessagesIn, "errors received", c.ErrorsReceived, "calls in flight", c.CallsInFlight)
	fmt.Println("server: requests handled", s.RequestsHandled, "errors sent", s.ErrorsSent, "bytes in = client's bytes out:", s.BytesIn == c.BytesOut)
	// Output:
	// client: messages out 2 in 2 errors received map[-32601:1] calls in flight 0
	// server: requests handled 2 errors sent map[-32601:1] bytes in = client's bytes out: true
}

// serverMetrics counts every connection of the example's server; it is
// published once, when the program starts, under the name "rpc": an HTTP
// server serving expvar's handler (or http.DefaultServeMux, with expvar
// imported) shows it at /debug/vars.
var serverMetrics = func() *jsonrpc.Metrics {
	m := new(jsonrpc.Metrics)
	expvar.Publish("rpc", m)
	return m
}()

// One Metrics shared by the connections of a server, published with
// expvar: set it in the Options of each connection the server makes.
func ExampleMetrics() {
	ctx := context.Background()
	for _, word := range []string{"one", "two"} {
		a, b := transport.Pipe()
		server := jsonrpc.NewConn(a, jsonrpc.Options{Handler: upperHandler, Metrics: serverMetrics})
		defer server.Close()
		client := jsonrpc.NewConn(b, jsonrpc.Options{})
		defer client.Close()
		_ = client.Notify(ctx, "upper", text{word})
		_ = client.Call(ctx, "upper", text{word}, nil) // answered after the notification is read
	}

	var vars struct {
		Connections     int64           `json:"connections"`
		RequestsHandled int64           `json:"requests_handled"`
		ErrorsSent      map[int64]int64 `json:"errors_sent"`
		MessagesIn      int64           `json:"messages_in"`
	}
	if err := json.Unmarshal([]byte(expvar.Get("rpc").String()), &vars); err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Printf("%d connections, %d messages in, %d requests handled, errors sent: %v\n",
		vars.Connections, vars.MessagesIn, vars.RequestsHandled, vars.ErrorsSent)
	// Output:
	// 2 connections, 4 messages in, 2 requests handled, errors sent: map[]
}

// A wire trace of a call, as LSP's --trace shows it: each frame read or
// written on one line, with the time, its direction and its size.
func ExampleTraceWriter() {
	tracer := &jsonrpc.TraceWriter{
		W:     os.Stdout, // os.Stderr for a language server, whose stdout is the protocol
		Limit: 40,        // bytes of each frame shown
		// A fixed clock keeps the output below the same on every run.
		Now: func() time.Time { return time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC) },
	}
	a, b := transport.Pipe()
	server := jsonrpc.NewConn(a, jsonrpc.Options{Handler: upperHandler})
	defer server.Close()
	client := jsonrpc.NewConn(b, jsonrpc.Options{Trace: tracer.Trace})
	defer client.Close()

	var s string
	_ = client.Call(context.Background(), "upper", text{"a fairly long text, cut in the trace"}, &s)
	fmt.Println(s)
	// Output:
	// 15:04:05.000000 -> 98 {"jsonrpc":"2.0","id":1,"method":"upper"…
	// 15:04:05.000000 <- 72 {"jsonrpc":"2.0","id":1,"result":"A FAIR…
	// A FAIRLY LONG TEXT, CUT IN THE TRACE
}
