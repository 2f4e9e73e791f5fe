package lsp

import (
	"strconv"
	"strings"
)

// The IDL file is written from a small ordered tree, so that the output
// keeps the meta model's order and is the same on every run.

// node is a scalar, *mapping or *list.
type node any

// scalar is a YAML scalar: text is quoted when YAML would read it as
// something else; a verbatim scalar (numbers, booleans) is written as is.
type scalar struct {
	text     string
	verbatim bool
}

func str(s string) scalar { return scalar{text: s} }

// mapping is an ordered YAML mapping; flow mappings are written on one line.
type mapping struct {
	keys []string
	vals []node
	flow bool
}

func (m *mapping) set(key string, v node) *mapping {
	m.keys = append(m.keys, key)
	m.vals = append(m.vals, v)
	return m
}

// insertAfter puts key: v after the keys listed in after that m holds, or
// first.
func (m *mapping) insertAfter(key string, v node, after ...string) {
	at := 0
	for i, k := range m.keys {
		for _, a := range after {
			if k == a {
				at = i + 1
			}
		}
	}
	m.keys = append(m.keys[:at], append([]string{key}, m.keys[at:]...)...)
	m.vals = append(m.vals[:at], append([]node{v}, m.vals[at:]...)...)
}

// list is a YAML sequence; flow lists are written on one line.
type list struct {
	items []node
	flow  bool
}

// yamlWriter writes a node tree as block-style YAML.
type yamlWriter struct {
	b strings.Builder
}

func (w *yamlWriter) comment(lines ...string) {
	for _, l := range lines {
		w.b.WriteString("# " + l + "\n")
	}
}

// mapping writes m's entries at indent.
func (w *yamlWriter) mapping(m *mapping, indent int) {
	for i, k := range m.keys {
		w.b.WriteString(strings.Repeat(" ", indent))
		w.entry(k, m.vals[i], indent)
	}
}

// entry writes "key: value" and its block content, starting at the
// current position.
func (w *yamlWriter) entry(key string, v node, indent int) {
	w.b.WriteString(quote(key, false) + ":")
	if inline, ok := flowText(v); ok {
		w.b.WriteString(" " + inline + "\n")
		return
	}
	w.b.WriteString("\n")
	switch v := v.(type) {
	case *mapping:
		w.mapping(v, indent+2)
	case *list:
		w.list(v, indent+2)
	}
}

func (w *yamlWriter) list(l *list, indent int) {
	for _, it := range l.items {
		w.b.WriteString(strings.Repeat(" ", indent) + "- ")
		if inline, ok := flowText(it); ok {
			w.b.WriteString(inline + "\n")
			continue
		}
		m, ok := it.(*mapping)
		if !ok { // a block list inside a block list
			w.b.WriteString("\n")
			w.list(it.(*list), indent+2)
			continue
		}
		for i, k := range m.keys {
			if i > 0 {
				w.b.WriteString(strings.Repeat(" ", indent+2))
			}
			w.entry(k, m.vals[i], indent+2)
		}
	}
}

// flowText renders v on one line when it is a scalar, a flow collection or
// an empty collection.
func flowText(v node) (string, bool) {
	switch v := v.(type) {
	case scalar:
		if v.verbatim {
			return v.text, true
		}
		return quote(v.text, false), true
	case *mapping:
		if !v.flow && len(v.keys) > 0 {
			return "", false
		}
		parts := make([]string, len(v.keys))
		for i, k := range v.keys {
			s, ok := flowItem(v.vals[i])
			if !ok {
				return "", false
			}
			parts[i] = quote(k, true) + ": " + s
		}
		return "{" + strings.Join(parts, ", ") + "}", true
	case *list:
		if !v.flow && len(v.items) > 0 {
			return "", false
		}
		parts := make([]string, len(v.items))
		for i, it := range v.items {
			s, ok := flowItem(it)
			if !ok {
				return "", false
			}
			parts[i] = s
		}
		return "[" + strings.Join(parts, ", ") + "]", true
	}
	return "", false
}

func flowItem(v node) (string, bool) {
	if s, ok := v.(scalar); ok {
		if s.verbatim {
			return s.text, true
		}
		return quote(s.text, true), true
	}
	return flowText(v)
}

// quote returns s as a YAML scalar that reads back as the string s:
// plain when that is unambiguous, else double-quoted.
func quote(s string, inFlow bool) string {
	if plain(s, inFlow) {
		return s
	}
	return strconv.Quote(s)
}

func plain(s string, inFlow bool) bool {
	if s == "" || s != strings.TrimSpace(s) {
		return false
	}
	switch strings.ToLower(s) {
	case "null", "~", "true", "false", "yes", "no", "on", "off", "y", "n":
		return false
	}
	c := s[0]
	if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_' || c == '$' || c == '/') {
		return false
	}
	if strings.Contains(s, ": ") || strings.Contains(s, " #") || strings.HasSuffix(s, ":") {
		return false
	}
	for _, r := range s {
		switch {
		case r > 0x7e || r < 0x20:
			return false
		case strings.ContainsRune("'\"`!&*%@\\", r):
			return false
		case inFlow && strings.ContainsRune(",[]{}", r):
			return false
		}
	}
	return true
}
