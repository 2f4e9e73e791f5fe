package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// ops are the measured operations, in benchmark order: add, echo of a 1 KiB
// ASCII text and the notification tick, then echo of 64 KiB and of 1 MiB,
// echo of 1 KiB that needs escaping, and a didOpen of a 100 KB source file
// in several scripts.
var ops = []string{"add", "echo", "notify", "echo64k", "echo1m", "escape", "didopen"}

// echoText returns the text an echo operation sends, and false for the other
// operations.
func echoText(op string) (string, bool) {
	switch op {
	case "echo":
		return makeText(1<<10, 0), true
	case "echo64k":
		return makeText(64<<10, 0), true
	case "echo1m":
		return makeText(1<<20, 0), true
	case "escape":
		return escapeText(1<<10, 0), true
	}
	return "", false
}

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

// noteWaiter counts notifications until it has seen want of them.
type noteWaiter struct {
	n       atomic.Int64
	want    int64
	done    chan struct{}
	textLen int                    // the length of every didOpen's text
	bad     atomic.Pointer[string] // the first didOpen whose text differs in length
}

func (w *noteWaiter) note() {
	if w.n.Add(1) == w.want {
		close(w.done)
	}
}

func (w *noteWaiter) sink() sink {
	return sink{
		tick: func(int64) { w.note() },
		didOpen: func(d document) {
			if len(d.Text) != w.textLen {
				msg := fmt.Sprintf("didOpen %d carried %d bytes of text, want %d", d.Version, len(d.Text), w.textLen)
				w.bad.CompareAndSwap(nil, &msg)
			}
			w.note()
		},
	}
}

// runOp measures b.N operations split among callers goroutines. Setting up
// and closing the connection are not timed; for notify and didopen the timer
// stops once the server has received all b.N notifications.
func runOp(b *testing.B, im impl, tr transport, f framingKind, op string, callers int) {
	doc := sourceDocument(0)
	notes := &noteWaiter{want: int64(b.N), done: make(chan struct{}), textLen: len(doc.Text)}
	s := open(b, im, tr, f, notes.sink())
	defer func() {
		if err := s.Close(); err != nil {
			b.Errorf("close: %v", err)
		}
	}()
	ctx := context.Background()
	text, isEcho := echoText(op)
	var (
		next     atomic.Int64
		failed   atomic.Pointer[error]
		wg       sync.WaitGroup
		do       func(i int64) error
		checkLen = len(text)
	)
	if isEcho {
		op = "echo"
	}
	notify := op == "notify" || op == "didopen"
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
	case "didopen":
		do = func(i int64) error {
			d := doc
			d.Version = i
			return s.DidOpen(ctx, d)
		}
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
	if notify {
		select {
		case <-notes.done:
		case <-time.After(time.Minute):
			b.Fatalf("the server received %d of %d notifications", notes.n.Load(), n)
		}
	}
	b.StopTimer()
	if msg := notes.bad.Load(); msg != nil {
		b.Fatal(*msg)
	}
}
