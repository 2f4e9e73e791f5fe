package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkRPCMCP measures an MCP tools/call round trip over Streamable
// HTTP (see mcphttp.go). Names read
// op=tools-call/transport=http/callers=1/impl=rpcgen; the name starts with
// RPC so that make bench runs it with the other rows.
func BenchmarkRPCMCP(b *testing.B) {
	b.Run("op=tools-call", func(b *testing.B) {
		b.Run("transport=http", func(b *testing.B) {
			for _, callers := range callerCounts {
				b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
					for _, im := range mcpImpls {
						b.Run("impl="+im.name, func(b *testing.B) { runMCP(b, im, callers) })
					}
				})
			}
		})
	})
}

// runMCP makes b.N tools/call round trips split among callers goroutines;
// starting and closing the session are not timed.
func runMCP(b *testing.B, im mcpImpl, callers int) {
	ctx := context.Background()
	s, err := im.start(ctx)
	if err != nil {
		b.Fatalf("start %s: %v", im.name, err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			b.Errorf("close: %v", err)
		}
	}()
	var (
		next   atomic.Int64
		failed atomic.Pointer[error]
		wg     sync.WaitGroup
	)
	n := int64(b.N)
	b.ResetTimer()
	for range callers {
		wg.Go(func() {
			for i := next.Add(1); i <= n; i = next.Add(1) {
				sum, err := s.Add(ctx, i, 2)
				if err == nil && sum != i+2 {
					err = fmt.Errorf("add(%d, 2) = %d", i, sum)
				}
				if err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	if errp := failed.Load(); errp != nil {
		b.Fatalf("tools/call: %v", *errp)
	}
}

// TestMCPImplementations checks that both MCP implementations answer
// tools/call correctly with many callers at once, and stop cleanly.
func TestMCPImplementations(t *testing.T) {
	for _, im := range mcpImpls {
		t.Run("impl="+im.name, func(t *testing.T) {
			ctx := context.Background()
			s, err := im.start(ctx)
			if err != nil {
				t.Fatalf("start: %v", err)
			}
			var wg sync.WaitGroup
			for c := range 16 {
				wg.Go(func() {
					for i := range 8 {
						a := int64(c*100 + i)
						if sum, err := s.Add(ctx, a, 2); err != nil || sum != a+2 {
							t.Errorf("add(%d, 2) = %d, %v", a, sum, err)
						}
					}
				})
			}
			wg.Wait()
			if err := s.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
		})
	}
}
