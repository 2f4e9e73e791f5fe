package golang

import (
	"fmt"
	"go/token"
	"slices"
	"strings"
	"sync"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/gen"
	"github.com/rpcgen/rpcgen/idl"
)

// Options configure [Generate].
type Options struct {
	// Package is the name of the generated Go package; "" means the
	// protocol's GoPackage.
	Package string
	// Checked, when set, is called once the protocol has passed the
	// generator's checks, before any code is built: from then on
	// [Generate] fails only on an internal error.
	Checked func()
}

// generator holds what the parts of one generation share.
type generator struct {
	p   *idl.Protocol
	pkg string
	// variants holds the Go field names of the variants of each union.
	variants map[*idl.TypeDef][]string
	// origins describes where inline types come from, for their docs.
	origins map[*idl.TypeDef]string
	// decodes memoizes hasDecoder.
	decodes map[*idl.TypeDef]bool
	// files names the file of each role.
	files [2]string
	// declared holds the package-level names the generated code declares.
	declared map[string]owner
	// depth counts the lists and maps being appended inline, for the
	// names of their loop variables.
	depth int
}

// file is one generated file being built.
type file struct {
	*jen.File
	path  string
	decls int
	links linkSet // see [generator.docLinks]
	// flushEvery, body and err: see [file.flush].
	flushEvery int
	body       [][]byte
	err        error
	// formatParts formats each flushed part as it is rendered, into
	// parts (see [startPart]), instead of adding it to body.
	formatParts bool
	parts       []*part
}

// add appends a declaration, after a blank line. Every f.flushEvery
// declarations, those added so far are rendered.
func (f *file) add(code ...jen.Code) {
	if f.decls > 0 {
		f.Line()
	}
	f.Add(code...)
	f.decls++
	if f.flushEvery > 0 && f.decls%f.flushEvery == 0 {
		f.flush()
	}
}

// Generate returns the Go files of p: types.go (objects and named types),
// enums.go, unions.go, errors.go, protocol.go (package doc, method names,
// options) and one file per role. The JSON encoders and decoders of the
// declarations in types.go, enums.go and unions.go are in types_json.go,
// enums_json.go and unions_json.go. Files without declarations are left
// out. The output is gofmt-formatted and the same bytes for the same
// input.
//
// A protocol whose Go names would collide in the generated package gives
// an [idl.Errors] positioned at the IDL names at fault.
func Generate(p *idl.Protocol, opts Options) ([]gen.File, error) {
	return generateWith(p, opts, passes{format: formatSource, split: splitCodec, flushEvery: flushEvery, formatParts: true})
}

// passes are the functions that turn a rendered file into generated ones.
type passes struct {
	// format formats a rendered file, its imports grouped.
	format func(src []byte) ([]byte, error)
	// split splits the codec from the declarations of a formatted file
	// (but for one whose parts were formatted and scanned: see
	// [joinParts]).
	split func(src []byte) (decls, codec []byte, err error)
	// flushEvery is how many declarations a file adds between two
	// renderings of what it holds (see [file.flush]); 0 renders it whole.
	flushEvery int
	// formatParts formats each rendering on its own as soon as it is
	// made, while the generator goes on (see [joinParts]); format then
	// formats only a file never flushed, or one a part of which did not
	// format on its own.
	formatParts bool
}

// generateWith is [Generate], formatting and splitting files with ps.
func generateWith(p *idl.Protocol, opts Options, ps passes) ([]gen.File, error) {
	if p == nil {
		return nil, fmt.Errorf("golang: no protocol")
	}
	pkg := opts.Package
	if pkg == "" {
		pkg = p.GoPackage
	}
	if !token.IsIdentifier(pkg) || pkg == "_" {
		return nil, fmt.Errorf("golang: %q is not a valid Go package name", pkg)
	}
	g := &generator{
		p:        p,
		pkg:      pkg,
		variants: map[*idl.TypeDef][]string{},
		origins:  map[*idl.TypeDef]string{},
		decodes:  map[*idl.TypeDef]bool{},
	}
	if errs := g.check(); len(errs) > 0 {
		return nil, errs
	}
	if opts.Checked != nil {
		opts.Checked()
	}
	g.files = roleFiles(p.Roles)
	g.findOrigins()
	parts := []struct {
		path  string
		build func(*file) error
	}{
		{"protocol.go", g.protocolFile},
		{"types.go", g.typesFile},
		{"enums.go", g.enumsFile},
		{"unions.go", g.unionsFile},
		{"errors.go", g.errorsFile},
		{g.files[0], func(f *file) error { return g.roleFile(f, 0) }},
		{g.files[1], func(f *file) error { return g.roleFile(f, 1) }},
	}
	// Rendering and formatting, most of the work, need nothing from the
	// generator: each file is rendered as soon as it is built, while the
	// next ones are built.
	links := g.docLinks()
	out := make([][]gen.File, len(parts))
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	defer wg.Wait()
	for i, part := range parts {
		f := &file{File: jen.NewFile(pkg), path: part.path, links: links, flushEvery: ps.flushEvery, formatParts: ps.formatParts}
		// render formats the file once its imports are grouped.
		f.NoFormat = true
		for _, l := range gen.GoHeader(p) {
			f.HeaderComment(l)
		}
		f.ImportName(jsonrpcPkg, "jsonrpc")
		f.ImportName(framingPkg, "framing")
		f.ImportName(httpPkg, "streamhttp")
		f.ImportName(implPkg, "rpcimpl")
		if err := part.build(f); err != nil {
			return nil, fmt.Errorf("golang: %s: %w", part.path, err)
		}
		if f.decls > 0 {
			wg.Go(func() { out[i], errs[i] = f.render(ps) })
		}
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return slices.Concat(out...), nil
}

// roleFiles names the file of each role after its Go name, in lower case
// and without underscores (so that no suffix makes it a test or a
// platform-specific file, and no role takes the name of a codec file such
// as types_json.go), unless another file has that name.
func roleFiles(roles [2]idl.Role) [2]string {
	var files [2]string
	for i, role := range roles {
		name := strings.ReplaceAll(strings.ToLower(role.GoName), "_", "")
		switch name {
		case "protocol", "types", "enums", "unions", "errors", "decode", strings.TrimSuffix(files[0], ".go"):
			name += "_role"
		}
		files[i] = name + ".go"
	}
	return files
}
