package golang

import (
	"bytes"
	"fmt"
	"go/format"
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
// src is scanned once, not parsed (see [scanDecls]). Each half is src's
// text, declaration by declaration, under an import block of what the
// half uses, so that it is already formatted as go/format would print it:
// top-level declarations separated by a blank line are formatted
// independently. When two declarations of src are not separated by one,
// the halves are formatted again.
func splitCodec(src []byte) (decls, codec []byte, err error) {
	top, err := scanDecls(src)
	if err != nil {
		return nil, nil, err
	}
	return splitScanned(src, top)
}

// splitScanned is [splitCodec] given top, what [scanDecls] finds in src.
func splitScanned(src []byte, top srcDecls) (decls, codec []byte, err error) {
	inCodec := codecDecls(top.decls)
	var (
		// The declarations, then the codec: neither body takes much
		// more than src's length, allocated once.
		halves  = [2]codecHalf{{body: make([]byte, 0, len(src))}, {body: make([]byte, 0, len(src))}}
		imports []importSpec
		prevEnd = top.pkgEnd
		tight   bool // two declarations without a blank line between
	)
	for i, d := range top.decls {
		if d.imports != nil {
			imports = append(imports, d.imports...)
			prevEnd = d.end
			continue
		}
		gap := src[prevEnd:d.end]
		piece := bytes.TrimLeft(gap, "\n")
		tight = tight || len(gap)-len(piece) < 2
		prevEnd = d.end
		h := &halves[0]
		if inCodec[i] {
			h = &halves[1]
		}
		h.body = append(append(h.body, "\n\n"...), piece...)
		h.addUses(d.quals)
	}
	if len(halves[1].body) == 0 {
		return src, nil, nil
	}
	head := src[:top.pkgEnd]
	if top.importStart >= 0 {
		head = bytes.TrimRight(src[:top.importStart], "\n")
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

// addUses records quals, the package names a declaration's selectors
// qualify.
func (h *codecHalf) addUses(quals []string) {
	if h.uses == nil {
		h.uses = map[string]bool{}
	}
	for _, q := range quals {
		h.uses[q] = true
	}
}

// file returns the half as a file: head (src up to its imports, or to
// its package clause when it imports nothing), the imports the half uses,
// grouped as [groupImports] groups them, then the half's declarations.
// With tight, the result is formatted again.
func (h codecHalf) file(head []byte, imports []importSpec, tight bool) ([]byte, error) {
	var std, other []string
	for _, spec := range imports {
		p, err := strconv.Unquote(spec.path)
		if err != nil {
			return nil, err
		}
		name := path.Base(p)
		line := spec.path
		if spec.name != "" {
			name = spec.name
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
