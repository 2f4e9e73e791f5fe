package golang

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestShippedCodecsNeedNoReflection checks the packages generated for the
// shipped protocols: no AppendJSON falls back to encoding/json (through
// json.Marshal or rpcimpl.AppendValue), and no client stub decodes a
// result returned as a *T through json.Unmarshal into a **T, which would
// validate the whole result again and reflect over it; no UnmarshalJSON
// decodes a member that is a list or map of basic values (strings,
// numbers, booleans, raw JSON) through json.Unmarshal.
func TestShippedCodecsNeedNoReflection(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "generated", "*", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no generated files: %v", err)
	}
	fset := token.NewFileSet()
	appenders := 0
	parsed := map[string]*ast.File{}
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed[path] = f
	}
	fields := plainContainerFields(parsed)
	if len(fields) < 50 {
		t.Errorf("only %d members of plain lists and maps found", len(fields))
	}
	for _, path := range files {
		f := parsed[path]
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Body == nil {
				continue
			}
			if fn.Name.Name == "AppendJSON" {
				appenders++
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					if name := calledName(n); name == "json.Marshal" || name == "rpcimpl.AppendValue" {
						t.Errorf("%s: AppendJSON of %s calls %s", fset.Position(n.Pos()), receiverName(fn), name)
					}
					return true
				})
			}
			if fn.Name.Name == "UnmarshalJSON" {
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					if calledName(n) == "json.Unmarshal" {
						if field := memberTarget(n.(*ast.CallExpr)); fields[filepath.Dir(path)+"."+receiverName(fn)+"."+field] {
							t.Errorf("%s: UnmarshalJSON of %s decodes %s through json.Unmarshal", fset.Position(n.Pos()), receiverName(fn), field)
						}
					}
					return true
				})
			}
			if strings.HasPrefix(receiverName(fn), "remote") && pointerResult(fn.Body) && !calls(fn.Body, "rpcimpl.Result") {
				t.Errorf("%s: %s.%s decodes a *T result without rpcimpl.Result", fset.Position(fn.Pos()), receiverName(fn), fn.Name.Name)
			}
		}
	}
	if appenders < 100 {
		t.Errorf("only %d AppendJSON methods found in %d files", appenders, len(files))
	}
}

// calledName returns "pkg.Func" when n calls a function of another
// package, else "".
func calledName(n ast.Node) string {
	call, ok := n.(*ast.CallExpr)
	if !ok {
		return ""
	}
	if ix, ok := call.Fun.(*ast.IndexExpr); ok { // an instantiated generic
		call = &ast.CallExpr{Fun: ix.X}
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return ""
	}
	return pkg.Name + "." + sel.Sel.Name
}

// calls reports whether body calls name ("pkg.Func").
func calls(body *ast.BlockStmt, name string) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		found = found || calledName(n) == name
		return !found
	})
	return found
}

// pointerResult reports whether body declares `var result *T`.
func pointerResult(body *ast.BlockStmt) bool {
	for _, stmt := range body.List {
		decl, ok := stmt.(*ast.DeclStmt)
		if !ok {
			continue
		}
		for _, spec := range decl.Decl.(*ast.GenDecl).Specs {
			if vs, ok := spec.(*ast.ValueSpec); ok && len(vs.Names) == 1 && vs.Names[0].Name == "result" {
				if _, ok := vs.Type.(*ast.StarExpr); ok {
					return true
				}
			}
		}
	}
	return false
}

// receiverName returns the name of fn's receiver type.
func receiverName(fn *ast.FuncDecl) string {
	t := fn.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// plainContainerFields returns "dir.Type.Field" for each struct field of
// the files whose type is a list or map of basic values.
func plainContainerFields(files map[string]*ast.File) map[string]bool {
	out := map[string]bool{}
	for path, f := range files {
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.TYPE {
				continue
			}
			for _, spec := range gen.Specs {
				ts := spec.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, fl := range st.Fields.List {
					var elem ast.Expr
					switch x := fl.Type.(type) {
					case *ast.ArrayType:
						elem = x.Elt
					case *ast.MapType:
						if id, ok := x.Key.(*ast.Ident); ok && id.Name == "string" {
							elem = x.Value
						}
					}
					if !basicExpr(elem) {
						continue
					}
					for _, name := range fl.Names {
						out[filepath.Dir(path)+"."+ts.Name.Name+"."+name.Name] = true
					}
				}
			}
		}
	}
	return out
}

// basicExpr reports whether e is string, int64, float64, bool or
// json.RawMessage.
func basicExpr(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name == "string" || x.Name == "int64" || x.Name == "float64" || x.Name == "bool"
	case *ast.SelectorExpr:
		pkg, ok := x.X.(*ast.Ident)
		return ok && pkg.Name == "json" && x.Sel.Name == "RawMessage"
	}
	return false
}

// memberTarget returns F when call is json.Unmarshal(value, &v.F).
func memberTarget(call *ast.CallExpr) string {
	if len(call.Args) != 2 {
		return ""
	}
	addr, ok := call.Args[1].(*ast.UnaryExpr)
	if !ok || addr.Op != token.AND {
		return ""
	}
	if sel, ok := addr.X.(*ast.SelectorExpr); ok {
		return sel.Sel.Name
	}
	return ""
}
