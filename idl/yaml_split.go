package idl

import (
	"errors"
	"fmt"
	"slices"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// The YAML parser takes time and stack depth proportional to n² for a
// block mapping of n keys: it recurses once per key and copies the keys
// parsed so far at every level. To load files with many types, fields or
// methods in linear time, parseSplit cuts every long run of sibling keys
// into pieces of chunkKeys keys, parses each piece on its own, and the
// converter appends the entries of the pieces to the mapping they were
// cut from.

// chunkKeys is how many sibling keys the YAML parser is given at once. A
// variable so that tests can cut every mapping.
var chunkKeys = 128

// tokenAt is the line and column of a token.
type tokenAt struct{ line, col int }

func at(tk *token.Token) tokenAt {
	if tk == nil || tk.Position == nil {
		return tokenAt{}
	}
	return tokenAt{tk.Position.Line, tk.Position.Column}
}

// keyRun is a run of sibling keys of one block mapping, each the first
// token of its line, from the first key written on a line of its own to
// the end of the mapping.
type keyRun struct {
	col  int
	keys []int // indexes of the key tokens
	end  int   // index of the first token after the mapping
	odd  bool  // a key follows a node property or indicator waiting for a value: not cut
}

// parseSplit parses src as parser.ParseBytes does, with long runs of
// sibling keys parsed piece by piece. The pieces cut from a mapping are
// recorded in c.more under the position of the mapping's first key
// written on a line of its own.
func (c *converter) parseSplit(src []byte) (*ast.File, error) {
	tks := lexer.Tokenize(string(src))
	if tks.InvalidToken() != nil || loneCR(src) {
		// An invalid token is reported as it is; a CR alone ends a
		// line for the YAML parser but not in c.lines, which the cuts
		// are computed from.
		return safeParse(tks)
	}
	return c.parsePieces(tks)
}

// loneCR reports whether src holds a CR not followed by LF.
func loneCR(src []byte) bool {
	for i, b := range src {
		if b == '\r' && (i+1 == len(src) || src[i+1] != '\n') {
			return true
		}
	}
	return false
}

// parsePieces parses tks, cutting the long runs of keys it holds; the
// pieces are parsed the same way, so that the runs inside them are cut
// too.
func (c *converter) parsePieces(tks token.Tokens) (*ast.File, error) {
	runs := c.keyRuns(tks)
	if len(runs) == 0 {
		return safeParse(tks)
	}
	type piece struct {
		owner tokenAt
		tks   token.Tokens
	}
	var (
		pieces []piece
		cuts   [][2]int // token ranges cut out of tks, disjoint
	)
	for _, r := range runs {
		for i := chunkKeys; i < len(r.keys); i += chunkKeys {
			end := r.end
			if i+chunkKeys < len(r.keys) {
				end = r.keys[i+chunkKeys]
			}
			pieces = append(pieces, piece{at(tks[r.keys[0]]), tks[r.keys[i]:end]})
		}
		cuts = append(cuts, [2]int{r.keys[chunkKeys], r.end})
	}
	slices.SortFunc(cuts, func(a, b [2]int) int { return a[0] - b[0] })
	var rest token.Tokens // tks without the pieces
	from := 0
	for _, cut := range cuts {
		rest = append(rest, tks[from:cut[0]]...)
		from = cut[1]
	}
	rest = append(rest, tks[from:]...)
	f, err := safeParse(rest)
	errs := []error{err}
	for _, p := range pieces {
		pf, err := c.parsePieces(p.tks)
		errs = append(errs, err)
		if err == nil && len(pf.Docs) == 1 && pf.Docs[0].Body != nil {
			c.more[p.owner] = append(c.more[p.owner], pf.Docs[0].Body)
		}
	}
	if err := firstError(errs); err != nil {
		return nil, err
	}
	return f, nil
}

// cuttable reports whether tks can be cut before the key tks[i]: the
// token before it completes the entry before, rather than waiting for a
// value, as an anchor or alias (with its name), a tag or a block scalar
// indicator does (the YAML parser may then read the following keys as that value).
func cuttable(tks token.Tokens, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch tks[j].Type {
		case token.CommentType:
			continue
		case token.AnchorType, token.AliasType, token.TagType, token.LiteralType, token.FoldedType, token.MappingKeyType:
			return false
		}
		return !isName(tks, j)

	}
	return false
}

// safeParse runs the YAML parser on tks, turning a panic into an error.
func safeParse(tks token.Tokens) (f *ast.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("the YAML parser failed: %v", r)
		}
	}()
	return parser.Parse(tks, 0, parser.AllowDuplicateMapKey())
}

// firstError returns the error of errs nearest the start of the file.
func firstError(errs []error) error {
	var first error
	var firstAt tokenAt
	for _, err := range errs {
		if err == nil {
			continue
		}
		pos := tokenAt{1 << 62, 0}
		var ye yaml.Error
		if errors.As(err, &ye) && ye.GetToken() != nil {
			pos = at(ye.GetToken())
		}
		if first == nil || pos.line < firstAt.line || pos.line == firstAt.line && pos.col < firstAt.col {
			first, firstAt = err, pos
		}
	}
	return first
}

// keyRuns returns, ordered by start, the runs of more than chunkKeys
// sibling keys in tks, leaving out those inside the pieces of another
// (they are found again when that piece is parsed).
func (c *converter) keyRuns(tks token.Tokens) []keyRun {
	var open, found []keyRun
	// closeAbove closes the open runs deeper than col at token i: their
	// mappings end there.
	closeAbove := func(col, i int) {
		for len(open) > 0 && open[len(open)-1].col > col {
			r := open[len(open)-1]
			open = open[:len(open)-1]
			// The mapping must end cleanly: after a complete entry (not
			// after a tag or anchor whose value the parser may look for
			// past the mapping's end), at a key, entry or marker.
			if len(r.keys) > chunkKeys && !r.odd && cuttable(tks, i) && plainEnd(tks, i) {
				r.end = i
				found = append(found, r)
			}
		}
	}
	flow := 0
	for i, tk := range tks {
		inFlow := flow > 0
		switch tk.Type {
		case token.CommentType:
			continue
		case token.MappingStartType, token.SequenceStartType:
			flow++
		case token.MappingEndType, token.SequenceEndType:
			flow = max(0, flow-1)
		}
		if inFlow || !c.startsLine(tk) {
			continue
		}
		col := tk.Position.Column
		closeAbove(col, i)
		key := isBlockKey(tks, i)
		if n := len(open); n > 0 && open[n-1].col == col {
			if key {
				open[n-1].keys = append(open[n-1].keys, i)
				open[n-1].odd = open[n-1].odd || !cuttable(tks, i)
				continue
			}
			// Something other than a key at the column of the keys,
			// such as a list under the last key: the mapping goes on,
			// so its keys so far are not cut.
			open = open[:n-1]
		}
		if key {
			open = append(open, keyRun{col: col, keys: []int{i}})
		}
	}
	closeAbove(0, len(tks))
	slices.SortFunc(found, func(a, b keyRun) int { return a.keys[0] - b.keys[0] })
	// Runs nest: a run starts either inside the pieces of one run taken
	// already, or after all of them end.
	var runs []keyRun
	var cut [][2]int // token ranges of the pieces of the runs taken, nested
	for _, r := range found {
		s := r.keys[0]
		for len(cut) > 0 && cut[len(cut)-1][1] <= s {
			cut = cut[:len(cut)-1]
		}
		if len(cut) > 0 && s >= cut[len(cut)-1][0] {
			continue
		}
		runs = append(runs, r)
		cut = append(cut, [2]int{r.keys[chunkKeys], r.end})
	}
	return runs
}

// isBlockKey reports whether tks[i] is a plain or quoted scalar followed,
// on its line, by the ':' of a mapping entry.
func isBlockKey(tks token.Tokens, i int) bool {
	switch tks[i].Type {
	case token.StringType, token.SingleQuoteType, token.DoubleQuoteType, token.IntegerType:
	default:
		return false
	}
	if isName(tks, i) {
		return false
	}
	for _, next := range tks[i+1:] {
		if next.Type == token.CommentType {
			continue
		}
		return next.Type == token.MappingValueType && next.Position != nil && next.Position.Line == tks[i].Position.Line
	}
	return false
}

// plainEnd reports whether the token tks[i] that ends a mapping, if any,
// is a key, a list entry or a document marker: a node property there,
// such as a tag, would follow another token once the mapping is cut.
func plainEnd(tks token.Tokens, i int) bool {
	if i >= len(tks) {
		return true
	}
	switch tks[i].Type {
	case token.SequenceEntryType, token.DocumentHeaderType, token.DocumentEndType:
		return true
	}
	return isBlockKey(tks, i)
}

// isName reports whether tks[i] is the name of an anchor or an alias.
func isName(tks token.Tokens, i int) bool {
	return i > 0 && (tks[i-1].Type == token.AnchorType || tks[i-1].Type == token.AliasType)
}

// startsLine reports whether only spaces precede tk on its line.
func (c *converter) startsLine(tk *token.Token) bool {
	p := tk.Position
	if p == nil || p.Line < 1 || p.Line > len(c.lines) {
		return false
	}
	if c.indents == nil {
		c.indents = make([]int, len(c.lines))
		for i, line := range c.lines {
			for c.indents[i] < len(line) && line[c.indents[i]] == ' ' {
				c.indents[i]++
			}
		}
	}
	return p.Column == c.indents[p.Line-1]+1 && p.Column <= len(c.lines[p.Line-1])
}
