package main

import (
	"errors"
	"fmt"
	"strings"
)

// errTOMLNull marks a tree TOML cannot hold: an empty repetition is null,
// and TOML has no null. Hermes fails such a request the same way.
var errTOMLNull = errors.New("TOML has no null: the message has an empty field repetition")

// toTOML returns the message in the TOML format.
func (m *message) toTOML() (string, error) {
	w := &tomlWriter{first: true}
	if err := w.table(m.tree(), nil, false); err != nil {
		return "", err
	}
	return w.b.String(), nil
}

type tomlWriter struct {
	b     strings.Builder
	first bool // no table header written yet
}

// tableLike reports whether v is written as a table of its own rather
// than as a value: an object, or a non-empty array of objects only (an
// array of tables). Inside an array value everything stays inline.
func tableLike(v any) bool {
	switch v := v.(type) {
	case *object:
		return true
	case []any:
		for _, e := range v {
			if _, ok := e.(*object); !ok {
				return false
			}
		}
		return len(v) > 0
	}
	return false
}

// table writes o under the header path: its values, then its tables in
// order. A table with members but no values has no header of its own;
// an element of an array of tables always has one.
func (w *tomlWriter) table(o *object, path []string, arrayElem bool) error {
	values := 0
	for _, v := range o.vals {
		if !tableLike(v) {
			values++
		}
	}
	if len(path) > 0 && (arrayElem || values > 0 || len(o.keys) == 0) {
		if !w.first {
			w.b.WriteString("\n")
		}
		w.first = false
		if arrayElem {
			w.b.WriteString("[[" + strings.Join(path, ".") + "]]\n")
		} else {
			w.b.WriteString("[" + strings.Join(path, ".") + "]\n")
		}
	} else if len(path) == 0 && values > 0 {
		w.first = false
	}
	for i, v := range o.vals {
		if tableLike(v) {
			continue
		}
		w.b.WriteString(o.keys[i] + " = ")
		if err := w.value(v); err != nil {
			return err
		}
		w.b.WriteString("\n")
	}
	for i, v := range o.vals {
		sub := append(path[:len(path):len(path)], o.keys[i])
		switch v := v.(type) {
		case *object:
			if err := w.table(v, sub, false); err != nil {
				return err
			}
		case []any:
			if !tableLike(v) {
				continue
			}
			for _, e := range v {
				if err := w.table(e.(*object), sub, true); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// value writes v inline; an array of two or more elements has one a
// line, indented by four spaces, each followed by a comma.
func (w *tomlWriter) value(v any) error {
	switch v := v.(type) {
	case nil:
		return errTOMLNull
	case string:
		w.b.WriteString(tomlString(v))
	case []any:
		w.b.WriteString("[")
		multi := len(v) > 1
		for _, e := range v {
			if multi {
				w.b.WriteString("\n    ")
			}
			if err := w.value(e); err != nil {
				return err
			}
			if multi {
				w.b.WriteString(",")
			}
		}
		if multi {
			w.b.WriteString("\n")
		}
		w.b.WriteString("]")
	case *object:
		if len(v.keys) == 0 {
			w.b.WriteString("{}")
			return nil
		}
		w.b.WriteString("{ ")
		for i, k := range v.keys {
			if i > 0 {
				w.b.WriteString(", ")
			}
			w.b.WriteString(k + " = ")
			if err := w.value(v.vals[i]); err != nil {
				return err
			}
		}
		w.b.WriteString(" }")
	}
	return nil
}

// tomlString picks the first style that holds s without escapes: a basic
// string, a literal string, a multi-line basic string, a multi-line
// literal string; failing all, an escaped basic string.
func tomlString(s string) string {
	var sq, dq, maxSQ, maxDQ int
	var escape, codes, newline bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\'' {
			sq++
			maxSQ = max(maxSQ, sq)
		} else {
			sq = 0
		}
		if c == '"' {
			dq++
			maxDQ = max(maxDQ, dq)
		} else {
			dq = 0
		}
		switch {
		case c == '\\':
			escape = true
		case c == '\t':
		case c == '\n':
			newline = true
		case c <= 0x1f || c == 0x7f:
			codes = true
		}
	}
	switch {
	case !codes && !escape && maxDQ == 0 && !newline:
		return tomlBasic(s, `"`, 0)
	case !codes && maxSQ == 0 && !newline:
		return "'" + s + "'"
	case !codes && !escape && maxDQ <= 2:
		return tomlBasic(s, `"""`, 2)
	case !codes && maxSQ <= 2:
		return "'''" + nl(newline) + s + "'''"
	case newline:
		return tomlBasic(s, `"""`, 2)
	}
	return tomlBasic(s, `"`, 0)
}

func nl(b bool) string {
	if b {
		return "\n"
	}
	return ""
}

// tomlBasic writes s as a basic string with delimiter delim, escaping
// what it must; quotes may run up to maxDQ long unescaped.
func tomlBasic(s, delim string, maxDQ int) string {
	ml := len(delim) == 3
	var b strings.Builder
	b.WriteString(delim)
	if ml && strings.Contains(s, "\n") {
		b.WriteString("\n")
	}
	dq := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' {
			if dq++; dq > maxDQ {
				b.WriteString(`\"`)
				dq = 0
				continue
			}
		} else {
			dq = 0
		}
		switch {
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n' && !ml:
			b.WriteString(`\n`)
		case c == '\f':
			b.WriteString(`\f`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\\':
			b.WriteString(`\\`)
		case c != '\n' && (c <= 0x1f || c == 0x7f):
			fmt.Fprintf(&b, `\u%04X`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteString(delim)
	return b.String()
}
