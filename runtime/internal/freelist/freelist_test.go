package freelist

import (
	"sync"
	"testing"
)

// TestList checks that a slice put back comes back for a message it fits,
// that one too small is dropped, and that a full list keeps no more.
func TestList(t *testing.T) {
	var l List
	if b := l.Get(1); b != nil {
		t.Fatalf("an empty list gave %d bytes", cap(b))
	}
	b := make([]byte, 10, 64)
	l.Put(b, 2)
	got := l.Get(32)
	if len(got) != 32 || &got[:1][0] != &b[:1][0] {
		t.Fatalf("Get(32) = %d bytes at another array, want the slice put back", len(got))
	}
	l.Put(make([]byte, 0, 8), 2)
	if got := l.Get(16); got != nil {
		t.Fatalf("Get(16) gave a slice of capacity %d", cap(got))
	}
	if got := l.Get(1); got != nil {
		t.Fatal("the slice too small was kept after Get dropped it")
	}
	for range 3 {
		l.Put(make([]byte, 0, 8), 2)
	}
	n := 0
	for l.Get(1) != nil {
		n++
	}
	if n != 2 {
		t.Errorf("a list of 2 slots gave back %d slices", n)
	}
	l.Put(nil, 2)
	if l.Get(0) != nil {
		t.Error("a slice of no capacity was kept")
	}
}

// TestListConcurrent puts and gets from several goroutines at once (for
// the race detector) and checks that no slice is handed out twice.
func TestListConcurrent(t *testing.T) {
	var l List
	var wg sync.WaitGroup
	var mu sync.Mutex
	out := map[*byte]bool{}
	for range 4 {
		wg.Go(func() {
			for range 1000 {
				b := l.Get(4)
				if b == nil {
					b = make([]byte, 4)
				}
				mu.Lock()
				if out[&b[0]] {
					t.Error("a slice was handed out twice")
				}
				out[&b[0]] = true
				mu.Unlock()
				mu.Lock()
				delete(out, &b[0])
				mu.Unlock()
				l.Put(b, 4)
			}
		})
	}
	wg.Wait()
	if n := testing.AllocsPerRun(100, func() { l.Put(l.Get(4), 4) }); n != 0 {
		t.Errorf("a get and a put allocate %v times, want 0", n)
	}
}
