package jsonrpc

import (
	"context"
	"io"
	"net"
	"testing"
)

// BenchmarkTrace is a call round trip without a trace hook (off), with a
// TraceWriter writing to io.Discard on both peers (on), and with a shared
// Metrics on both peers (metrics).
func BenchmarkTrace(b *testing.B) {
	for _, tc := range []struct {
		name string
		opts func() Options
	}{
		{"off", func() Options { return Options{} }},
		{"on", func() Options { return Options{Trace: (&TraceWriter{W: io.Discard}).Trace} }},
		{"metrics", func() Options { return Options{Metrics: new(Metrics)} }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cs, ss := net.Pipe()
			co, so := tc.opts(), tc.opts()
			so.Handler = HandlerFunc(addHandler)
			client, server := NewConn(cs, co), NewConn(ss, so)
			defer server.Close()
			defer client.Close()
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				var r addResult
				if err := client.Call(ctx, "add", addParams{A: 1, B: 2}, &r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFrameHooks is what a connection does for each frame read and
// written besides reading and writing it: counting, and tracing when set.
// Unlike a round trip it does not wait on the scheduler, so it shows the
// hooks' own cost.
func BenchmarkFrameHooks(b *testing.B) {
	frame := []byte(`{"jsonrpc":"2.0","id":1,"result":{"sum":3}}`)
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"off", Options{}},
		{"on", Options{Trace: (&TraceWriter{W: io.Discard}).Trace}},
		{"metrics", Options{Metrics: new(Metrics)}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s, peer := net.Pipe()
			defer peer.Close()
			c := NewConn(s, tc.opts)
			defer c.Close()
			b.ReportAllocs()
			for b.Loop() {
				c.frameIn(frame)
				c.frameOut(frame)
			}
		})
	}
}
