package golang

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"path"
	"slices"
	"strconv"
	"strings"
)

// codecParts are the files whose declarations' JSON codec goes to a file
// of its own (see [codecFile]), so that a person reads the declarations
// without the codec in between, as gopls keeps tsjson.go apart from
// tsprotocol.go.
var codecParts = map[string]bool{"types.go": true, "enums.go": true, "unions.go": true}

// codecMethods are the methods that make up a type's JSON codec.
var codecMethods = map[string]bool{"MarshalJSON": true, "UnmarshalJSON": true, "AppendJSON": true}

// codecFile names the file that holds the JSON codec of the declarations
// in name: types.go gives types_json.go.
func codecFile(name string) string { return strings.TrimSuffix(name, ".go") + "_json.go" }

// splitCodec splits src, a formatted generated file, into its declarations
// and their JSON codec: the codec methods, and the unexported declarations
// that only the codec uses (the tables that tell union variants apart),
// each half keeping its declarations in order and only the imports it
// uses. codec is nil when src has no codec.
//
// src is parsed once. Each half is src's text, declaration by
// declaration, under an import block of what the half uses, so that it
// is already formatted as go/format would print it: top-level
// declarations separated by a blank line are formatted independently.
// When two declarations of src are not separated by one, the halves are
// formatted again.
func splitCodec(src []byte) (decls, codec []byte, err error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, err
	}
	tf := fset.File(f.Pos())
	inCodec := codecDecls(f)
	var (
		// The declarations, then the codec: neither body takes much
		// more than src's length, allocated once.
		halves      = [2]codecHalf{{body: make([]byte, 0, len(src))}, {body: make([]byte, 0, len(src))}}
		imports     []*ast.ImportSpec
		importStart = -1
		prevEnd     = tf.Offset(f.Name.End())
		tight       bool // two declarations without a blank line between
	)
	for i, d := range f.Decls {
		end := tf.Offset(d.End())
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			if importStart < 0 {
				importStart = tf.Offset(g.Pos())
			}
			for _, s := range g.Specs {
				imports = append(imports, s.(*ast.ImportSpec))
			}
			prevEnd = end
			continue
		}
		gap := src[prevEnd:end]
		piece := bytes.TrimLeft(gap, "\n")
		tight = tight || len(gap)-len(piece) < 2
		prevEnd = end
		h := &halves[0]
		if inCodec[i] {
			h = &halves[1]
		}
		h.body = append(append(h.body, "\n\n"...), piece...)
		h.addUses(d)
	}
	if len(halves[1].body) == 0 {
		return src, nil, nil
	}
	head := src[:tf.Offset(f.Name.End())]
	if importStart >= 0 {
		head = bytes.TrimRight(src[:importStart], "\n")
	}
	var out [2][]byte
	for i, h := range halves {
		if out[i], err = h.file(head, imports, tight); err != nil {
			return nil, nil, err
		}
	}
	return out[0], out[1], nil
}

// codecHalf is one half of a file split by [splitCodec].
type codecHalf struct {
	// body is the half's declarations, each after a blank line.
	body []byte
	// uses holds the names its selectors qualify: the imports it needs.
	uses map[string]bool
}

// addUses records the package names d's selectors qualify.
func (h *codecHalf) addUses(d ast.Decl) {
	if h.uses == nil {
		h.uses = map[string]bool{}
	}
	ast.Inspect(d, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				h.uses[id.Name] = true
			}
		}
		return true
	})
}

// file returns the half as a file: head (src up to its imports, or to
// its package clause when it imports nothing), the imports the half uses,
// grouped as [groupImports] groups them, then the half's declarations.
// With tight, the result is formatted again.
func (h codecHalf) file(head []byte, imports []*ast.ImportSpec, tight bool) ([]byte, error) {
	var std, other []string
	for _, spec := range imports {
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
		if !h.uses[name] && name != "_" {
			continue
		}
		if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
			other = append(other, line)
		} else {
			std = append(std, line)
		}
	}
	out := append([]byte(nil), head...)
	switch kept := len(std) + len(other); {
	case kept == 1:
		out = append(append(out, "\n\nimport "...), slices.Concat(std, other)[0]...)
	case kept > 1:
		out = append(out, "\n\nimport (\n"...)
		for i, group := range [][]string{std, other} {
			if i == 1 && len(std) > 0 && len(other) > 0 {
				out = append(out, '\n')
			}
			for _, line := range group {
				out = append(append(append(out, '\t'), line...), '\n')
			}
		}
		out = append(out, ')')
	}
	out = append(append(out, h.body...), '\n')
	if tight {
		formatted, err := format.Source(out)
		if err != nil {
			return nil, fmt.Errorf("formatting: %w", err)
		}
		return formatted, nil
	}
	return out, nil
}

// codecDecls reports which top-level declarations of f belong to the
// codec: the methods named in codecMethods, and the unexported
// declarations used by the codec and by nothing else.
func codecDecls(f *ast.File) map[int]bool {
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
	for changed := true; changed; {
		changed = false
		for j, users := range usedBy {
			if inCodec[j] {
				continue
			}
			all := true
			for i := range users {
				all = all && inCodec[i]
			}
			if all {
				inCodec[j], changed = true, true
			}
		}
	}
	return inCodec
}
