package framing_test

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"
	"weak"

	"github.com/rpcgen/rpcgen/runtime/framing"
	"github.com/rpcgen/rpcgen/runtime/internal/bigbuf"
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
			frames := map[*byte]bool{unsafe.SliceData(prev): true}
			bytes := allocated(func() {
				for i := 1; i <= count; i++ {
					rec.Recycle(prev)
					prev = mustRead(t, r, msgs[i])
					frames[unsafe.SliceData(prev)] = true
				}
			})
			// NDJSON gathers a line in a buffer of its size class, which
			// may be the frame handed back: two frames take turns.
			t.Logf("%d frames for %d messages, %d bytes allocated per message", len(frames), count+1, bytes/count)
			if len(frames) > 3 {
				t.Errorf("%d frames for %d messages, each handed back: want at most 3", len(frames), count+1)
			}
			if bound := uint64(n / 4); bytes/count > bound {
				t.Errorf("reading a 600 KB message handed back each time allocated %d bytes on average, want at most %d", bytes/count, bound)
			}
		})
	}
}

// TestBigFrameNotKept checks that a reader does not keep a large frame
// handed back: once the shared pool lets go of it (as it does when unused
// for a while), it is collected while the reader lives on.
func TestBigFrameNotKept(t *testing.T) {
	for _, f := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
		r := frames(t, f, bigMsg(1<<20, 'x'), `{}`)
		frame, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		w := weak.Make(&frame[0])
		r.(framing.Recycler).Recycle(frame)
		bigbuf.Release()
		for range 2 {
			runtime.GC()
		}
		if w.Value() != nil {
			t.Errorf("%s: a 1 MiB frame handed back is still held once the pool let go of it", f.Name())
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
	// A line gathered anew, should its pooled buffer have been dropped,
	// takes 6 buffers and 4 MiB besides its frame: the bounds allow that
	// once in a while.
	const maxAllocs, maxBytes = 2.0, uint64(2 * n)
	perLine := total / (count + 1)
	t.Logf("%.1f allocations, %d bytes per line", allocs, perLine)
	if allocs > maxAllocs || perLine > maxBytes {
		t.Errorf("reading a 1 MiB line: %.1f allocations and %d bytes, want at most %.0f and %d", allocs, perLine, maxAllocs, maxBytes)
	}
}
