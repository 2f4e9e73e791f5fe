package idl

import (
	"fmt"
	"regexp"
	"strings"
)

// syntaxHint returns advice for a YAML syntax error reported at line (1
// based) with message msg, read from the lines of the file: "" when it has
// none. It recognises a tab in indentation, a type written unquoted that
// YAML reads as a flow collection, and a line indented to a column no key
// above it uses.
func syntaxHint(lines [][]rune, line int, msg string) string {
	if line < 1 || line > len(lines) {
		return ""
	}
	text := string(lines[line-1])
	indent := text[:len(text)-len(strings.TrimLeft(text, " \t"))]
	if strings.Contains(msg, "'\t'") || strings.Contains(indent, "\t") {
		return "; indent with spaces, not tabs: YAML does not allow tabs in indentation"
	}
	if t := unquotedType(text); t != "" {
		how := "quote the type"
		if m := goMap.FindStringSubmatch(t); m != nil {
			t, how = "map<"+m[1]+", "+m[2]+">", "write a map as map<K, T>, quoted"
		}
		q := "'" + t + "'"
		if strings.Contains(t, "'") {
			q = `"` + t + `"`
		}
		return fmt.Sprintf("; YAML reads an unquoted [ as the start of a list: %s: %s", how, q)
	}
	return indentHint(lines, line)
}

// typeStart finds, after a key's colon, a flow collection start, or a
// comma or brace of a flow mapping, a type in Go or IDL syntax that YAML
// cannot read unquoted: []T, map[K]T, map<K, T>.
var typeStart = regexp.MustCompile(`(?:^|[:,{\[]\s*|\s)(\[\][A-Za-z_(\[]|map\[|map<)`)

// goMap matches a map type in Go's syntax, map[K]T.
var goMap = regexp.MustCompile(`^map\[\s*([A-Za-z_][A-Za-z0-9_]*)\s*\](.+)$`)

// unquotedType returns the type written unquoted on text, or "".
func unquotedType(text string) string {
	loc := typeStart.FindStringSubmatchIndex(text)
	if loc == nil {
		return ""
	}
	s := text[loc[2]:]
	depth := 0
	end := len(s)
scan:
	for i, r := range s {
		switch r {
		case '[', '<', '(':
			depth++
		case ']', '>', ')':
			depth--
			if depth < 0 {
				end = i
				break scan
			}
		case ',', '}', '#':
			if depth == 0 {
				end = i
				break scan
			}
		}
	}
	return strings.TrimSpace(s[:end])
}

// keyLine matches a block mapping key and its value on one line, after
// the indentation and any "- ".
var keyLine = regexp.MustCompile(`^(?:"[^"]*"|'[^']*'|[^\s#'"{\[][^:#]*?):(?:\s+(.*))?$`)

// indentHint looks, on the line of the error and the next, for a line
// indented deeper than a key that already has its value on its own line,
// or to a column no enclosing key uses, and names the column(s) expected.
func indentHint(lines [][]rune, errLine int) string {
	type level struct {
		col, line int
		hasValue  bool
	}
	var stack []level
	block := -1 // the column of a key whose block scalar is being skipped
	for i := 0; i < len(lines) && i <= errLine; i++ {
		text := string(lines[i])
		rest := strings.TrimLeft(text, " ")
		if rest == "" || rest[0] == '#' {
			continue
		}
		col := len(text) - len(rest) + 1
		if block >= 0 {
			if col > block {
				continue
			}
			block = -1
		}
		near := i+1 >= errLine // the error's line or the next
		if n := len(stack); n > 0 && col > stack[n-1].col && stack[n-1].hasValue && near {
			top := stack[n-1]
			return fmt.Sprintf("; line %d is indented deeper (column %d) than the key on line %d, which already has a value: indent it to column %d, with spaces", i+1, col, top.line, top.col)
		}
		var deeper *level
		for len(stack) > 0 && stack[len(stack)-1].col > col {
			deeper = &stack[len(stack)-1]
			stack = stack[:len(stack)-1]
		}
		if deeper != nil && near && (len(stack) == 0 || stack[len(stack)-1].col != col) {
			if len(stack) == 0 {
				return fmt.Sprintf("; line %d starts at column %d, where no key above it does: indent it to column %d, with spaces", i+1, col, deeper.col)
			}
			return fmt.Sprintf("; line %d starts at column %d, where no key above it does: indent it to column %d or %d, with spaces", i+1, col, stack[len(stack)-1].col, deeper.col)
		}
		if n := len(stack); n > 0 && stack[n-1].col == col {
			stack = stack[:n-1]
		}
		for strings.HasPrefix(rest, "- ") {
			stack = append(stack, level{col: col, line: i + 1})
			trimmed := strings.TrimLeft(rest[2:], " ")
			col += len(rest) - len(trimmed)
			rest = trimmed
		}
		m := keyLine.FindStringSubmatch(rest)
		if m == nil {
			continue
		}
		value := strings.TrimSpace(m[1])
		if value != "" && (value[0] == '|' || value[0] == '>') {
			block = col
		}
		hasValue := value != "" && value[0] != '#' && value[0] != '&'
		stack = append(stack, level{col: col, line: i + 1, hasValue: hasValue})
	}
	return ""
}
