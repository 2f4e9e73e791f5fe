package golang

import (
	"bytes"
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/gen"
)

// flushEvery is how many declarations a generated file adds between two
// renderings of what it holds (see [file.flush]).
const flushEvery = 256

// flush renders the declarations added since the last flush, adds the
// rendering to f.body and lets them go (an error goes to f.err), so that a large file never holds the statements of
// all its declarations at once. jennifer renders a file as its header,
// its imports (those its statements used so far) and a newline before
// each declaration: a file's body is the bodies of its parts, in order,
// and the imports its last rendering lists are all of them.
func (f *file) flush() {
	if f.err != nil {
		return
	}
	_, body, err := renderParts(f.File)
	if err != nil {
		f.err = err
		return
	}
	if f.formatParts {
		f.parts = append(f.parts, startPart(body, f.links, codecParts[f.path]))
		return
	}
	f.body = append(f.body, body)
}

// renderParts renders jf, then starts it afresh with no statements: it
// returns the file's header and imports, and the rendering of its
// statements.
func renderParts(jf *jen.File) (head, body []byte, err error) {
	var all, empty bytes.Buffer
	if err := jf.Render(&all); err != nil {
		return nil, nil, err
	}
	jf.Group = jen.NewFile("").Group
	if err := jf.Render(&empty); err != nil {
		return nil, nil, err
	}
	head = empty.Bytes()
	if !bytes.HasPrefix(all.Bytes(), head) {
		return nil, nil, fmt.Errorf("the file's rendering does not start with its header")
	}
	return head, all.Bytes()[len(head):], nil
}

// render renders f and formats it with ps.format: one file, or two when
// f's JSON codec goes to a file of its own (see [codecParts]), split from
// the rest by ps.split.
func (f *file) render(ps passes) ([]gen.File, error) {
	if f.err != nil {
		return nil, fmt.Errorf("golang: rendering %s: %w", f.path, f.err)
	}
	head, body, err := renderParts(f.File)
	if err != nil {
		return nil, fmt.Errorf("golang: rendering %s: %w", f.path, err)
	}
	// The statements are rendered: the collector may take them while the
	// source is formatted.
	f.File = nil
	var (
		src []byte
		top *srcDecls
	)
	if f.parts != nil {
		f.parts = append(f.parts, startPart(body, f.links, codecParts[f.path]))
		src, top, err = joinParts(head, f.parts, f.links, ps.format)
		f.parts = nil
	} else {
		src, err = f.formatWhole(head, body, ps.format)
	}
	if err != nil {
		return nil, fmt.Errorf("golang: formatting %s: %w", f.path, err)
	}
	if !codecParts[f.path] {
		return []gen.File{{Path: f.path, Content: src}}, nil
	}
	var decls, codec []byte
	if top != nil {
		// Its parts were scanned as they were formatted.
		decls, codec, err = splitScanned(src, *top)
	} else {
		decls, codec, err = ps.split(src)
	}
	if err != nil {
		return nil, fmt.Errorf("golang: splitting %s: %w", f.path, err)
	}
	files := []gen.File{{Path: f.path, Content: decls}}
	if codec != nil {
		files = append(files, gen.File{Path: codecFile(f.path), Content: codec})
	}
	return files, nil
}

// formatWhole joins head, the bodies flushed so far and body, the last
// one, links the doc comments and formats the file with format.
func (f *file) formatWhole(head, body []byte, format func([]byte) ([]byte, error)) ([]byte, error) {
	f.body = append(f.body, body)
	size := len(head)
	for _, b := range f.body {
		size += len(b)
	}
	src := append(make([]byte, 0, size), head...)
	for _, b := range f.body {
		src = append(src, b...)
	}
	f.body = nil
	return format(regroupImports(linkComments(src, f.links)))
}
