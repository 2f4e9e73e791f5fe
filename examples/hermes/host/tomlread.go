package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// maxTOMLDepth bounds the nesting of arrays, inline tables and key paths
// an extension's TOML may have.
const maxTOMLDepth = 16

// readTOML reads the TOML an extension sends with editor/setMessage into
// maps, arrays and strings: tables and arrays of tables, bare, quoted and
// dotted keys, the four kinds of strings, arrays and inline tables.
// Numbers, booleans and dates are kept as their text, since every value of
// a message is text.
func readTOML(text string) (map[string]any, error) {
	r := &tomlReader{s: text, line: 1}
	root := map[string]any{}
	cur := root
	for {
		r.skipBlank()
		if r.pos >= len(r.s) {
			return root, nil
		}
		var err error
		if r.s[r.pos] == '[' {
			aot := strings.HasPrefix(r.s[r.pos:], "[[")
			close := "]"
			r.pos++
			if aot {
				r.pos++
				close = "]]"
			}
			var keys []string
			if keys, err = r.keyPath(); err == nil {
				if err = r.expect(close); err == nil {
					if err = r.endLine(); err == nil {
						cur, err = openTable(root, keys, aot)
					}
				}
			}
		} else {
			var keys []string
			var v any
			if keys, err = r.keyPath(); err == nil {
				if err = r.expect("="); err == nil {
					if v, err = r.value(0); err == nil {
						if err = setKey(cur, keys, v); err == nil {
							err = r.endLine()
						}
					}
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", r.line, err)
		}
	}
}

type tomlReader struct {
	s    string
	pos  int
	line int
}

// ws skips spaces and tabs.
func (r *tomlReader) ws() {
	for r.pos < len(r.s) && (r.s[r.pos] == ' ' || r.s[r.pos] == '\t') {
		r.pos++
	}
}

// skipBlank skips whitespace, line ends and comments.
func (r *tomlReader) skipBlank() {
	for r.pos < len(r.s) {
		switch r.s[r.pos] {
		case '\n':
			r.line++
			fallthrough
		case ' ', '\t', '\r':
			r.pos++
		case '#':
			for r.pos < len(r.s) && r.s[r.pos] != '\n' {
				r.pos++
			}
		default:
			return
		}
	}
}

// endLine expects the end of a line, after an optional comment.
func (r *tomlReader) endLine() error {
	r.ws()
	if r.pos < len(r.s) && r.s[r.pos] == '#' {
		for r.pos < len(r.s) && r.s[r.pos] != '\n' {
			r.pos++
		}
	}
	if strings.HasPrefix(r.s[r.pos:], "\r\n") {
		r.pos++
	}
	if r.pos < len(r.s) && r.s[r.pos] != '\n' {
		return fmt.Errorf("unexpected %q", r.s[r.pos])
	}
	return nil
}

// expect skips spaces and tabs and the text want.
func (r *tomlReader) expect(want string) error {
	r.ws()
	if !strings.HasPrefix(r.s[r.pos:], want) {
		return fmt.Errorf("expected %q", want)
	}
	r.pos += len(want)
	r.ws()
	return nil
}

// keyPath reads a key, dotted or not.
func (r *tomlReader) keyPath() ([]string, error) {
	var keys []string
	for {
		r.ws()
		if len(keys) == maxTOMLDepth {
			return nil, errors.New("key path too long")
		}
		var k string
		var err error
		switch {
		case r.pos >= len(r.s):
			return nil, errors.New("expected a key")
		case r.s[r.pos] == '"':
			r.pos++
			k, err = r.basic(false)
		case r.s[r.pos] == '\'':
			r.pos++
			k, err = r.literal(false)
		default:
			start := r.pos
			for r.pos < len(r.s) && bareKeyByte(r.s[r.pos]) {
				r.pos++
			}
			if k = r.s[start:r.pos]; k == "" {
				return nil, errors.New("expected a key")
			}
		}
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
		r.ws()
		if r.pos >= len(r.s) || r.s[r.pos] != '.' {
			return keys, nil
		}
		r.pos++
	}
}

func bareKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// value reads a value at nesting depth.
func (r *tomlReader) value(depth int) (any, error) {
	if depth > maxTOMLDepth {
		return nil, errors.New("values nested too deep")
	}
	rest := r.s[r.pos:]
	switch {
	case strings.HasPrefix(rest, `"""`):
		r.pos += 3
		return r.basic(true)
	case strings.HasPrefix(rest, `"`):
		r.pos++
		return r.basic(false)
	case strings.HasPrefix(rest, `'''`):
		r.pos += 3
		return r.literal(true)
	case strings.HasPrefix(rest, `'`):
		r.pos++
		return r.literal(false)
	case strings.HasPrefix(rest, "["):
		r.pos++
		arr := []any{}
		for {
			r.skipBlank()
			if r.pos < len(r.s) && r.s[r.pos] == ']' {
				r.pos++
				return arr, nil
			}
			v, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
			r.skipBlank()
			if r.pos < len(r.s) && r.s[r.pos] == ',' {
				r.pos++
			} else if r.pos >= len(r.s) || r.s[r.pos] != ']' {
				return nil, errors.New("expected , or ] in an array")
			}
		}
	case strings.HasPrefix(rest, "{"):
		r.pos++
		tbl := map[string]any{}
		r.ws()
		if r.pos < len(r.s) && r.s[r.pos] == '}' {
			r.pos++
			return tbl, nil
		}
		for {
			keys, err := r.keyPath()
			if err != nil {
				return nil, err
			}
			if err := r.expect("="); err != nil {
				return nil, err
			}
			v, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			if err := setKey(tbl, keys, v); err != nil {
				return nil, err
			}
			r.ws()
			if r.pos < len(r.s) && r.s[r.pos] == '}' {
				r.pos++
				return tbl, nil
			}
			if err := r.expect(","); err != nil {
				return nil, errors.New("expected , or } in an inline table")
			}
		}
	}
	end := strings.IndexAny(rest, ",]}#\r\n")
	if end < 0 {
		end = len(rest)
	}
	text := strings.TrimSpace(rest[:end])
	if text == "" {
		return nil, errors.New("expected a value")
	}
	r.pos += end
	return text, nil
}

// basic reads a basic string after its opening quote (or quotes).
func (r *tomlReader) basic(multiline bool) (string, error) {
	if multiline {
		r.skipNewline()
	}
	var b strings.Builder
	for r.pos < len(r.s) {
		c := r.s[r.pos]
		switch {
		case c == '"' && !multiline:
			r.pos++
			return b.String(), nil
		case c == '"' && strings.HasPrefix(r.s[r.pos:], `"""`):
			return r.closeMultiline(&b, '"'), nil
		case c == '\n' && !multiline:
			return "", errors.New("newline in a string")
		case c == '\\':
			if err := r.escape(&b, multiline); err != nil {
				return "", err
			}
			continue
		case c == '\n':
			r.line++
		}
		b.WriteByte(c)
		r.pos++
	}
	return "", errors.New("unterminated string")
}

// escape reads one escape sequence of a basic string.
func (r *tomlReader) escape(b *strings.Builder, multiline bool) error {
	r.pos++
	if r.pos >= len(r.s) {
		return errors.New("unterminated string")
	}
	c := r.s[r.pos]
	r.pos++
	switch c {
	case 'b':
		b.WriteByte('\b')
	case 't':
		b.WriteByte('\t')
	case 'n':
		b.WriteByte('\n')
	case 'f':
		b.WriteByte('\f')
	case 'r':
		b.WriteByte('\r')
	case '"', '\\':
		b.WriteByte(c)
	case 'u', 'U':
		n := 4
		if c == 'U' {
			n = 8
		}
		if r.pos+n > len(r.s) {
			return errors.New("short unicode escape")
		}
		v, err := strconv.ParseUint(r.s[r.pos:r.pos+n], 16, 32)
		if err != nil {
			return fmt.Errorf("bad unicode escape %q", r.s[r.pos:r.pos+n])
		}
		b.WriteRune(rune(v))
		r.pos += n
	case ' ', '\t', '\r', '\n':
		if !multiline {
			return fmt.Errorf("bad escape \\%c", c)
		}
		r.pos--
		r.skipBlank() // a line-ending backslash trims the whitespace after it
	default:
		return fmt.Errorf("bad escape \\%c", c)
	}
	return nil
}

// literal reads a literal string after its opening quote (or quotes).
func (r *tomlReader) literal(multiline bool) (string, error) {
	if multiline {
		r.skipNewline()
	}
	var b strings.Builder
	for r.pos < len(r.s) {
		c := r.s[r.pos]
		switch {
		case c == '\'' && !multiline:
			r.pos++
			return b.String(), nil
		case c == '\'' && strings.HasPrefix(r.s[r.pos:], `'''`):
			return r.closeMultiline(&b, '\''), nil
		case c == '\n' && !multiline:
			return "", errors.New("newline in a string")
		case c == '\n':
			r.line++
		}
		b.WriteByte(c)
		r.pos++
	}
	return "", errors.New("unterminated string")
}

// closeMultiline ends a multi-line string at a run of three to five
// quotes, the last three of which close it.
func (r *tomlReader) closeMultiline(b *strings.Builder, q byte) string {
	n := 0
	for r.pos+n < len(r.s) && r.s[r.pos+n] == q && n < 5 {
		n++
	}
	for range n - 3 {
		b.WriteByte(q)
	}
	r.pos += n
	return b.String()
}

// skipNewline skips the line end right after a multi-line string opens.
func (r *tomlReader) skipNewline() {
	if strings.HasPrefix(r.s[r.pos:], "\r\n") {
		r.pos++
	}
	if r.pos < len(r.s) && r.s[r.pos] == '\n' {
		r.pos++
		r.line++
	}
}

// descend returns the table key names in m, creating it when absent; in
// an array of tables, the last one.
func descend(m map[string]any, key string) (map[string]any, error) {
	switch v := m[key].(type) {
	case nil:
		t := map[string]any{}
		m[key] = t
		return t, nil
	case map[string]any:
		return v, nil
	case []any:
		if len(v) > 0 {
			if t, ok := v[len(v)-1].(map[string]any); ok {
				return t, nil
			}
		}
	}
	return nil, fmt.Errorf("%q is not a table", jsonrpc.Truncate(key))
}

// openTable returns the table a header names, appending one to an array
// of tables for [[...]].
func openTable(root map[string]any, keys []string, aot bool) (map[string]any, error) {
	m := root
	for _, k := range keys[:len(keys)-1] {
		var err error
		if m, err = descend(m, k); err != nil {
			return nil, err
		}
	}
	last := keys[len(keys)-1]
	if !aot {
		return descend(m, last)
	}
	arr, ok := m[last].([]any)
	if m[last] != nil && !ok {
		return nil, fmt.Errorf("%q is not an array of tables", jsonrpc.Truncate(last))
	}
	t := map[string]any{}
	m[last] = append(arr, t)
	return t, nil
}

// setKey sets a (dotted) key of m.
func setKey(m map[string]any, keys []string, v any) error {
	for _, k := range keys[:len(keys)-1] {
		var err error
		if m, err = descend(m, k); err != nil {
			return err
		}
	}
	last := keys[len(keys)-1]
	if _, dup := m[last]; dup {
		return fmt.Errorf("%q defined twice", jsonrpc.Truncate(last))
	}
	m[last] = v
	return nil
}
