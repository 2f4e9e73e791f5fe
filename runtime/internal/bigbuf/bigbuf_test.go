package bigbuf

import (
	"runtime"
	"testing"
	"unsafe"
	"weak"
)

// same reports whether a and b start at the same address.
func same(a, b []byte) bool { return unsafe.SliceData(a) == unsafe.SliceData(b) }

// drain empties every pool.
func drain() {
	for k := range pools {
		for pools[k].Get() != nil {
		}
	}
}

// tries is how many times a test puts a buffer back before it expects to
// get it again: a sync.Pool may drop what it is given (under the race
// detector, one Put in four) or keep it for another P.
const tries = 64

// TestReuse checks that a buffer Make returned and that was put back is
// what a later Get of its size returns, for sizes across the classes.
func TestReuse(t *testing.T) {
	for _, size := range []int{MinSize, MinSize + 1, 100 << 10, 1<<20 + 60, 5 << 20} {
		reused := false
		for range tries {
			drain()
			b := Make(size)
			Put(b)
			g := Get(size)
			if g != nil && (len(g) != size || cap(g) < size) {
				t.Fatalf("Get(%d) returned len %d, cap %d", size, len(g), cap(g))
			}
			if same(g, b) {
				reused = true
				break
			}
		}
		if !reused {
			t.Errorf("a buffer of %d bytes put back was never returned by Get in %d tries", size, tries)
		}
	}
}

// TestGetNeverShort checks that Get does not return a pooled buffer
// smaller than asked, and that the buffer it passed over is still there
// for a shorter request.
func TestGetNeverShort(t *testing.T) {
	reused := false
	for range tries {
		drain()
		b := make([]byte, 100<<10) // class 0, as 120 KiB is
		Put(b)
		if g := Get(120 << 10); g != nil {
			t.Fatalf("Get(120 KiB) returned a buffer of capacity %d, from an empty pool but for 100 KiB", cap(g))
		}
		if g := Get(90 << 10); same(g, b) {
			reused = true
			break
		}
	}
	if !reused {
		t.Error("the buffer Get passed over as too small was not kept")
	}
}

// TestSmallNotPooled checks that Get and Put ignore buffers below MinSize.
func TestSmallNotPooled(t *testing.T) {
	drain()
	for range tries {
		Put(make([]byte, 10, MinSize-1))
	}
	if g := Get(MinSize - 1); g != nil {
		t.Errorf("Get(MinSize-1) returned a buffer of capacity %d", cap(g))
	}
	for k := range pools {
		if pools[k].Get() != nil {
			t.Errorf("class %d holds a buffer below MinSize", k)
		}
	}
}

// TestMakeSize checks that Make returns n bytes, pooled or new.
func TestMakeSize(t *testing.T) {
	drain()
	for _, n := range []int{0, 1, MinSize - 1, MinSize, 3 << 20} {
		if b := Make(n); len(b) != n {
			t.Errorf("Make(%d) returned %d bytes", n, len(b))
		}
	}
}

// TestReleasedWhenUnused checks that the pools give a buffer's memory
// back when it goes unused through garbage collections: nothing keeps
// what a burst of large messages left behind.
func TestReleasedWhenUnused(t *testing.T) {
	drain()
	b := make([]byte, 1<<20)
	w := weak.Make(&b[0])
	Put(b)
	for range 3 {
		runtime.GC()
	}
	if w.Value() != nil {
		t.Error("a pooled buffer unused through three garbage collections is still held")
	}
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
		if b := Make(n); len(b) != n || cap(b) != classSize(k) {
			t.Errorf("Make(%d): len %d, cap %d, want cap %d", n, len(b), cap(b), classSize(k))
		}
	}
	if classOf(MinSize-1) >= 0 || classFor(MinSize-1) >= 0 {
		t.Error("a buffer below MinSize has a class")
	}
}
