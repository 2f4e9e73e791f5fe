package framing_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// benchMessages are a small (~60 byte) and a 1 KiB JSON-RPC message.
var benchMessages = []struct {
	name string
	msg  []byte
}{
	{"small", []byte(`{"jsonrpc":"2.0","id":42,"method":"ping","params":{"n":1}}`)},
	{"1KiB", []byte(`{"jsonrpc":"2.0","id":42,"method":"log","params":{"text":"` +
		strings.Repeat("x", 1024-61) + `"}}`)},
}

func BenchmarkRead(b *testing.B) {
	for _, f := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
		for _, bm := range benchMessages {
			b.Run(f.Name()+"/"+bm.name, func(b *testing.B) {
				var wire bytes.Buffer
				if err := f.NewWriter(&wire).Write(bm.msg); err != nil {
					b.Fatal(err)
				}
				r := f.NewReader(&cycleReader{data: wire.Bytes()}, framing.Limits{})
				b.SetBytes(int64(len(bm.msg)))
				b.ReportAllocs()
				for b.Loop() {
					if m, err := r.Read(); err != nil || len(m) != len(bm.msg) {
						b.Fatalf("Read = %d bytes, %v", len(m), err)
					}
				}
			})
		}
	}
}

func BenchmarkWrite(b *testing.B) {
	for _, f := range []framing.Framing{framing.ContentLength, framing.NDJSON} {
		for _, bm := range benchMessages {
			b.Run(f.Name()+"/"+bm.name, func(b *testing.B) {
				w := f.NewWriter(io.Discard)
				b.SetBytes(int64(len(bm.msg)))
				b.ReportAllocs()
				for b.Loop() {
					if err := w.Write(bm.msg); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
