package bench

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// makeText returns n bytes of printable ASCII that need no JSON escaping,
// varying with seed.
func makeText(n int, seed byte) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:-_"
	b := make([]byte, n)
	x := uint32(seed) + 1
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = alphabet[(x>>24)%uint32(len(alphabet))]
	}
	return string(b)
}

// open starts im on a new connection of tr with framing f.
func open(tb testing.TB, im impl, tr transport, f framingKind, on sink) session {
	tb.Helper()
	client, server, err := tr.pair()
	if err != nil {
		tb.Fatalf("%s: %v", tr.name, err)
	}
	s, err := im.start(client, server, f, on)
	if err != nil {
		closeAll(client, server)
		tb.Fatalf("start %s: %v", im.name, err)
	}
	return s
}
