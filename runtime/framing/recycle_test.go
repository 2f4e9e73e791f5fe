package framing_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// frames writes msgs with f and returns a reader of them.
func frames(t *testing.T, f framing.Framing, msgs ...string) framing.Reader {
	t.Helper()
	var wire bytes.Buffer
	w := f.NewWriter(&wire)
	for _, m := range msgs {
		if err := w.Write([]byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	return f.NewReader(&wire, framing.Limits{})
}

func mustRead(t *testing.T, r framing.Reader, want string) []byte {
	t.Helper()
	got, err := r.Read()
	if err != nil || string(got) != want {
		t.Fatalf("Read() = %.40q, %v; want %.40q", got, err, want)
	}
	return got
}

// same reports whether a and b start at the same address.
func same(a, b []byte) bool { return unsafe.SliceData(a) == unsafe.SliceData(b) }

func TestRecycle(t *testing.T) {
	big := `"` + strings.Repeat("b", 100<<10) + `"`
	for _, f := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
		t.Run(f.Name(), func(t *testing.T) {
			r := frames(t, f, `{"first":1}`, `[2]`, `{"third":"longer than the first"}`, `4`, big, `6`)
			rec, ok := r.(framing.Recycler)
			if !ok {
				t.Fatalf("%T does not implement framing.Recycler", r)
			}
			first := mustRead(t, r, `{"first":1}`)
			rec.Recycle(first)
			second := mustRead(t, r, `[2]`)
			if !same(first, second) {
				t.Error("a shorter frame after Recycle did not reuse the handed-back one")
			}
			rec.Recycle(second)
			third := mustRead(t, r, `{"third":"longer than the first"}`)
			if same(second, third) {
				t.Error("a frame too small for the next message was reused")
			}
			// The too-small frame was dropped: nothing is left to reuse.
			fourth := mustRead(t, r, `4`)
			if same(fourth, second) || same(fourth, third) {
				t.Error("a dropped or still-owned frame was reused")
			}
			if string(third) != `{"third":"longer than the first"}` {
				t.Errorf("a frame not handed back changed to %q", third)
			}
			// A frame above the kept size is not held on to.
			fifth := mustRead(t, r, big)
			rec.Recycle(fifth)
			if sixth := mustRead(t, r, `6`); same(sixth, fifth) {
				t.Error("a frame of 100 KiB was kept for reuse")
			}
		})
	}
}

// TestRecycleAllocs checks that reading into a handed-back frame
// allocates nothing.
func TestRecycleAllocs(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":12,"result":{"sum":5}}`
	for _, f := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
		t.Run(f.Name(), func(t *testing.T) {
			var wire bytes.Buffer
			w := f.NewWriter(&wire)
			for range 200 {
				if err := w.Write([]byte(msg)); err != nil {
					t.Fatal(err)
				}
			}
			r := f.NewReader(&wire, framing.Limits{})
			rec := r.(framing.Recycler)
			rec.Recycle(mustRead(t, r, msg))
			allocs := testing.AllocsPerRun(100, func() {
				rec.Recycle(mustRead(t, r, msg))
			})
			if allocs != 0 {
				t.Errorf("Read after Recycle: %v allocations, want 0", allocs)
			}
		})
	}
}

// TestRecycleConcurrent hands frames back from other goroutines while
// Read runs, as a connection does; run it with -race.
func TestRecycleConcurrent(t *testing.T) {
	for _, f := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
		t.Run(f.Name(), func(t *testing.T) {
			var msgs []string
			for i := range 2000 {
				msgs = append(msgs, `{"n":"`+strings.Repeat("x", i%97)+`"}`)
			}
			r := frames(t, f, msgs...)
			rec := r.(framing.Recycler)
			back := make(chan []byte, 16)
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					for b := range back {
						rec.Recycle(b)
					}
				})
			}
			for _, want := range msgs {
				got := mustRead(t, r, want)
				back <- got
			}
			close(back)
			wg.Wait()
		})
	}
}
