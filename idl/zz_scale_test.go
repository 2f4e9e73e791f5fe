package idl

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func TestZZScale(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	gens := map[string]func(n int) string{
		"flowfields": func(n int) string {
			var b strings.Builder
			b.WriteString(validHead + "types:\n  T: {fields: {")
			for i := range n {
				fmt.Fprintf(&b, "a%d: string, ", i)
			}
			b.WriteString("z: string}}\n")
			return b.String()
		},
		"blockfields": func(n int) string {
			var b strings.Builder
			b.WriteString(validHead + "types:\n  T:\n    fields:\n")
			for i := range n {
				fmt.Fprintf(&b, "      a%d: string\n", i)
			}
			return b.String()
		},
		"enum": func(n int) string {
			var b strings.Builder
			b.WriteString(validHead + "types:\n  T:\n")
			for i := range n {
				fmt.Fprintf(&b, "  - v%d\n", i)
			}
			return b.String()
		},
		"compactenum": func(n int) string {
			var b strings.Builder
			b.WriteString(validHead + "types:\n  T: \"'v0'")
			for i := 1; i < n; i++ {
				fmt.Fprintf(&b, " | 'v%d'", i)
			}
			b.WriteString("\"\n")
			return b.String()
		},
		"aliaschain": func(n int) string {
			var b strings.Builder
			b.WriteString(validHead + "types:\n")
			for i := range n {
				fmt.Fprintf(&b, "  T%d: T%d\n", i, i+1)
			}
			fmt.Fprintf(&b, "  T%d: string\n", n)
			return b.String()
		},
		"unionchain": func(n int) string {
			var b strings.Builder
			b.WriteString(validHead + "types:\n  O: {fields: {a: string}}\n  U0: string | O\n")
			for i := 1; i < n; i++ {
				fmt.Fprintf(&b, "  U%d: U%d | integer\n", i, i-1)
			}
			return b.String()
		},
		"extendschain": func(n int) string {
			var b strings.Builder
			b.WriteString(validHead + "types:\n  T0: {fields: {a: string}}\n")
			for i := 1; i < n; i++ {
				fmt.Fprintf(&b, "  T%d: {extends: T%d, fields: {b%d: string}}\n", i, i-1, i)
			}
			return b.String()
		},
		"unknownrefs": func(n int) string {
			var b strings.Builder
			b.WriteString(validHead + "types:\n")
			for i := range n {
				fmt.Fprintf(&b, "  T%d: X%d\n", i, i)
			}
			return b.String()
		},
		"samevariants": func(n int) string {
			var b strings.Builder
			b.WriteString(validHead + "types:\n")
			var names []string
			for i := range n {
				fmt.Fprintf(&b, "  O%d: {fields: {a: string}}\n", i)
				names = append(names, fmt.Sprintf("O%d", i))
			}
			fmt.Fprintf(&b, "  U: %s\n", strings.Join(names, " | "))
			return b.String()
		},
		"repeatvariant": func(n int) string {
			return validHead + "types:\n  A: {fields: {a: string}}\n  T: \"" + strings.Repeat("A | ", n-1) + "A\"\n"
		},
		"methods": func(n int) string {
			var b strings.Builder
			b.WriteString(validHead + "methods:\n")
			for i := range n {
				fmt.Fprintf(&b, "  m%d: {from: a, kind: request, params: {fields: {x: string}}, result: {fields: {y: integer}}}\n", i)
			}
			return b.String()
		},
		"requiredcycle": func(n int) string {
			var b strings.Builder
			b.WriteString(validHead + "types:\n")
			for i := range n {
				fmt.Fprintf(&b, "  T%d: {fields: {n: T%d, z: T0}}\n", i, (i+1)%n)
			}
			return b.String()
		},
	}
	for name, g := range gens {
		if os.Getenv("ZZONLY") != "" && name != os.Getenv("ZZONLY") || os.Getenv("ZZONLY") == "" && name == "extendschain" {
			continue
		}
		var prev time.Duration
		for _, n := range []int{2000, 8000} {
			src := []byte(g(n))
			start := time.Now()
			_, err := Parse("s.yaml", src)
			d := time.Since(start)
			nerr, l := 0, 0
			if es, ok := err.(Errors); ok {
				nerr = len(es)
				l = len(es.Error())
			}
			t.Logf("%-14s n=%5d %8.3fs errors=%d bytes=%d ratio=%.1f", name, n, d.Seconds(), nerr, l, float64(d)/float64(max(prev, 1)))
			prev = d
		}
	}
}

func BenchmarkZZ(b *testing.B) {
	src := []byte(os.Getenv("ZZSRC"))
	if s, err := os.ReadFile(os.Getenv("ZZFILE")); err == nil {
		src = s
	}
	for b.Loop() {
		Parse("s.yaml", src)
	}
}
