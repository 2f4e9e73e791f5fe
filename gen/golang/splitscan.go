package golang

import (
	"fmt"
	"go/scanner"
	"go/token"
)

// srcDecls are the top-level declarations of a Go source file, as
// [scanDecls] finds them.
type srcDecls struct {
	// pkgEnd is the offset just past the package clause's name.
	pkgEnd int
	// importStart is the offset of the first import declaration, or -1.
	importStart int
	decls       []srcDecl
}

// srcDecl is one top-level declaration: what [splitCodec] needs of it.
type srcDecl struct {
	// end is the offset just past its last token.
	end int
	// imports holds the specs of an import declaration; nil for any
	// other declaration.
	imports []importSpec
	// codec reports a method named in codecMethods.
	codec bool
	// defines holds the unexported names it declares at the top level.
	defines []string
	// idents holds the unexported identifiers it contains (its own names
	// included), as many times as they occur.
	idents []string
	// quals holds the identifiers that qualify a selector (x in x.Sel).
	quals []string
}

// importSpec is one import: its name ("" when it has none) and its path,
// a quoted string as written.
type importSpec struct{ name, path string }

// scanDecls lists the top-level declarations of src, a Go file that
// parses, from its tokens alone: a declaration starts with a keyword
// after a semicolon (written, or inserted at a line end) outside any
// bracket, and ends with the last token before the next such semicolon.
// It finds what a parse would (where declarations end, the names they
// declare, the identifiers and selectors they use) without building a
// syntax tree.
func scanDecls(src []byte) (srcDecls, error) {
	fset := token.NewFileSet()
	tf := fset.AddFile("", -1, len(src))
	var (
		s     scanner.Scanner
		first error
	)
	s.Init(tf, src, func(pos token.Position, msg string) {
		if first == nil {
			first = fmt.Errorf("%s: %s", pos, msg)
		}
	}, 0)
	ds := declScanner{top: srcDecls{importStart: -1}}
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if lit == "" {
			lit = tok.String()
		}
		if !ds.step(tf.Offset(pos), tok, lit) {
			return ds.top, fmt.Errorf("%s: %s outside a declaration", tf.Position(pos), lit)
		}
	}
	ds.finish()
	return ds.top, first
}

// lexeme is a token and its text.
type lexeme struct {
	tok token.Token
	lit string
}

// declScanner is the state of [scanDecls].
type declScanner struct {
	top     srcDecls
	cur     *srcDecl    // the declaration being scanned, if any
	kw      token.Token // its keyword
	depth   int         // brackets open
	lastEnd int         // offset past the last token, semicolons aside
	grouped bool        // a const, type, var or import declaration with parentheses
	spec    bool        // the next token starts a const, type or var spec
	names   bool        // in a const or var spec's list of names
	fn      int         // in a func declaration: 1 after func, 2 in its receiver, 3 after it
	// The three tokens before this one, to find x in x.Sel (but not in
	// a.x.Sel).
	p1, p2, p3 lexeme
	importName string // an import spec's name, until its path
}

// finish ends the declaration being scanned.
func (ds *declScanner) finish() {
	if ds.cur != nil {
		ds.cur.end = ds.lastEnd
		ds.cur = nil
	}
}

// step reads one token at offset off; it reports false for a token
// outside both the package clause and any declaration.
func (ds *declScanner) step(off int, tok token.Token, lit string) bool {
	defer func() { ds.p3, ds.p2, ds.p1 = ds.p2, ds.p1, lexeme{tok, lit} }()
	if tok == token.SEMICOLON {
		if ds.depth == 0 {
			ds.finish()
		} else if ds.depth == 1 && ds.grouped {
			ds.spec = true
		}
		ds.names = false
		return true
	}
	ds.lastEnd = off + len(lit)
	switch {
	case tok == token.PACKAGE && ds.depth == 0 && ds.cur == nil:
		ds.kw = tok
		return true
	case ds.kw == token.PACKAGE && tok == token.IDENT:
		ds.top.pkgEnd, ds.kw = ds.lastEnd, token.ILLEGAL
		return true
	case ds.depth == 0 && ds.cur == nil && (tok == token.IMPORT || tok == token.CONST || tok == token.TYPE || tok == token.VAR || tok == token.FUNC):
		ds.top.decls = append(ds.top.decls, srcDecl{})
		ds.cur, ds.kw = &ds.top.decls[len(ds.top.decls)-1], tok
		ds.grouped, ds.spec, ds.names, ds.fn = false, tok != token.FUNC, false, 0
		switch tok {
		case token.IMPORT:
			if ds.top.importStart < 0 {
				ds.top.importStart = off
			}
			ds.cur.imports = []importSpec{}
		case token.FUNC:
			ds.fn = 1
		}
		return true
	case ds.cur == nil:
		return false
	}
	switch tok {
	case token.LPAREN, token.LBRACK, token.LBRACE:
		ds.depth++
	case token.RPAREN, token.RBRACK, token.RBRACE:
		ds.depth--
	}
	cur := ds.cur
	switch ds.kw {
	case token.FUNC:
		switch {
		case ds.fn == 1 && tok == token.LPAREN:
			ds.fn = 2
		case ds.fn == 2 && tok == token.RPAREN && ds.depth == 0:
			ds.fn = 3
		case ds.fn == 1 && tok == token.IDENT:
			if !token.IsExported(lit) {
				cur.defines = append(cur.defines, lit)
			}
			ds.fn = 0
		case ds.fn == 3 && tok == token.IDENT:
			cur.codec = codecMethods[lit]
			ds.fn = 0
		}
	case token.IMPORT:
		switch tok {
		case token.IDENT, token.PERIOD:
			ds.importName = lit
		case token.STRING:
			cur.imports = append(cur.imports, importSpec{name: ds.importName, path: lit})
			ds.importName = ""
		}
	case token.CONST, token.VAR, token.TYPE:
		switch {
		case ds.spec && tok == token.LPAREN && ds.p1.tok == ds.kw:
			ds.grouped = true
		case ds.spec && tok == token.IDENT:
			// A type named _ is kept, as go/ast reports it unexported.
			if !token.IsExported(lit) && (lit != "_" || ds.kw == token.TYPE) {
				cur.defines = append(cur.defines, lit)
			}
			ds.spec, ds.names = false, ds.kw != token.TYPE
		case ds.names && tok == token.COMMA:
		case ds.names && tok == token.IDENT && ds.p1.tok == token.COMMA:
			if !token.IsExported(lit) && lit != "_" {
				cur.defines = append(cur.defines, lit)
			}
		default:
			ds.spec, ds.names = false, false
		}
	}
	if tok == token.IDENT {
		if !token.IsExported(lit) {
			cur.idents = append(cur.idents, lit)
		}
		if ds.p1.tok == token.PERIOD && ds.p2.tok == token.IDENT && ds.p3.tok != token.PERIOD {
			cur.quals = append(cur.quals, ds.p2.lit)
		}
	}
	return true
}

// codecDecls reports which top-level declarations of decls belong to the
// codec: the methods named in codecMethods, and the unexported
// declarations used by the codec and by nothing else.
func codecDecls(decls []srcDecl) map[int]bool {
	unexported := map[string]int{} // top-level unexported name -> its declaration
	for i, d := range decls {
		for _, name := range d.defines {
			unexported[name] = i
		}
	}
	usedBy := map[int]map[int]bool{} // declaration -> the declarations using it
	inCodec := map[int]bool{}
	for i, d := range decls {
		if d.codec {
			inCodec[i] = true
		}
		for _, id := range d.idents {
			if j, ok := unexported[id]; ok && j != i {
				if usedBy[j] == nil {
					usedBy[j] = map[int]bool{}
				}
				usedBy[j][i] = true
			}
		}
	}
	closeOverUsers(inCodec, usedBy)
	return inCodec
}

// closeOverUsers adds to inCodec, until nothing changes, every
// declaration all of whose users (usedBy: declaration -> the declarations
// using it) are in the codec.
func closeOverUsers(inCodec map[int]bool, usedBy map[int]map[int]bool) {
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
}
