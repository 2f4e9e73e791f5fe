package idl

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
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

// shapes are protocols of n parts that once took time growing with the
// square of n: wide mappings and lists, long chains and cycles, unions of
// many variants and many unknown names. Some are invalid: their errors
// are part of what is measured.
var shapes = map[string]func(n int) []byte{
	"indistinct_variants": indistinct,
	"distinct_variants": func(n int) []byte { // every variant chosen for some object
		var b strings.Builder
		b.WriteString(validHead + "types:\n")
		var names []string
		for i := range n {
			fmt.Fprintf(&b, "  O%d: {fields: {a%d: string, shared?: string}}\n", i, i)
			names = append(names, fmt.Sprintf("O%d", i))
		}
		fmt.Fprintf(&b, "  U: %s\n", strings.Join(names, " | "))
		return []byte(b.String())
	},
	"alias_cycle":   aliasCycle,
	"extends_chain": extendsChain,
	"repeated_variant": func(n int) []byte {
		return []byte(validHead + "types:\n  A: {fields: {a: string}}\n  T: \"" + strings.Repeat("A | ", n-1) + "A\"\n")
	},
	"union_chain": func(n int) []byte {
		var b strings.Builder
		b.WriteString(validHead + "types:\n  O: {fields: {a: string}}\n  U0: string | O\n")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, "  U%d: U%d | O%d\n  O%d: {fields: {o%d: string}}\n", i, i-1, i, i, i)
		}
		return []byte(b.String())
	},
	"required_cycles": func(n int) []byte {
		var b strings.Builder
		b.WriteString(validHead + "types:\n")
		for i := range n {
			fmt.Fprintf(&b, "  T%d: {fields: {next: T%d, first: T0}}\n", i, (i+1)%n)
		}
		return []byte(b.String())
	},
	"unknown_types": func(n int) []byte {
		var b strings.Builder
		b.WriteString(validHead + "types:\n")
		for i := range n {
			fmt.Fprintf(&b, "  T%d: X%d\n", i, i)
		}
		return []byte(b.String())
	},
	"flow_fields": func(n int) []byte {
		var b strings.Builder
		b.WriteString(validHead + "types:\n  T: {fields: {")
		for i := range n {
			fmt.Fprintf(&b, "a%d: string, ", i)
		}
		b.WriteString("z: string}}\n")
		return []byte(b.String())
	},
	"compact_enum": func(n int) []byte {
		var b strings.Builder
		b.WriteString(validHead + "types:\n  T: \"'v0'")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, " | 'v%d'", i)
		}
		b.WriteString("\"\n")
		return []byte(b.String())
	},
	"methods": func(n int) []byte {
		var b strings.Builder
		b.WriteString(validHead + "methods:\n")
		for i := range n {
			fmt.Fprintf(&b, "  m%d: {from: a, kind: request, params: {fields: {x: string}}, result: {fields: {y: integer}}}\n", i)
		}
		return []byte(b.String())
	},
}

// BenchmarkParseShapes measures loading each of shapes at two sizes ten
// times apart; the time per part should not grow with n.
func BenchmarkParseShapes(b *testing.B) {
	noFiles := func(string) ([]byte, error) { return nil, fs.ErrNotExist }
	names := slices.Sorted(maps.Keys(shapes))
	for _, name := range names {
		for _, n := range []int{1000, 10000} {
			src := shapes[name](n)
			b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				for b.Loop() {
					_, _ = parse("bench.yaml", src, noFiles)
				}
			})
		}
	}
}
