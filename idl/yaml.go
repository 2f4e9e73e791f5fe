package idl

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// nodeKind is the kind of a YAML node once converted to the IDL's own tree.
type nodeKind uint8

const (
	nNull nodeKind = iota
	nString
	nInt
	nFloat
	nBool
	nMap
	nSeq
)

// kindName names a node kind in messages.
func (k nodeKind) String() string {
	return [...]string{"null", "string", "integer", "number", "boolean", "mapping", "list"}[k]
}

// scalarStyle records how a string scalar was written, to map offsets inside
// it back to columns.
type scalarStyle uint8

const (
	stylePlain scalarStyle = iota
	styleSingle
	styleDouble
	styleBlock
)

// node is a YAML node with its position. Only the IDL's own code sees it;
// the model never holds one.
type node struct {
	kind  nodeKind
	pos   Pos
	style scalarStyle
	str   string  // string value; for numbers the JSON text
	i     int64   // nInt, when intOK
	intOK bool    // the integer fits in an int64
	f     float64 // nFloat
	b     bool    // nBool
	bad   bool    // nFloat: infinity or NaN; nNull: stands for a construct already reported
	raw   string  // scalars: the text as written
	ents  []entry // nMap, in source order
	items []*node // nSeq
}

// entry is one key: value pair of a mapping.
type entry struct {
	key *node
	val *node
}

// maxDepth bounds how deeply YAML nodes may nest.
const maxDepth = 100

// converter turns a goccy AST into nodes.
type converter struct {
	file  string
	lines [][]rune
	errs  *errorList
	more  map[tokenAt][]ast.Node // pieces of mappings, see parseSplit

	indents []int // spaces at the start of each line, see startsLine
}

// parseYAML parses src into a node tree. Syntax errors are recorded in errs
// and yield a nil node.
func parseYAML(file string, src []byte, errs *errorList, c *converter) (root *node) {
	src = bytes.TrimPrefix(src, []byte(utf8BOM)) // columns count from after the mark
	c.lines = splitLines(src)
	if !c.checkEncoding(src) {
		return nil
	}
	if line, col, deep := tooDeep(src); deep {
		// Refused before parsing: the YAML parser slows down sharply on
		// deep (or never closed) flow nesting.
		errs.add(Pos{File: file, Line: line, Col: col}, "YAML nested more than %d levels deep; flatten it with named types", maxDepth)
		return nil
	}
	c.more = map[tokenAt][]ast.Node{}
	f, err := c.parseSplit(src)
	if err != nil {
		c.syntaxError(err)
		return nil
	}
	var docs []*ast.DocumentNode
	for _, d := range f.Docs {
		if d != nil && d.Body != nil && !isComment(d.Body) {
			docs = append(docs, d)
		}
	}
	if len(docs) == 0 {
		errs.add(c.pos(1, 1), "the file is empty; an IDL file is a YAML mapping with a protocol: key (or types: and errors: for an included file)")
		return nil
	}
	for _, d := range docs[1:] {
		errs.add(c.tokenPos(d.Body.GetToken()), "an IDL file holds one YAML document; remove the \"---\" separator and everything after it, or move it to its own file")
	}
	return c.convert(docs[0].Body, 0)
}

// syntaxError records a YAML syntax error at the position goccy reports.
func (c *converter) syntaxError(err error) {
	pos := c.pos(1, 1)
	msg := err.Error()
	var ye yaml.Error
	if errors.As(err, &ye) {
		msg = ye.GetMessage()
		if tk := ye.GetToken(); tk != nil {
			pos = c.tokenPos(tk)
		}
	}
	msg = "YAML syntax error: " + msg + syntaxHint(c.lines, pos.Line, msg)
	if pos.Line <= len(c.lines) {
		line := string(c.lines[pos.Line-1])
		if strings.Contains(line, "' |") || strings.Contains(line, "\" |") {
			msg += "; a type that starts with a quote must be quoted as a whole, as in \"'idle' | 'busy'\""
		}
	}
	c.errs.add(pos, "%s", msg)
}

func isComment(n ast.Node) bool {
	switch n.(type) {
	case *ast.CommentNode, *ast.CommentGroupNode:
		return true
	}
	return false
}

// splitLines splits src into lines of runes, to clamp positions.
func splitLines(src []byte) [][]rune {
	var lines [][]rune
	for _, l := range strings.Split(string(src), "\n") {
		lines = append(lines, []rune(strings.TrimSuffix(l, "\r")))
	}
	return lines
}

// pos returns a position in the file, clamped to its text so that every
// reported position points inside the input.
func (c *converter) pos(line, col int) Pos {
	line = max(1, min(line, len(c.lines)))
	col = max(1, min(col, len(c.lines[line-1])+1))
	return Pos{File: c.file, Line: line, Col: col}
}

func (c *converter) tokenPos(tk *token.Token) Pos {
	if tk == nil || tk.Position == nil {
		return c.pos(1, 1)
	}
	return c.pos(tk.Position.Line, tk.Position.Column)
}

// convert turns one goccy node into a node.
func (c *converter) convert(n ast.Node, depth int) *node {
	out := c.convertNode(n, depth)
	if out.kind != nMap && out.kind != nSeq && out.raw == "" {
		out.raw = out.str
		if n != nil {
			if tk := n.GetToken(); tk != nil && out.kind != nString {
				out.raw = tk.Value
			}
		}
	}
	return out
}

// convertNode converts n, whatever its kind.
func (c *converter) convertNode(n ast.Node, depth int) *node {
	if n == nil {
		return &node{kind: nNull, pos: c.pos(1, 1)}
	}
	pos := c.tokenPos(n.GetToken())
	if depth > maxDepth {
		c.errs.add(pos, "YAML nested more than %d levels deep; flatten it with named types", maxDepth)
		return &node{kind: nNull, pos: pos, bad: true}
	}
	switch n := n.(type) {
	case *ast.MappingNode:
		m := &node{kind: nMap, pos: pos}
		if n.IsFlowStyle {
			m.pos = c.tokenPos(n.Start)
		}
		var pieces []ast.Node
		for i, mv := range n.Values {
			e := c.pair(mv, depth)
			if i == 0 && !n.IsFlowStyle {
				m.pos = e.key.pos
			}
			m.ents = append(m.ents, e)
			pieces = append(pieces, c.pieces(mv)...)
		}
		c.appendPieces(m, pieces, depth)
		return m
	case *ast.MappingValueNode:
		e := c.pair(n, depth)
		m := &node{kind: nMap, pos: e.key.pos, ents: []entry{e}}
		c.appendPieces(m, c.pieces(n), depth)
		return m
	case *ast.SequenceNode:
		s := &node{kind: nSeq, pos: pos}
		for i, v := range n.Values {
			it := c.convert(v, depth+1)
			if i < len(n.Entries) && n.Entries[i] != nil {
				c.placeImplicitNull(it, v, n.Entries[i].Start)
			}
			s.items = append(s.items, it)
		}
		return s
	case *ast.StringNode:
		if n.Token.Type == token.StringType && bigIntRE.MatchString(n.Value) {
			// The YAML parser leaves integers beyond 64 bits as strings.
			if s := bigInt(n.Value, pos); s != nil {
				return s
			}
		}
		s := &node{kind: nString, pos: pos, str: n.Value}
		switch n.Token.Type {
		case token.SingleQuoteType:
			s.style = styleSingle
		case token.DoubleQuoteType:
			s.style = styleDouble
		}
		return s
	case *ast.LiteralNode:
		s := &node{kind: nString, pos: pos, style: styleBlock}
		if n.Value != nil {
			s.str = n.Value.Value
		}
		return s
	case *ast.IntegerNode:
		return c.integer(n, pos)
	case *ast.FloatNode:
		return &node{kind: nFloat, pos: pos, f: n.Value, str: strconv.FormatFloat(n.Value, 'g', -1, 64), bad: math.IsInf(n.Value, 0) || math.IsNaN(n.Value)}
	case *ast.InfinityNode:
		return &node{kind: nFloat, pos: pos, f: n.Value, str: n.Token.Value, bad: true}
	case *ast.NanNode:
		return &node{kind: nFloat, pos: pos, f: math.NaN(), str: n.Token.Value, bad: true}
	case *ast.BoolNode:
		return &node{kind: nBool, pos: pos, b: n.Value, str: strconv.FormatBool(n.Value)}
	case *ast.NullNode:
		return &node{kind: nNull, pos: pos, str: "null"}
	case *ast.TagNode:
		return c.tagged(n, pos, depth)
	case *ast.AnchorNode:
		c.errs.add(pos, "YAML anchors (&name) are not supported; declare a named type under types: and refer to it by name")
		return c.convert(n.Value, depth+1)
	case *ast.AliasNode:
		c.errs.add(pos, "YAML aliases (*name) are not supported; declare a named type under types: and refer to it by name")
		return &node{kind: nNull, pos: pos, bad: true}
	case *ast.MappingKeyNode:
		return c.convert(n.Value, depth+1)
	case *ast.CommentGroupNode, *ast.CommentNode:
		return &node{kind: nNull, pos: pos}
	default:
		c.errs.add(pos, "unsupported YAML construct (%s)", n.Type())
		return &node{kind: nNull, pos: pos, bad: true}
	}
}

// pieces returns the pieces cut by parseSplit from the mapping whose
// entry mv is.
func (c *converter) pieces(mv *ast.MappingValueNode) []ast.Node {
	if len(c.more) == 0 || mv.Key == nil {
		return nil
	}
	return c.more[at(mv.Key.GetToken())]
}

// appendPieces appends the entries of the pieces cut from mapping m.
func (c *converter) appendPieces(m *node, pieces []ast.Node, depth int) {
	for _, p := range pieces {
		if pm := c.convertNode(p, depth); pm.kind == nMap {
			m.ents = append(m.ents, pm.ents...)
		}
	}
}

// pair converts one mapping entry.
func (c *converter) pair(mv *ast.MappingValueNode, depth int) entry {
	var key *node
	if _, ok := mv.Key.(*ast.MergeKeyNode); ok {
		key = &node{kind: nString, pos: c.tokenPos(mv.Key.GetToken()), str: "<<"}
		c.errs.add(key.pos, "YAML merge keys (<<) are not supported; use extends: to reuse the fields of another object type")
	} else {
		key = c.convert(mv.Key, depth+1)
	}
	if key.kind == nMap || key.kind == nSeq {
		c.errs.add(key.pos, "a mapping key must be a plain name, not a %s", key.kind)
		key = &node{kind: nString, pos: key.pos}
	}
	var val *node
	if mv.Value == nil {
		val = &node{kind: nNull, pos: key.pos}
	} else {
		val = c.convert(mv.Value, depth+1)
		c.placeImplicitNull(val, mv.Value, mv.Start)
	}
	return entry{key: key, val: val}
}

// placeImplicitNull puts the null that the YAML parser makes of a missing
// value (n, converted to out) right after the indicator before it, ':'
// or '-'. The parser puts it one column further when the indicator ends
// the tokens it parses, which parseSplit's pieces must not change.
func (c *converter) placeImplicitNull(out *node, n ast.Node, indicator *token.Token) {
	if null, ok := n.(*ast.NullNode); ok && null.Token != nil && null.Token.Type == token.ImplicitNullType && indicator != nil && indicator.Position != nil {
		out.pos = c.pos(indicator.Position.Line, indicator.Position.Column+1)
	}
}

// integer converts an integer scalar, keeping values beyond int64 as JSON
// numbers (intOK false), so that they are reported as out of range.
func (c *converter) integer(n *ast.IntegerNode, pos Pos) *node {
	s := &node{kind: nInt, pos: pos}
	switch v := n.Value.(type) {
	case int64:
		s.i, s.intOK, s.str = v, true, strconv.FormatInt(v, 10)
	case uint64:
		if v <= math.MaxInt64 {
			s.i, s.intOK = int64(v), true
		}
		s.str = strconv.FormatUint(v, 10)
	default:
		if b := bigInt(n.Token.Value, pos); b != nil {
			return b
		}
		s.kind, s.str = nString, n.Token.Value
	}
	return s
}

// tagged converts a node with a YAML tag: !!str turns the scalar into a
// string, other standard tags are ignored, custom tags are errors.
func (c *converter) tagged(n *ast.TagNode, pos Pos, depth int) *node {
	tag := ""
	if n.Start != nil {
		tag = n.Start.Value
	}
	inner := c.convert(n.Value, depth+1)
	switch tag {
	case "!!str":
		if inner.kind != nMap && inner.kind != nSeq && inner.kind != nString {
			text := inner.str
			if tk := n.Value.GetToken(); tk != nil {
				text = tk.Value
			}
			inner = &node{kind: nString, pos: inner.pos, str: text}
		}
	case "!!int", "!!float", "!!bool", "!!null", "!!map", "!!seq":
	default:
		c.errs.add(pos, "YAML tag %s is not supported; remove it", tag)
	}
	return inner
}

// columnIn returns the position of the character at rune offset off
// inside the string scalar n, whose columns are cols, following the
// quoting style of n on its line. When the offset cannot be mapped (block
// scalars, multi-line strings), the position of the scalar itself is
// returned.
func (c *converter) columnIn(n *node, cols []int, off int) Pos {
	if off < 0 || off >= len(cols) || cols[off] > len(c.lines[n.pos.Line-1]) {
		return n.pos
	}
	return c.pos(n.pos.Line, cols[off]+1)
}

// columns returns, for every rune offset from 0 to the length of the
// string scalar n, the index in its line of the character at that offset,
// or nil when the offsets cannot be mapped. It reads the line once, so
// the positions of all the tokens of a type take linear time.
func (c *converter) columns(n *node) []int {
	if n.pos.Line > len(c.lines) || n.style == styleBlock {
		return nil
	}
	line := c.lines[n.pos.Line-1]
	i := n.pos.Col - 1 // index of the scalar's first character in line
	count := utf8.RuneCountInString(n.str)
	cols := make([]int, 0, count+1)
	if n.style == stylePlain {
		if !runesHavePrefix(line[i:], n.str) {
			return nil // continued on other lines
		}
		for k := range count + 1 {
			cols = append(cols, i+k)
		}
		return cols
	}
	i++ // opening quote
	cols = append(cols, i)
	for range count {
		if i < len(line) {
			if n.style == styleSingle && line[i] == '\'' || n.style == styleDouble && line[i] == '\\' {
				i++
				if n.style == styleDouble && i < len(line) {
					i += escapeLen(line[i])
				}
			}
			i++
		}
		cols = append(cols, i)
	}
	return cols
}

// runesHavePrefix reports whether line starts with s, in time
// proportional to the length of s.
func runesHavePrefix(line []rune, s string) bool {
	k := 0
	for _, r := range s {
		if k >= len(line) || line[k] != r {
			return false
		}
		k++
	}
	return true
}

// escapeLen is how many characters follow the letter of a double-quoted
// escape sequence (\xNN, \uNNNN, \UNNNNNNNN).
func escapeLen(r rune) int {
	switch r {
	case 'x':
		return 2
	case 'u':
		return 4
	case 'U':
		return 8
	}
	return 0
}
