package golang

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"testing"

	"github.com/rpcgen/rpcgen/idl"
)

// TestGenerateDocNamesItsFiles checks that every file Generate's doc comment
// names is one that Generate writes for a protocol using every feature.
func TestGenerateDocNamesItsFiles(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "generate.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var doc string
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "Generate" {
			doc = fn.Doc.Text()
		}
	}
	named := regexp.MustCompile(`\b[a-z_]+\.go\b`).FindAllString(doc, -1)
	if len(named) == 0 {
		t.Fatalf("Generate's doc names no file:\n%s", doc)
	}
	p, err := idl.Load("../../idl/testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	written := map[string]bool{}
	for _, f := range files {
		written[f.Path] = true
	}
	for _, name := range named {
		if !written[name] {
			t.Errorf("Generate's doc names %s, which it does not write", name)
		}
	}
}
