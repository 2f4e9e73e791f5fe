package bench

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestImplementations checks that every implementation answers add and echo
// correctly and delivers every notification, on every framing and transport,
// with many callers at once.
func TestImplementations(t *testing.T) {
	want := map[string]bool{"rpcgen": true, "stdjson": true, "preencoded": true, "xexp": true, "jrpc2": true, "sourcegraph": true}
	for _, im := range impls {
		delete(want, im.name)
	}
	if len(want) > 0 {
		t.Fatalf("implementations not registered: %v", want)
	}
	for _, im := range impls {
		for _, f := range framings {
			for _, tr := range transports {
				t.Run(fmt.Sprintf("impl=%s/framing=%s/transport=%s", im.name, f, tr.name), func(t *testing.T) {
					if reason := im.unsupported[f]; reason != "" {
						t.Skip(reason)
					}
					checkSession(t, im, tr, f)
				})
			}
		}
	}
}

func checkSession(t *testing.T, im impl, tr transport, f framingKind) {
	const (
		callers = 16
		perCall = 8
		ticks   = 300
	)
	var (
		mu   sync.Mutex
		seen = make(map[int64]int)
		all  = make(chan struct{})
	)
	s := open(t, im, tr, f, func(seq int64) {
		mu.Lock()
		defer mu.Unlock()
		seen[seq]++
		if len(seen) == ticks && seen[seq] == 1 {
			close(all)
		}
	})
	defer func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			for i := range perCall {
				a, b := int64(c*1000+i), int64(-7*i+c)
				sum, err := s.Add(ctx, a, b)
				if err != nil {
					t.Errorf("add(%d, %d): %v", a, b, err)
					return
				}
				if sum != a+b {
					t.Errorf("add(%d, %d) = %d, want %d", a, b, sum, a+b)
				}
			}
			text := makeText(1024, byte(c))
			got, err := s.Echo(ctx, text)
			if err != nil {
				t.Errorf("echo: %v", err)
				return
			}
			if got != text {
				t.Errorf("echo of %d bytes returned %d bytes that differ", len(text), len(got))
			}
			for seq := c; seq < ticks; seq += callers {
				if err := s.Tick(ctx, int64(seq)); err != nil {
					t.Errorf("tick %d: %v", seq, err)
					return
				}
			}
		})
	}
	wg.Wait()
	select {
	case <-all:
	case <-ctx.Done():
	}
	mu.Lock()
	defer mu.Unlock()
	for seq := range int64(ticks) {
		if n := seen[seq]; n != 1 {
			t.Errorf("tick %d arrived %d times, want once", seq, n)
		}
	}
	if len(seen) != ticks {
		t.Errorf("%d distinct ticks arrived, want %d", len(seen), ticks)
	}
}
