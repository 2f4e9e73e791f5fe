package framing_test

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"weak"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// bigMsg returns a JSON string of n bytes made of c.
func bigMsg(n int, c byte) string { return `"` + strings.Repeat(string(c), n-2) + `"` }

// allocated returns the bytes allocated while f runs.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestBodySizesAroundGrowth reads bodies whose sizes sit on either side
// of where a Content-Length body buffer grows, arriving a few bytes at a
// time, and checks every byte.
func TestBodySizesAroundGrowth(t *testing.T) {
	var sizes []int
	for _, edge := range []int{64 << 10, 512 << 10} {
		sizes = append(sizes, edge-1, edge, edge+1)
	}
	sizes = append(sizes, 1<<20) // grows from 512 KiB to its length
	for _, f := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
		var wire bytes.Buffer
		w := f.NewWriter(&wire)
		var want []string
		for i, n := range sizes {
			m := bigMsg(n, byte('a'+i))
			want = append(want, m)
			if err := w.Write([]byte(m)); err != nil {
				t.Fatal(err)
			}
		}
		r := f.NewReader(iotest.HalfReader(&wire), framing.Limits{})
		for i, m := range want {
			got, err := r.Read()
			if err != nil || string(got) != m {
				t.Fatalf("%s: message %d (%d bytes): got %d bytes, %v", f.Name(), i, len(m), len(got), err)
			}
			r.(framing.Recycler).Recycle(got)
		}
		if _, err := r.Read(); err != io.EOF {
			t.Fatalf("%s: at the end: %v, want io.EOF", f.Name(), err)
		}
	}
}

// TestBigFrameReused checks that a frame over 64 KiB handed back is read
// into again by the next message of its size, whole: with every frame
// handed back, reading a 600 KB message allocates on average much less
// than the message.
func TestBigFrameReused(t *testing.T) {
	const n, count = 600_000, 24
	for _, f := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
		t.Run(f.Name(), func(t *testing.T) {
			var wire bytes.Buffer
			w := f.NewWriter(&wire)
			var msgs []string
			for i := range count + 1 {
				// Each message shorter than the one before, so a reused
				// frame holds old bytes past the new message's end.
				msgs = append(msgs, bigMsg(n-i, byte('a'+i%26)))
				if err := w.Write([]byte(msgs[i])); err != nil {
					t.Fatal(err)
				}
			}
			r := f.NewReader(&wire, framing.Limits{})
			rec := r.(framing.Recycler)
			prev := mustRead(t, r, msgs[0])
			reused := 0
			bytes := allocated(func() {
				for i := 1; i <= count; i++ {
					rec.Recycle(prev)
					got := mustRead(t, r, msgs[i])
					if same(got, prev) {
						reused++
					}
					prev = got
				}
			})
			t.Logf("%d of %d frames reused, %d bytes allocated per message", reused, count, bytes/count)
			if reused == 0 {
				t.Error("no frame handed back was read into again")
			}
			// Under the race detector a sync.Pool drops one buffer in four,
			// and a frame read anew takes about twice the message.
			bound := uint64(n / 4)
			if raceEnabled {
				bound = 2 * n
			}
			if bytes/count > bound {
				t.Errorf("reading a 600 KB message handed back each time allocated %d bytes on average, want at most %d", bytes/count, bound)
			}
		})
	}
}

// TestBigFrameNotKept checks that neither a reader nor anything else
// keeps a large frame handed back once the process stops using it: it is
// gone after garbage collections while the reader lives on.
func TestBigFrameNotKept(t *testing.T) {
	for _, f := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
		r := frames(t, f, bigMsg(1<<20, 'x'), `{}`)
		frame, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		w := weak.Make(&frame[0])
		r.(framing.Recycler).Recycle(frame)
		for range 3 {
			runtime.GC()
		}
		if w.Value() != nil {
			t.Errorf("%s: a 1 MiB frame handed back is still held after three garbage collections", f.Name())
		}
		mustRead(t, r, `{}`)
	}
}

// TestLongLineAllocs bounds what reading a 1 MiB NDJSON line that is not
// handed back allocates, once the pooled buffers it is gathered in are
// warm: its frame, and little more. (Before gathering in pooled buffers
// it took 10 allocations and 4 MiB: the line grew by doubling from 4 KiB.)
func TestLongLineAllocs(t *testing.T) {
	const n, count = 1<<20 + 60, 10
	var wire bytes.Buffer
	w := framing.NDJSON.NewWriter(&wire)
	for range count + 2 {
		if err := w.Write([]byte(bigMsg(n, 'y'))); err != nil {
			t.Fatal(err)
		}
	}
	r := framing.NDJSON.NewReader(&wire, framing.Limits{})
	if _, err := r.Read(); err != nil {
		t.Fatal(err)
	}
	var total uint64
	allocs := testing.AllocsPerRun(count, func() {
		total += allocated(func() {
			if b, err := r.Read(); err != nil || len(b) != n {
				panic(fmt.Sprint(len(b), err))
			}
		})
	})
	// A line gathered anew, when the pooled buffers are dropped or kept
	// for another P, takes 6 buffers and 4 MiB besides its frame: the
	// bounds allow that now and then. Under the race detector, which makes
	// a sync.Pool drop one buffer in four, they only rule out worse than
	// gathering anew every time.
	maxAllocs, maxBytes := 2.0, uint64(2*n)
	if raceEnabled {
		maxAllocs, maxBytes = 8, 6*n
	}
	perLine := total / (count + 1)
	t.Logf("%.1f allocations, %d bytes per line", allocs, perLine)
	if allocs > maxAllocs || perLine > maxBytes {
		t.Errorf("reading a 1 MiB line: %.1f allocations and %d bytes, want at most %.0f and %d", allocs, perLine, maxAllocs, maxBytes)
	}
}
