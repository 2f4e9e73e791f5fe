package golang

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/gen"
	"github.com/rpcgen/rpcgen/idl"
)

// writeAppendCheck adds to the generated package in dir a test that checks
// every AppendJSON against json.Marshal on random values (see
// testdata/appendcheck). TestCompile runs it.
func writeAppendCheck(t *testing.T, dir string, in input, files []gen.File) {
	t.Helper()
	p, err := idl.Load(in.path)
	if err != nil {
		t.Fatalf("%s: %v", in.name, err)
	}
	var types, unions []string
	for _, def := range p.Types {
		switch def.Type.Kind {
		case idl.KindObject:
			types = append(types, "\t"+def.GoName+"{},\n")
		case idl.KindUnion:
			types = append(types, "\t"+def.GoName+"{},\n")
			unions = append(unions, "\treflect.TypeFor["+def.GoName+"](): true,\n")
		}
	}
	if len(types) == 0 {
		return
	}
	f, err := parser.ParseFile(token.NewFileSet(), files[0].Path, files[0].Content, parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := os.ReadFile(filepath.Join("testdata", "appendcheck", "check_test.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(tmpl), "package PACKAGE", "package "+f.Name.Name, 1) +
		"\n// appendTypes are the types with an AppendJSON.\nvar appendTypes = []any{\n" + strings.Join(types, "") + "}\n" +
		"\n// unionTypes are the unions among them.\nvar unionTypes = map[reflect.Type]bool{\n" + strings.Join(unions, "") + "}\n"
	if err := os.WriteFile(filepath.Join(dir, in.name, "appendcheck_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}
