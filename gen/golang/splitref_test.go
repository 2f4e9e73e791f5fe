package golang

// This file keeps the codec split as it was before it parsed each file once
// (format, split, then parse and format each half again), so that a test
// can check the one-parse split gives the same bytes.

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"strconv"
	"strings"
)

// splitCodecRef splits src, a formatted generated file, into its declarations
// and their JSON codec: the codec methods, and the unexported declarations
// that only the codec uses (the tables that tell union variants apart),
// each half keeping its declarations in order and only the imports it
// uses. codec is nil when src has no codec.
func splitCodecRef(src []byte) (decls, codec []byte, err error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		return nil, nil, err
	}
	inCodec := codecDeclsRef(f)
	var header, declPart, codecPart []byte
	prevEnd := 0
	for i, d := range f.Decls {
		end := fset.Position(d.End()).Offset
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			header = append(header, src[prevEnd:end]...)
			prevEnd = end
			continue
		}
		piece := bytes.TrimLeft(src[prevEnd:end], "\n")
		prevEnd = end
		if header == nil {
			// No imports: the header ends with the package clause.
			pkgEnd := fset.Position(f.Name.End()).Offset
			header = src[:pkgEnd]
			piece = bytes.TrimLeft(src[pkgEnd:end], "\n")
		}
		if inCodec[i] {
			codecPart = append(append(codecPart, "\n\n"...), piece...)
		} else {
			declPart = append(append(declPart, "\n\n"...), piece...)
		}
	}
	if len(codecPart) == 0 {
		return src, nil, nil
	}
	if decls, err = pruneImportsRef(append(append([]byte(nil), header...), declPart...)); err != nil {
		return nil, nil, err
	}
	if codec, err = pruneImportsRef(append(append([]byte(nil), header...), codecPart...)); err != nil {
		return nil, nil, err
	}
	return decls, codec, nil
}

// pruneImportsRef drops the imports src does not use and formats it, its
// imports grouped as groupImports groups them.
func pruneImportsRef(src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		return nil, err
	}
	full, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	ast.Inspect(full, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	var kept []string
	start, end := -1, -1
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT {
			continue
		}
		if start < 0 {
			start = fset.Position(g.Pos()).Offset
		}
		end = fset.Position(g.End()).Offset
		for _, s := range g.Specs {
			spec := s.(*ast.ImportSpec)
			p, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return nil, err
			}
			name := path.Base(p)
			line := spec.Path.Value
			if spec.Name != nil {
				name = spec.Name.Name
				line = name + " " + line
			}
			if used[name] || name == "_" {
				kept = append(kept, line)
			}
		}
	}
	if start < 0 {
		return groupImports(src)
	}
	var block string
	switch len(kept) {
	case 0:
	case 1:
		block = "import " + kept[0]
	default:
		block = "import (\n" + strings.Join(kept, "\n") + "\n)"
	}
	out := append(append(append([]byte(nil), src[:start]...), block...), src[end:]...)
	formatted, err := groupImports(out)
	if err != nil {
		return nil, fmt.Errorf("pruning imports: %w", err)
	}
	return formatted, nil
}

// codecDeclsRef reports, from its syntax tree, which top-level
// declarations of f belong to the codec: the methods named in codecMethods, and the unexported
// declarations used by the codec and by nothing else.
func codecDeclsRef(f *ast.File) map[int]bool {
	unexported := map[string]int{} // top-level unexported name -> its declaration
	for i, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && !d.Name.IsExported() {
				unexported[d.Name.Name] = i
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if !n.IsExported() && n.Name != "_" {
							unexported[n.Name] = i
						}
					}
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						unexported[s.Name.Name] = i
					}
				}
			}
		}
	}
	usedBy := map[int]map[int]bool{} // declaration -> the declarations using it
	inCodec := map[int]bool{}
	for i, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && codecMethods[fd.Name.Name] {
			inCodec[i] = true
		}
		ast.Inspect(d, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if j, ok := unexported[id.Name]; ok && j != i {
					if usedBy[j] == nil {
						usedBy[j] = map[int]bool{}
					}
					usedBy[j][i] = true
				}
			}
			return true
		})
	}
	closeOverUsers(inCodec, usedBy)
	return inCodec
}
