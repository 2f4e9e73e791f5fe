package jsonrpc

import (
	"context"
	"net"
	"testing"
)

// BenchmarkBatch sends batches of 8 requests over an in-memory pipe, with
// no outgoing middleware (the common case, which must stay as fast as a
// batch that bypassed middleware) and with one pass-through middleware.
func BenchmarkBatch(b *testing.B) {
	pass := func(next SendFunc) SendFunc { return next }
	for _, bc := range []struct {
		name string
		mw   []OutgoingMiddleware
	}{{"nomw", nil}, {"mw", []OutgoingMiddleware{pass}}} {
		b.Run(bc.name, func(b *testing.B) {
			s1, s2 := net.Pipe()
			echo := HandlerFunc(func(ctx context.Context, req *Request) (any, error) { return req.Params, nil })
			client := NewConn(s1, Options{Outgoing: bc.mw})
			server := NewConn(s2, Options{Handler: echo})
			defer server.Close()
			defer client.Close()
			ctx := context.Background()
			calls := make([]*BatchCall, 8)
			results := make([][]int, len(calls))
			b.ReportAllocs()
			for b.Loop() {
				for i := range calls {
					calls[i] = &BatchCall{Method: "echo", Params: []int{i}, Result: &results[i]}
				}
				if err := client.Batch(ctx, calls); err != nil {
					b.Fatal(err)
				}
				for _, c := range calls {
					if c.Err != nil {
						b.Fatal(c.Err)
					}
				}
			}
		})
	}
}
