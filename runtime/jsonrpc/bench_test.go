package jsonrpc

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// benchTransports are the streams benchmarks run over.
var benchTransports = []struct {
	name string
	pair func(b *testing.B) (io.ReadWriteCloser, io.ReadWriteCloser)
}{
	{"mem", func(b *testing.B) (io.ReadWriteCloser, io.ReadWriteCloser) { return net.Pipe() }},
	{"ospipe", osPipePair},
}

// osPipePair returns two streams joined by a pair of OS pipes.
func osPipePair(b *testing.B) (io.ReadWriteCloser, io.ReadWriteCloser) {
	r1, w1, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	r2, w2, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	return pipeEnd{r1, w2}, pipeEnd{r2, w1}
}

type pipeEnd struct {
	r *os.File
	w *os.File
}

func (p pipeEnd) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeEnd) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeEnd) Close() error {
	p.w.Close()
	return p.r.Close()
}

// forEachSetup runs body for every transport, framing and caller count.
func forEachSetup(b *testing.B, body func(b *testing.B, client, server io.ReadWriteCloser, f framing.Framing, callers int)) {
	for _, tr := range benchTransports {
		for _, f := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
			for _, callers := range []int{1, 64} {
				b.Run(fmt.Sprintf("%s/%s/callers=%d", tr.name, f.Name(), callers), func(b *testing.B) {
					c, s := tr.pair(b)
					body(b, c, s, f, callers)
				})
			}
		}
	}
}

// spread runs n iterations of f over the given number of goroutines.
func spread(b *testing.B, callers int, f func() error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	n := int64(b.N)
	for range callers {
		wg.Go(func() {
			for next.Add(1) <= n {
				if err := f(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func BenchmarkCallAdd(b *testing.B) {
	forEachSetup(b, func(b *testing.B, cs, ss io.ReadWriteCloser, f framing.Framing, callers int) {
		client := NewConn(cs, Options{Framing: f})
		server := NewConn(ss, Options{Framing: f, Handler: HandlerFunc(addHandler)})
		defer server.Close()
		defer client.Close()
		ctx := context.Background()
		b.ReportAllocs()
		b.ResetTimer()
		spread(b, callers, func() error {
			var r addResult
			return client.Call(ctx, "add", addParams{A: 1, B: 2}, &r)
		})
	})
}

func BenchmarkCallEcho1KiB(b *testing.B) {
	payload := strings.Repeat("x", 1024)
	echo := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		var p struct {
			S string `json:"s"`
		}
		if err := req.DecodeParams(&p); err != nil {
			return nil, err
		}
		return p, nil
	})
	forEachSetup(b, func(b *testing.B, cs, ss io.ReadWriteCloser, f framing.Framing, callers int) {
		client := NewConn(cs, Options{Framing: f})
		server := NewConn(ss, Options{Framing: f, Handler: echo})
		defer server.Close()
		defer client.Close()
		ctx := context.Background()
		b.ReportAllocs()
		b.SetBytes(2 * 1024)
		b.ResetTimer()
		spread(b, callers, func() error {
			var r struct {
				S string `json:"s"`
			}
			return client.Call(ctx, "echo", map[string]string{"s": payload}, &r)
		})
	})
}

func BenchmarkNotify(b *testing.B) {
	forEachSetup(b, func(b *testing.B, cs, ss io.ReadWriteCloser, f framing.Framing, callers int) {
		var got atomic.Int64
		all := make(chan struct{})
		n := int64(b.N)
		server := NewConn(ss, Options{Framing: f, Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			if got.Add(1) == n {
				close(all)
			}
			return nil, nil
		})})
		client := NewConn(cs, Options{Framing: f})
		defer server.Close()
		defer client.Close()
		ctx := context.Background()
		params := addParams{A: 1, B: 2}
		b.ReportAllocs()
		b.ResetTimer()
		spread(b, callers, func() error { return client.Notify(ctx, "tick", params) })
		<-all
	})
}

func BenchmarkDecodeMessage(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":17,"method":"add","params":{"a":1,"b":2}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeMessage(msg); err != nil {
			b.Fatal(err)
		}
	}
}
