package idl

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

// manyTypes returns a valid protocol declaring n named types: strings,
// objects referring to earlier types, enums and unions.
func manyTypes(n int) []byte {
	var b strings.Builder
	b.WriteString(validHead + "types:\n")
	for i := range n {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "  T%d: string\n", i)
		case 1:
			fmt.Fprintf(&b, "  T%d: {fields: {a%d: T%d, b?: \"[]integer\"}}\n", i, i, i-1)
		case 2:
			fmt.Fprintf(&b, "  T%d: \"'x%d' | 'y%d'\"\n", i, i, i)
		case 3:
			fmt.Fprintf(&b, "  T%d: \"T%d | T%d\"\n", i, i-2, i-3)
		}
	}
	return []byte(b.String())
}

// BenchmarkParseTypes measures loading a protocol of n named types; the
// time per type should not grow with n.
func BenchmarkParseTypes(b *testing.B) {
	noFiles := func(string) ([]byte, error) { return nil, fs.ErrNotExist }
	for _, n := range []int{1000, 5000, 10000, 100000} {
		src := manyTypes(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, err := parse("bench.yaml", src, noFiles); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
