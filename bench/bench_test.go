package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// ops are the measured operations, in benchmark order.
var ops = []string{"add", "echo", "notify"}

// callerCounts are the numbers of concurrent callers, in benchmark order.
var callerCounts = []int{1, 64}

// BenchmarkRPC runs every operation on every framing, transport, number of
// callers and implementation. Names read
// op=add/framing=cl/transport=pipe/callers=1/impl=rpcgen, so that benchstat
// can compare implementations with -col /impl.
func BenchmarkRPC(b *testing.B) {
	for _, op := range ops {
		b.Run("op="+op, func(b *testing.B) {
			for _, f := range framings {
				b.Run(fmt.Sprintf("framing=%s", f), func(b *testing.B) {
					for _, tr := range transports {
						b.Run("transport="+tr.name, func(b *testing.B) {
							for _, callers := range callerCounts {
								b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
									for _, im := range impls {
										b.Run("impl="+im.name, func(b *testing.B) {
											if reason := im.unsupported[f]; reason != "" {
												b.Skip(reason)
											}
											runOp(b, im, tr, f, op, callers)
										})
									}
								})
							}
						})
					}
				})
			}
		})
	}
}

// tickWaiter counts notifications until it has seen want of them.
type tickWaiter struct {
	n    atomic.Int64
	want int64
	done chan struct{}
}

func (w *tickWaiter) tick(int64) {
	if w.n.Add(1) == w.want {
		close(w.done)
	}
}

// runOp measures b.N operations split among callers goroutines. Setting up
// and closing the connection are not timed; for notify the timer stops once
// the server has received all b.N notifications.
func runOp(b *testing.B, im impl, tr transport, f framingKind, op string, callers int) {
	ticks := &tickWaiter{want: int64(b.N), done: make(chan struct{})}
	s := open(b, im, tr, f, ticks.tick)
	defer func() {
		if err := s.Close(); err != nil {
			b.Errorf("close: %v", err)
		}
	}()
	ctx := context.Background()
	text := makeText(1024, 0)
	var (
		next     atomic.Int64
		failed   atomic.Pointer[error]
		wg       sync.WaitGroup
		do       func(i int64) error
		checkLen = len(text)
	)
	switch op {
	case "add":
		do = func(i int64) error {
			sum, err := s.Add(ctx, i, 2)
			if err == nil && sum != i+2 {
				err = fmt.Errorf("add(%d, 2) = %d", i, sum)
			}
			return err
		}
	case "echo":
		do = func(int64) error {
			got, err := s.Echo(ctx, text)
			if err == nil && len(got) != checkLen {
				err = fmt.Errorf("echo returned %d bytes, want %d", len(got), checkLen)
			}
			return err
		}
	case "notify":
		do = func(i int64) error { return s.Tick(ctx, i) }
	default:
		b.Fatalf("unknown op %q", op)
	}
	n := int64(b.N)
	b.ResetTimer()
	for range callers {
		wg.Go(func() {
			for i := next.Add(1); i <= n; i = next.Add(1) {
				if err := do(i); err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
			}
		})
	}
	wg.Wait()
	if errp := failed.Load(); errp != nil {
		b.Fatalf("%s: %v", op, *errp)
	}
	if op == "notify" {
		select {
		case <-ticks.done:
		case <-time.After(time.Minute):
			b.Fatalf("the server received %d of %d notifications", ticks.n.Load(), n)
		}
	}
	b.StopTimer()
}
