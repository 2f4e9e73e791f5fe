package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// The writers below produce the text Hermes produces for each structured
// format, byte for byte for the trees a message makes: JSON indented by
// two spaces, block YAML indented by two with plain scalars where they
// read back as strings, and TOML with a [[segments]] table per segment
// and a table per object outside arrays.

// writeJSON writes v as indented JSON.
func writeJSON(b *strings.Builder, v any, indent string) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case string:
		jsonString(b, v)
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[")
		for i, e := range v {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n" + indent + "  ")
			writeJSON(b, e, indent+"  ")
		}
		b.WriteString("\n" + indent + "]")
	case *object:
		if len(v.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{")
		for i, k := range v.keys {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n" + indent + "  ")
			jsonString(b, k)
			b.WriteString(": ")
			writeJSON(b, v.vals[i], indent+"  ")
		}
		b.WriteString("\n" + indent + "}")
	}
}

// jsonString quotes s escaping only what JSON requires: quote, backslash
// and control characters (\b \t \n \f \r by name, others as \u00xx).
func jsonString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c < 0x20 {
				fmt.Fprintf(b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

// toJSON returns the message in the JSON format.
func (m *message) toJSON() string {
	var b strings.Builder
	writeJSON(&b, m.tree(), "")
	return b.String()
}

// toYAML returns the message in the YAML format.
func (m *message) toYAML() string {
	var b strings.Builder
	writeYAMLMap(&b, m.tree(), 0, false)
	return b.String()
}

// writeYAMLMap writes the members of o at depth (two spaces a level);
// afterDash puts the first one on the current line, after "- ".
func writeYAMLMap(b *strings.Builder, o *object, depth int, afterDash bool) {
	if len(o.keys) == 0 {
		b.WriteString("\n")
		return
	}
	for i, k := range o.keys {
		if i > 0 || !afterDash {
			b.WriteString(strings.Repeat("  ", depth))
		}
		b.WriteString(k + ":")
		writeYAMLValue(b, o.vals[i], depth)
	}
}

// writeYAMLValue writes v after "key:" or "- ": a scalar on the same
// line, a collection on the following lines one level deeper than depth.
func writeYAMLValue(b *strings.Builder, v any, depth int) {
	switch v := v.(type) {
	case nil:
		b.WriteString(" null\n")
	case string:
		b.WriteString(" " + yamlScalar(v) + "\n")
	case []any:
		b.WriteString("\n")
		writeYAMLSeq(b, v, depth+1)
	case *object:
		b.WriteString("\n")
		writeYAMLMap(b, v, depth+1, false)
	}
}

// writeYAMLSeq writes the elements of a at depth, each after "- ".
func writeYAMLSeq(b *strings.Builder, a []any, depth int) {
	for _, e := range a {
		b.WriteString(strings.Repeat("  ", depth) + "-")
		switch e := e.(type) {
		case *object:
			b.WriteString(" ")
			writeYAMLMap(b, e, depth+1, true)
		case nil:
			b.WriteString(" null\n")
		case string:
			b.WriteString(" " + yamlScalar(e) + "\n")
		}
	}
}

// yamlScalar writes s plain when it reads back as the same string, and
// double-quoted otherwise (numbers, YAML 1.1 booleans, null, indicators).
func yamlScalar(s string) string {
	if s == "." || s == "#" || s == "-" {
		return "'" + s + "'"
	}
	if yamlPlain(s) {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case 0:
			b.WriteString(`\0`)
		case 7:
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\v':
			b.WriteString(`\v`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		case 0x1b:
			b.WriteString(`\e`)
		case 0xfeff:
			b.WriteString(`\uFEFF`)
		case 0x85:
			b.WriteString(`\N`)
		case 0x2028:
			b.WriteString(`\L`)
		case 0x2029:
			b.WriteString(`\P`)
		default:
			if unicode.IsControl(r) {
				fmt.Fprintf(&b, `\x%02X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// yamlPlain reports whether s may be written as a plain scalar.
func yamlPlain(s string) bool {
	if s == "" || s == "~" || strings.EqualFold(s, "null") || yamlNumber(s) || yamlBool(s) {
		return false
	}
	if c := s[0]; c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || strings.IndexByte("-?:[]{}#&*!|>'\"%@`", c) >= 0 {
		return false
	}
	if strings.Contains(s, ": ") {
		return false
	}
	return !strings.ContainsFunc(s, func(r rune) bool { return strings.ContainsRune(",[]{}#", r) || unicode.IsControl(r) })
}

// yamlBool reports whether s is a YAML 1.1 boolean (y, yes, on, ...).
func yamlBool(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "y", "on", "false", "no", "n", "off":
		return true
	}
	return false
}

// yamlNumber reports whether s reads as an integer (decimal, 0x, 0o, 0b
// or 00-prefixed octal, with _ allowed between digits) or a float.
func yamlNumber(s string) bool {
	t := strings.TrimSpace(s)
	rest := t
	if r, ok := strings.CutPrefix(t, "+"); ok {
		rest = r
	} else if r, ok := strings.CutPrefix(t, "-"); ok {
		rest = r
	}
	base, digits := 10, rest
	switch {
	case len(rest) > 1 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X'):
		base, digits = 16, rest[2:]
	case len(rest) > 1 && rest[0] == '0' && (rest[1] == 'o' || rest[1] == 'O'):
		base, digits = 8, rest[2:]
	case len(rest) > 1 && rest[0] == '0' && (rest[1] == 'b' || rest[1] == 'B'):
		base, digits = 2, rest[2:]
	case rest == "00":
		base, digits = 8, "0"
	case strings.HasPrefix(rest, "00"):
		base, digits = 8, rest[2:]
	}
	if n := strings.ReplaceAll(digits, "_", ""); n != "" && !strings.ContainsAny(n, "+-") {
		if _, err := strconv.ParseUint(n, base, 64); err == nil || errors.Is(err, strconv.ErrRange) {
			return true
		}
	}
	switch strings.ToLower(t) {
	case ".nan", "+.nan", "-.nan", ".inf", "+.inf", "-.inf":
		return true
	}
	if strings.ContainsAny(t, "_xXpP") {
		return false // Go reads hexadecimal floats and underscores; Hermes does not
	}
	_, err := strconv.ParseFloat(t, 64)
	return err == nil || errors.Is(err, strconv.ErrRange)
}
