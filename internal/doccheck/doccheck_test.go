package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// checkedDirs are the trees whose exported names must be documented.
var checkedDirs = []string{"runtime", "idl", "gen", "cmd", "internal", "contrib"}

func TestExportedNamesHaveDocComments(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	checked := 0
	for _, dir := range checkedDirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if d == nil { // the tree does not exist yet
					return filepath.SkipDir
				}
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
			if err != nil {
				return err
			}
			checked++
			for _, missing := range undocumented(f) {
				t.Errorf("%s: exported %s has no doc comment", fset.Position(missing.Pos()), missing.Name)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked == 0 {
		t.Fatal("no Go files checked: wrong root?")
	}
}

// undocumented returns the exported top-level names and methods of f that
// have no doc comment. A name in a documented const/var group counts as
// documented.
func undocumented(f *ast.File) []*ast.Ident {
	var out []*ast.Ident
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() && d.Doc == nil && exportedReceiver(d) {
				out = append(out, d.Name)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() && s.Doc == nil && d.Doc == nil {
						out = append(out, s.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() && s.Doc == nil && s.Comment == nil && d.Doc == nil {
							out = append(out, n)
						}
					}
				}
			}
		}
	}
	return out
}

// exportedReceiver reports whether d is a function or a method of an
// exported type.
func exportedReceiver(d *ast.FuncDecl) bool {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return true
	}
	typ := d.Recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
		case *ast.IndexExpr:
			typ = x.X
		case *ast.IndexListExpr:
			typ = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return true
		}
	}
}

func TestUndocumentedFindsMissingComments(t *testing.T) {
	src := `package p
// Documented is fine.
func Documented() {}
func Bare() {}
type T struct{}
// M is fine.
func (T) M() {}
func (*T) N() {}
type hidden struct{}
func (hidden) Exported() {}
// Group is documented as a whole.
const (
	A = 1
	B = 2
)
var (
	C = 3 // C has a line comment.
	D = 4
)
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, id := range undocumented(f) {
		names = append(names, id.Name)
	}
	if got, want := strings.Join(names, ","), "Bare,T,N,D"; got != want {
		t.Errorf("undocumented = %s, want %s", got, want)
	}
}
