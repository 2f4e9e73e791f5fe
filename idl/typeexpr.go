package idl

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The compact type syntax, used wherever a type is written as a string:
//
//	expr    = term { "|" term }
//	term    = "[]" term | primary { "?" }
//	primary = "string" | "integer" | "int32" | "uint32" | "number"
//	        | "boolean" | "any" | "null"
//	        | "array" "<" expr ">" | "map" "<" key "," expr ">"
//	        | Name | 'literal' | "literal" | integer | "true" | "false"
//	        | "(" expr ")"
//	integer = [ "-" ] digit { digit }
//	key     = "string" | "integer" | Name
//
// "T?" and "T | null" both make T nullable. A union of string literals is
// a string enum, a union of integer literals an integer enum, and a single
// literal a constant; any other union of types is one whose variants
// differ by JSON kind. Literals cannot be mixed with types or with
// literals of another kind.

// tokKind is the kind of a compact-syntax token.
type tokKind uint8

const (
	tEOF tokKind = iota
	tIdent
	tString
	tInt   // an integer literal, e.g. -12
	tPunct // one of []<>,|?()
	tBad
)

// tok is one token; off is its offset in runes from the start of the
// expression.
type tok struct {
	kind tokKind
	text string
	off  int
}

// exprParser parses one compact type expression held in the string node n.
type exprParser struct {
	d    *decoder
	n    *node
	cols []int // columns of n, see converter.columns
	toks []tok
	i    int
	ok   bool
}

// lexExpr splits src into tokens. An unterminated string or an unexpected
// character yields a tBad token.
func lexExpr(src string) []tok {
	rs := []rune(src)
	var toks []tok
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			i++
		case r == '[' && i+1 < len(rs) && rs[i+1] == ']':
			toks = append(toks, tok{tPunct, "[]", i})
			i += 2
		case strings.ContainsRune("<>,|?()", r):
			toks = append(toks, tok{tPunct, string(r), i})
			i++
		case r == '\'' || r == '"':
			j := i + 1
			for j < len(rs) && rs[j] != r {
				j++
			}
			if j == len(rs) {
				return append(toks, tok{tBad, "unterminated string literal; close it with " + string(r), i})
			}
			toks = append(toks, tok{tString, string(rs[i+1 : j]), i})
			i = j + 1
		case isDigit(r) || r == '-' && i+1 < len(rs) && isDigit(rs[i+1]):
			j := i + 1
			for j < len(rs) && isDigit(rs[j]) {
				j++
			}
			if j < len(rs) && (rs[j] == '.' || isIdentPart(rs[j])) {
				k := j
				for k < len(rs) && (rs[k] == '.' || rs[k] == '+' || rs[k] == '-' || isIdentPart(rs[k])) {
					k++
				}
				return append(toks, tok{tBad, fmt.Sprintf("%s is not an integer literal; for a constant number write {type: number, const: %s}", string(rs[i:k]), string(rs[i:k])), i})
			}
			toks = append(toks, tok{tInt, string(rs[i:j]), i})
			i = j
		case isIdentStart(r):
			j := i
			for j < len(rs) && isIdentPart(rs[j]) {
				j++
			}
			toks = append(toks, tok{tIdent, string(rs[i:j]), i})
			i = j
		case r == '[' && len(toks) > 0 && toks[len(toks)-1].kind == tIdent && toks[len(toks)-1].text == "map":
			return append(toks, tok{tBad, "unexpected '[' in type: write a map as map<K, T>, such as map<string, integer>", i})
		default:
			return append(toks, tok{tBad, fmt.Sprintf("unexpected character %q in type", r), i})
		}
	}
	return append(toks, tok{tEOF, "", len(rs)})
}

func isIdentStart(r rune) bool {
	return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
}

func isIdentPart(r rune) bool { return isIdentStart(r) || isDigit(r) }

func isDigit(r rune) bool { return '0' <= r && r <= '9' }

// compactType parses the string node n as a compact type expression.
// It returns nil after reporting an error.
func (d *decoder) compactType(n *node) *tspec {
	p := &exprParser{d: d, n: n, cols: d.conv.columns(n), toks: lexExpr(n.str), ok: true}
	if p.peek().kind == tEOF {
		d.errs.add(n.pos, "empty type; write a type such as string, integer, []string or a type name")
		return nil
	}
	t := p.expr()
	if p.ok && p.peek().kind != tEOF {
		p.fail(p.peek(), "unexpected %s after the type; join alternatives with |", p.describe(p.peek()))
	}
	if !p.ok {
		return nil
	}
	return t
}

// col returns the position of the character at rune offset off of the
// expression.
func (p *exprParser) col(off int) Pos { return p.d.conv.columnIn(p.n, p.cols, off) }

func (p *exprParser) peek() tok { return p.toks[p.i] }

func (p *exprParser) next() tok {
	t := p.toks[p.i]
	if t.kind != tEOF && t.kind != tBad {
		p.i++
	}
	return t
}

// fail reports an error at t, once per expression.
func (p *exprParser) fail(t tok, format string, args ...any) {
	if p.ok {
		p.ok = false
		if t.kind == tBad {
			format, args = "%s", []any{t.text}
		}
		p.d.errs.add(p.col(t.off), format, args...)
	}
}

func (p *exprParser) describe(t tok) string {
	switch t.kind {
	case tEOF:
		return "end of type"
	case tString:
		return fmt.Sprintf("'%s'", t.text)
	case tInt:
		return t.text
	}
	return fmt.Sprintf("%q", t.text)
}

// failAt reports an error at pos, once per expression.
func (p *exprParser) failAt(pos Pos, format string, args ...any) {
	if p.ok {
		p.ok = false
		p.d.errs.add(pos, format, args...)
	}
}

func (p *exprParser) expect(text, hint string) bool {
	if t := p.peek(); t.kind == tPunct && t.text == text {
		p.next()
		return true
	}
	p.fail(p.peek(), "expected %q %s, found %s", text, hint, p.describe(p.peek()))
	return false
}

// expr parses alternatives joined by "|".
func (p *exprParser) expr() *tspec {
	start := p.peek()
	alts := []*tspec{p.term()}
	var nulls []tok
	for p.ok && p.peek().kind == tPunct && p.peek().text == "|" {
		p.next()
		if t := p.peek(); t.kind == tIdent && t.text == "null" {
			nulls = append(nulls, p.next())
			continue
		}
		alts = append(alts, p.term())
	}
	if !p.ok {
		return nil
	}
	if alts[0] == nil { // the first alternative was "null"
		alts = alts[1:]
		nulls = append([]tok{start}, nulls...)
	}
	if len(nulls) > 1 {
		p.fail(nulls[1], "null is listed twice in this union; remove one")
		return nil
	}
	if len(alts) == 0 {
		p.fail(start, "null alone is not a type; write T | null, or leave the key out")
		return nil
	}
	t := p.union(alts, start)
	if t != nil && len(nulls) == 1 {
		t.nullable = true
	}
	return t
}

// union builds the type of a list of alternatives (null removed). Only
// literals hold a constant in the compact syntax.
func (p *exprParser) union(alts []*tspec, start tok) *tspec {
	if len(alts) == 1 {
		return alts[0]
	}
	pos := p.col(start.off)
	var first *tspec // the first literal
	literals := 0
	for _, a := range alts {
		if a.constv == nil {
			continue
		}
		literals++
		if first == nil {
			first = a
		} else if a.kind != first.kind {
			p.failAt(a.pos, "a union cannot mix %s and %s literals; the values of an enum are all strings or all integers", literalKind(first), literalKind(a))
			return nil
		}
	}
	switch {
	case literals == 0:
		return &tspec{pos: pos, kind: KindUnion, variants: alts}
	case literals < len(alts) && first.kind == KindBoolean:
		p.fail(start, "a union cannot mix boolean literals with other types; declare the literal as a named type under types:, as in Off: \"false\", and use its name here")
		return nil
	case literals < len(alts):
		p.fail(start, "a union cannot mix %s literals with other types; declare the literals as a named enum under types: and use its name here", literalKind(first))
		return nil
	case first.kind == KindBoolean:
		p.fail(start, "boolean literals cannot make an enum; write boolean for true or false, or a single literal for a constant")
		return nil
	}
	e := &tspec{pos: pos, kind: KindEnum}
	for _, a := range alts {
		var v any = a.constv.str
		if a.kind == KindInteger {
			v = a.constv.i
		}
		e.values = append(e.values, &vspec{value: v, pos: a.pos})
		e.nullable = e.nullable || a.nullable
	}
	return e
}

// literalKind names the kind of a literal in messages.
func literalKind(a *tspec) string {
	return map[Kind]string{KindString: "string", KindInteger: "integer", KindBoolean: "boolean"}[a.kind]
}

// term parses "[]" term or a primary followed by "?" marks.
func (p *exprParser) term() *tspec {
	t := p.peek()
	if t.kind == tPunct && t.text == "[]" {
		p.next()
		elem := p.term()
		if elem == nil {
			p.fail(p.toks[p.i-1], "null alone is not a type; write []T or ([]T | null)")
			return nil
		}
		return &tspec{pos: p.col(t.off), kind: KindArray, elem: elem}
	}
	if t.kind == tIdent && t.text == "null" {
		p.next()
		return nil // handled by expr
	}
	s := p.primary()
	for s != nil && p.peek().kind == tPunct && p.peek().text == "?" {
		q := p.next()
		if s.nullable {
			p.fail(q, "a single ? makes a type nullable; remove the extra one")
			return nil
		}
		s.nullable = true
	}
	return s
}

// primary parses a keyword, a name, a literal or a parenthesized type.
func (p *exprParser) primary() *tspec {
	t := p.next()
	pos := p.col(t.off)
	switch t.kind {
	case tString:
		return &tspec{pos: pos, kind: KindString, constv: &node{kind: nString, pos: pos, str: t.text}}
	case tInt:
		i, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil {
			p.fail(t, "integer literal %s is out of range for a 64-bit integer (%d to %d)", t.text, math.MinInt64, math.MaxInt64)
			return nil
		}
		text := strconv.FormatInt(i, 10)
		return &tspec{pos: pos, kind: KindInteger, constv: &node{kind: nInt, pos: pos, str: text, raw: t.text, i: i, intOK: true}}
	case tPunct:
		if t.text == "(" {
			in := p.expr()
			if !p.expect(")", "to close the parenthesis") {
				return nil
			}
			return in
		}
	case tIdent:
		switch t.text {
		case "string":
			return &tspec{pos: pos, kind: KindString}
		case "integer":
			return &tspec{pos: pos, kind: KindInteger}
		case "int32":
			return &tspec{pos: pos, kind: KindInteger, numSpec: numSpec{width: Int32}}
		case "uint32":
			return &tspec{pos: pos, kind: KindInteger, numSpec: numSpec{width: Uint32}}
		case "number":
			return &tspec{pos: pos, kind: KindNumber}
		case "boolean":
			return &tspec{pos: pos, kind: KindBoolean}
		case "any":
			return &tspec{pos: pos, kind: KindAny}
		case "true", "false":
			return &tspec{pos: pos, kind: KindBoolean, constv: &node{kind: nBool, pos: pos, str: t.text, raw: t.text, b: t.text == "true"}}
		case "array":
			return p.array(pos)
		case "map":
			return p.mapType(pos)
		}
		return &tspec{pos: pos, kind: KindRef, ref: t.text}
	}
	p.fail(t, "expected a type, found %s", p.describe(t))
	return nil
}

// array parses "<" expr ">" after the keyword array.
func (p *exprParser) array(pos Pos) *tspec {
	if !p.expect("<", "after array, as in array<string>") {
		return nil
	}
	elem := p.expr()
	if !p.ok || !p.expect(">", "to close array<") {
		return nil
	}
	return &tspec{pos: pos, kind: KindArray, elem: elem}
}

// mapType parses "<" key "," expr ">" after the keyword map. A key other
// than string is kept in the type, and checked once every type is known.
func (p *exprParser) mapType(pos Pos) *tspec {
	if !p.expect("<", "after map, as in map<string, any>") {
		return nil
	}
	k := p.peek()
	if k.kind != tIdent || k.text == "null" || k.text == "any" || k.text == "true" || k.text == "false" || k.text == "array" || k.text == "map" {
		p.fail(k, "map keys are JSON object keys; write map<K, T> where K is string, integer, or the name of a string or integer type (an alias or an enum)")
		return nil
	}
	key := p.primary()
	if key != nil && p.peek().kind == tEOF {
		p.fail(p.peek(), "the type ends after the key of map<: inside a YAML flow mapping { … } a comma ends the value; quote the whole type, as in '%s, T>'", strings.TrimSpace(p.n.str))
		return nil
	}
	if key == nil || !p.expect(",", "between the key and value types of map<K, T>") {
		return nil
	}
	if key.kind == KindString {
		key = nil // plain string keys
	}
	elem := p.expr()
	if !p.ok || !p.expect(">", "to close map<") {
		return nil
	}
	return &tspec{pos: pos, kind: KindMap, elem: elem, key: key}
}
