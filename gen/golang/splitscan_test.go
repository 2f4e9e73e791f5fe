package golang

import (
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/rpcgen/rpcgen/idl"
)

// trickySource holds what a scan of tokens must not mistake for the start
// or the end of a declaration, or for a declared name.
const trickySource = `// Package p is a test.
package p

import (
	_ "embed"
	. "fmt"
	js "encoding/json"
	"strings"
)

import "strconv"

var f = func() int {
	x := strconv.Itoa(1)
	return len(x)
}

var (
	a, b = 1, 2
	c    = struct {
		d int
	}{d: 3}
	_, e int
	g    = []func(){
		func() { h := 1; _ = h },
	}
)

const (
	k = iota
	l
)

type (
	_ int
	m[T any] struct{ v T }
	n = strings.Builder
)

type o struct {
	p js.RawMessage ` + "`json:\"p\"`" + `
}

// MarshalJSON is a codec method.
func (x *o) MarshalJSON() ([]byte, error) { return js.Marshal(table) }

func (x m[T]) AppendJSON(b []byte) []byte { return append(b, q(x.v)...) }

var table = map[string]int{"func": 1, "var x": 2}

func q(v any) string { s := Sprint(v); return s + (*strings.Builder).String(nil) + a.b.c }

func (o) String() string { var y any = 1; _ = y.(int); return ` + "`" + `
func not(a declaration) {}
` + "`" + ` }
`

// TestScanDeclsAsParsed checks that scanDecls finds what go/parser does:
// where each top-level declaration ends, its imports, the identifiers that
// qualify its selectors, and which declarations go to the codec, on a
// source made to mislead a scan of tokens and on generated files.
func TestScanDeclsAsParsed(t *testing.T) {
	src, err := format.Source([]byte(trickySource))
	if err != nil {
		t.Fatal(err)
	}
	checkScanDecls(t, src)
	p, err := idl.Load("../../protocols/lsp.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sources, err := splitSources(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(sources) != 3 {
		t.Fatalf("%d files split, want 3", len(sources))
	}
	for _, src := range sources {
		checkScanDecls(t, src)
	}
}

// FuzzScanDecls checks scanDecls against go/parser on any Go file that
// go/format formats.
func FuzzScanDecls(f *testing.F) {
	f.Add([]byte(trickySource))
	f.Add([]byte("package p\n\nfunc (T) MarshalJSON() {}\n\ntype T int\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		formatted, err := format.Source(src)
		if err != nil {
			return
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "", formatted, parser.SkipObjectResolution); err != nil {
			return // a list of declarations or statements, not a file
		}
		checkScanDecls(t, formatted)
	})
}

// checkScanDecls fails t when scanDecls and go/parser disagree on src.
func checkScanDecls(t *testing.T, src []byte) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	top, err := scanDecls(src)
	if err != nil {
		t.Fatalf("scanDecls: %v", err)
	}
	tf := fset.File(f.Pos())
	if len(top.decls) != len(f.Decls) {
		t.Fatalf("%d declarations, want %d", len(top.decls), len(f.Decls))
	}
	if want := tf.Offset(f.Name.End()); top.pkgEnd != want {
		t.Errorf("package clause ends at %d, want %d", top.pkgEnd, want)
	}
	wantImportStart := -1
	for i, d := range f.Decls {
		got := top.decls[i]
		if want := tf.Offset(d.End()); got.end != want {
			t.Errorf("declaration %d ends at %d, want %d", i, got.end, want)
		}
		var imports []importSpec
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			if wantImportStart < 0 {
				wantImportStart = tf.Offset(g.Pos())
			}
			imports = []importSpec{}
			for _, s := range g.Specs {
				s := s.(*ast.ImportSpec)
				spec := importSpec{path: s.Path.Value}
				if s.Name != nil {
					spec.name = s.Name.Name
				}
				imports = append(imports, spec)
			}
		}
		if !slices.Equal(got.imports, imports) || (got.imports == nil) != (imports == nil) {
			t.Errorf("declaration %d imports %q, want %q", i, got.imports, imports)
		}
		if imports != nil {
			continue
		}
		var quals []string
		ast.Inspect(d, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok {
					quals = append(quals, id.Name)
				}
			}
			return true
		})
		if !sameSet(got.quals, quals) {
			t.Errorf("declaration %d qualifies with %q, want %q", i, got.quals, quals)
		}
	}
	if top.importStart != wantImportStart {
		t.Errorf("imports start at %d, want %d", top.importStart, wantImportStart)
	}
	if got, want := codecDecls(top.decls), codecDeclsRef(f); !maps.Equal(got, want) {
		t.Errorf("codec declarations %v, want %v", got, want)
	}
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// splitSources generates p and returns the formatted files the codec is
// split from, as the split received them.
func splitSources(p *idl.Protocol) ([][]byte, error) {
	var (
		mu      sync.Mutex
		sources [][]byte
	)
	keep := func(src []byte) ([]byte, []byte, error) {
		mu.Lock()
		sources = append(sources, src)
		mu.Unlock()
		return splitCodec(src)
	}
	_, err := generateWith(p, Options{}, passes{format: formatSource, split: keep})
	return sources, err
}
