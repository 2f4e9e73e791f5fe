package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// unprefixedErrors lists the runtime files whose errors may be made
// without their package's prefix, each with the reason; the path is
// relative to runtime/.
var unprefixedErrors = map[string]string{
	"framing/content_length.go":     `names the framing, as *framing.Error does: "content-length framing: ..."`,
	"framing/ndjson.go":             `names the framing, as *framing.Error does: "ndjson framing: ..."`,
	"rpcimpl/bounds.go":             "reasons of a FieldError, sent to the peer as -32602 data",
	"rpcimpl/choose.go":             `decoding errors for generated code: a FieldError's reason, or wrapped as "jsonrpc: decoding result of ..."`,
	"internal/jsonscan/jsonscan.go": `reasons of a FieldError (sent to the peer as -32602 data), made by the decoders of jsonrpc and rpcimpl`,
	"rpcimpl/keyedmap.go":           `decoding errors for generated code: a FieldError's reason, or wrapped as "jsonrpc: decoding result of ..."`,
	"rpcimpl/tuple.go":              `decoding errors for generated code: a FieldError's reason, or wrapped as "jsonrpc: decoding result of ..."`,
	"rpcimpl/rawobject.go":          `EncodeObject's errors, wrapped by generated Set methods as "<member>: ..."`,
	"rpcimpl/gensupport.go":         `decoding errors for generated code: a FieldError's reason, or wrapped as "jsonrpc: decoding result of ..."`,
	"jsonrpc/dispatch.go":           `marshalValue's error, wrapped as "jsonrpc: encoding params of ..." or logged`,
	"jsonrpc/oversize.go":           `a call's outcome, wrapped as "jsonrpc: call ...: response refused: ..."`,
	"oauth/jwt.go":                  `helpers whose errors Transport.RoundTrip wraps as "oauth: ..."`,
	"oauth/metadata.go":             `helpers whose errors Transport.RoundTrip wraps as "oauth: ..."`,
	"oauth/roundtrip.go":            `helpers whose errors Transport.RoundTrip wraps as "oauth: ..."`,
	"oauth/token.go":                `helpers whose errors Transport.RoundTrip wraps as "oauth: ..."`,
	"oauth/transport.go":            `helpers whose errors Transport.RoundTrip wraps as "oauth: ..."`,
	"streamhttp/client_post.go":     `reasons that become the message of a made-up -32603 answer ("Internal error: ...") or a log attribute`,
	"streamhttp/client_stream.go":   `reasons that become the message of a made-up -32603 answer ("Internal error: ...") or a log attribute`,
}

// TestErrorStringsCarryPackagePrefix checks the first string literal of
// every errors.New, fmt.Errorf and errorf call in runtime/: a package-level
// sentinel starts with its package's name and a colon ("jsonrpc: "); an
// error made in a function does too, or starts with "%w" (the prefix is
// that of the error it wraps first), or is in a file of unprefixedErrors;
// none starts with the prefix twice or with another runtime package's.
func TestErrorStringsCarryPackagePrefix(t *testing.T) {
	root := filepath.Join("..", "..", "runtime")
	var pkgs []string
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			pkgs = append(pkgs, e.Name())
		}
	}
	fset := token.NewFileSet()
	checked := 0
	used := map[string]bool{}
	err = walkSources(fset, root, func(path string, f *ast.File) {
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		prefix := f.Name.Name + ": "
		check := func(call *ast.CallExpr, sentinel bool) {
			msg, ok := errorText(call)
			if !ok {
				return
			}
			checked++
			pos := fset.Position(call.Pos())
			switch {
			case strings.HasPrefix(msg, prefix+prefix):
				t.Errorf("%s: error %q carries its prefix twice", pos, msg)
			case strings.HasPrefix(msg, prefix):
				return
			case sentinel:
				t.Errorf("%s: sentinel error %q does not start with %q", pos, msg, prefix)
				return
			}
			for _, other := range pkgs {
				if strings.HasPrefix(msg, other+": ") && other+": " != prefix {
					t.Errorf("%s: error %q carries the prefix of package %s", pos, msg, other)
				}
			}
			if strings.HasPrefix(msg, "%w") {
				return
			}
			if _, ok := unprefixedErrors[rel]; ok {
				used[rel] = true
				return
			}
			t.Errorf("%s: error %q does not start with %q (if it is always wrapped by one that does, list the file in unprefixedErrors with the reason)", pos, msg, prefix)
		}
		for _, decl := range f.Decls {
			gen, isVar := decl.(*ast.GenDecl)
			ast.Inspect(decl, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					check(call, isVar && gen.Tok == token.VAR)
				}
				return true
			})
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no error strings checked: wrong root?")
	}
	for file := range unprefixedErrors {
		if !used[file] {
			t.Errorf("unprefixedErrors lists %s, which makes no unprefixed error: remove it", file)
		}
	}
}

// errorText returns the first string literal of an errors.New, fmt.Errorf
// or errorf call.
func errorText(call *ast.CallExpr) (string, bool) {
	switch fn := call.Fun.(type) {
	case *ast.SelectorExpr:
		x, ok := fn.X.(*ast.Ident)
		if !ok || !(x.Name == "errors" && fn.Sel.Name == "New" || x.Name == "fmt" && fn.Sel.Name == "Errorf") {
			return "", false
		}
	case *ast.Ident:
		if fn.Name != "errorf" {
			return "", false
		}
	default:
		return "", false
	}
	if len(call.Args) == 0 {
		return "", false
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// unprefixedSentinels lists the package-level errors of gen/, idl/ and
// cmd/ made without their package's prefix, by file and name, with the
// reason. User-facing diagnostics ("file:line:col: what, how to fix") are
// made in functions and are not checked.
var unprefixedSentinels = map[string]string{
	"cmd/rpcgen/main.go errUsage": "a marker for exit status 2, never printed: the usage was already explained on stderr",
}

// TestSentinelErrorsCarryPackagePrefix checks that the package-level
// errors of gen/, idl/ and cmd/ start with their package's name and a
// colon (a command's: its directory's name).
func TestSentinelErrorsCarryPackagePrefix(t *testing.T) {
	fset := token.NewFileSet()
	used := map[string]bool{}
	for _, dir := range []string{"gen", "idl", "cmd"} {
		root := filepath.Join("..", "..", dir)
		err := walkSources(fset, root, func(path string, f *ast.File) {
			pkg := f.Name.Name
			if pkg == "main" {
				pkg = filepath.Base(filepath.Dir(path))
			}
			rel, _ := filepath.Rel(filepath.Join("..", ".."), path)
			for _, decl := range f.Decls {
				gen, ok := decl.(*ast.GenDecl)
				if !ok || gen.Tok != token.VAR {
					continue
				}
				for _, spec := range gen.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, v := range vs.Values {
						call, ok := v.(*ast.CallExpr)
						if !ok {
							continue
						}
						msg, ok := errorText(call)
						if !ok || strings.HasPrefix(msg, pkg+": ") && !strings.HasPrefix(msg, pkg+": "+pkg+": ") {
							continue
						}
						key := filepath.ToSlash(rel) + " " + vs.Names[i].Name
						if _, ok := unprefixedSentinels[key]; ok {
							used[key] = true
							continue
						}
						t.Errorf("%s: sentinel error %q does not start with %q once", fset.Position(call.Pos()), msg, pkg+": ")
					}
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for key := range unprefixedSentinels {
		if !used[key] {
			t.Errorf("unprefixedSentinels lists %s, which is prefixed or gone: remove it", key)
		}
	}
}

// walkSources parses every non-test Go file below root, testdata aside,
// and calls fn with each.
func walkSources(fset *token.FileSet, root string, fn func(path string, f *ast.File)) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		fn(path, f)
		return nil
	})
}
