package bigbuf

import (
	"runtime"
	"testing"
	"time"
	"unsafe"
	"weak"
)

// same reports whether a and b start at the same address.
func same(a, b []byte) bool { return unsafe.SliceData(a) == unsafe.SliceData(b) }

// held returns how many buffers the pool holds.
func held() int {
	n := 0
	for k := range pool {
		pool[k].mu.Lock()
		n += len(pool[k].bufs)
		pool[k].mu.Unlock()
	}
	return n
}

// TestReuse checks that a buffer Make returned and that was put back is
// what a later Get of its size returns, for sizes across the classes,
// and that Get takes it out of the pool.
func TestReuse(t *testing.T) {
	for _, size := range []int{MinSize, MinSize + 1, 100 << 10, 1<<20 + 60, 5 << 20} {
		Release()
		b := Make(size)
		Put(b)
		g := Get(size)
		if len(g) != size || !same(g, b) {
			t.Errorf("Get(%d) after putting back a buffer of its size: len %d, same buffer %v", size, len(g), same(g, b))
		}
		if again := Get(size); again != nil {
			t.Errorf("Get(%d) returned a buffer a second time", size)
		}
	}
}

// TestGetNeverShort checks that Get does not return a pooled buffer
// smaller than asked, and that a buffer too small for one request is
// still there for a shorter one.
func TestGetNeverShort(t *testing.T) {
	Release()
	b := make([]byte, 100<<10) // in the 96 KiB class
	Put(b)
	if g := Get(100<<10 + 1); g != nil {
		t.Fatalf("Get(100 KiB + 1) returned a buffer of capacity %d, with only 100 KiB pooled", cap(g))
	}
	if g := Get(90 << 10); !same(g, b) {
		t.Error("a buffer of 100 KiB was not returned for 90 KiB")
	}
}

// TestSmallNotPooled checks that Get and Put ignore buffers below MinSize.
func TestSmallNotPooled(t *testing.T) {
	Release()
	Put(make([]byte, 10, MinSize-1))
	if g := Get(MinSize - 1); g != nil {
		t.Errorf("Get(MinSize-1) returned a buffer of capacity %d", cap(g))
	}
	if n := held(); n != 0 {
		t.Errorf("the pool holds %d buffers below MinSize", n)
	}
}

// TestKeepBounded checks that a class keeps at most keep(k) buffers, and
// that many classes keep at most keepBytes each.
func TestKeepBounded(t *testing.T) {
	Release()
	var bufs [][]byte
	for range 3 * maxKeep {
		bufs = append(bufs, Make(MinSize), Make(4<<20))
	}
	for _, b := range bufs {
		Put(b)
	}
	if got := len(pool[0].bufs); got != keep(0) || got > maxKeep {
		t.Errorf("the 64 KiB class holds %d buffers, want %d", got, keep(0))
	}
	k := classFor(4 << 20)
	if got := len(pool[k].bufs); got != keep(k) || got*classSize(k) > max(keepBytes, 2*classSize(k)) {
		t.Errorf("the 4 MiB class holds %d buffers, want %d", got, keep(k))
	}
	Release()
	if n := pooled.Load(); n != 0 {
		t.Errorf("the pool counts %d bytes once emptied", n)
	}
}

// TestPooledBounded checks that all classes together hold at most
// maxPooled bytes, however many classes are in use.
func TestPooledBounded(t *testing.T) {
	Release()
	defer func(m int64) { maxPooled = m }(maxPooled)
	maxPooled = 1 << 20
	var bufs [][]byte
	for k := range 8 { // 64 to 120 KiB, 64 buffers each kept at most
		for range 10 {
			bufs = append(bufs, make([]byte, 0, classSize(k)))
		}
	}
	for _, b := range bufs {
		Put(b)
	}
	total := 0
	for k := range pool {
		for _, b := range pool[k].bufs {
			total += cap(b)
		}
	}
	if total > int(maxPooled) || total < int(maxPooled)-classSize(8) || int64(total) != pooled.Load() {
		t.Errorf("the pool holds %d bytes (counted %d), want at most %d and near it", total, pooled.Load(), maxPooled)
	}
	Release()
}

// TestClasses checks the size classes: a buffer's class is the largest
// whose size it reaches, and the class asked for n bytes is the smallest
// whose every buffer holds n bytes, at most an eighth larger than n.
func TestClasses(t *testing.T) {
	if classSize(0) != MinSize || classSize(classes) != MinSize<<doublings {
		t.Fatalf("classes span %d to %d bytes", classSize(0), classSize(classes))
	}
	for k := range classes {
		if classSize(k) >= classSize(k+1) {
			t.Fatalf("class %d is not smaller than class %d", k, k+1)
		}
	}
	for _, n := range []int{MinSize, MinSize + 1, 72<<10 - 1, 72 << 10, 100 << 10, 1<<20 - 1, 1 << 20, 1<<20 + 60, 5<<20 + 3, 100 << 20} {
		k := classOf(n)
		if classSize(k) > n || classSize(k+1) <= n {
			t.Errorf("classOf(%d) = %d, of %d to %d bytes", n, k, classSize(k), classSize(k+1))
		}
		k = classFor(n)
		if size := classSize(k); size < n || size > n+n/steps || (k > 0 && classSize(k-1) >= n) {
			t.Errorf("classFor(%d) = %d, of %d bytes", n, k, size)
		}
		if n > 8<<20 {
			continue // not worth allocating
		}
		if b := Make(n); len(b) != n || cap(b) != classSize(k) {
			t.Errorf("Make(%d): len %d, cap %d, want cap %d", n, len(b), cap(b), classSize(k))
		}
	}
	if classOf(MinSize-1) >= 0 || classFor(MinSize-1) >= 0 {
		t.Error("a buffer below MinSize has a class")
	}
}

// TestSweepKeepsWhatIsUsed checks that a sweep keeps the buffers of a
// class used since the last sweep, and empties a class unused since.
func TestSweepKeepsWhatIsUsed(t *testing.T) {
	sweepMu.Lock() // no scheduled sweep in between
	defer sweepMu.Unlock()
	Release()
	Put(Make(MinSize))
	sweepLocked() // the class was used since the last sweep
	if held() != 1 {
		t.Fatal("a sweep right after a Put emptied the class")
	}
	sweepLocked() // unused for a whole period
	if n := held(); n != 0 {
		t.Errorf("%d buffers left after a sweep period without use", n)
	}
}

// TestReleasedWhenIdle checks that the pool gives a buffer's memory back
// by itself once unused: the sweeps Put schedules run until the pool is
// empty, and then no more are scheduled.
func TestReleasedWhenIdle(t *testing.T) {
	Release()
	sweeps := make(chan int, 16)
	f := func() { sweeps <- held() }
	swept.Store(&f)
	defer swept.Store(nil)
	b := Make(1 << 20)
	w := weak.Make(&b[0])
	Put(b)
	deadline := time.After(30 * time.Second) // turns a hang into a failure
	for left := -1; left != 0; {
		select {
		case left = <-sweeps:
		case <-deadline:
			t.Fatal("the pool was not emptied by its sweeps")
		}
	}
	for range 2 {
		runtime.GC()
	}
	if w.Value() != nil {
		t.Error("a buffer the pool let go of is still held")
	}
	if sweeping.Load() {
		t.Error("a sweep is still scheduled with the pool empty")
	}
}
