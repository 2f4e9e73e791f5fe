package idl

import "unicode/utf8"

// The YAML parser's time grows faster than the square of the nesting
// depth. Nesting that can be written in few bytes, [[[...]]] or
// - - - ... on one line, is refused before the parser sees it.

// tooDeep reports the position (1-based line and column, in characters)
// of the first '[', '{', '-' or '?' nested more than maxDepth levels deep,
// as flowTooDeep and blockTooDeep find them.
func tooDeep(src []byte) (line, col int, deep bool) {
	if line, col, deep = flowTooDeep(src); deep {
		return line, col, deep
	}
	return blockTooDeep(src)
}

// flowTooDeep reports the position (1-based line and column, in
// characters) of the first '[' or '{' nested more than maxDepth levels
// deep, counting brackets outside quoted strings and comments. It reads
// src once, so a hostile file is refused in linear time.
func flowTooDeep(src []byte) (line, col int, deep bool) {
	depth, line, col := 0, 1, 0
	var quote byte // the quote character of the string being read, if any
	prev := byte('\n')
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c&0xC0 != 0x80 { // count characters, not UTF-8 continuation bytes
			col++
		}
		switch {
		case c == '\n':
			line, col, quote = line+1, 0, 0
		case quote == '"' && c == '\\':
			i++ // an escaped character
			col++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (prev == ' ' || prev == '\t' || prev == '\n'):
			for i+1 < len(src) && src[i+1] != '\n' {
				i++
			}
		case c == '[' || c == '{':
			if depth++; depth > maxDepth {
				return line, col, true
			}
		case c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		}
		prev = c
	}
	return 0, 0, false
}

// blockTooDeep reports the position (1-based line and column, in
// characters) of the first block indicator ('-' or '?') or key that opens
// more than maxDepth levels of nesting on one line, as in "a: - - - x".
// It reads src once.
func blockTooDeep(src []byte) (line, col int, deep bool) {
	blank := func(i, end int) bool { return i >= end || src[i] == ' ' || src[i] == '\t' }
	line, start := 1, 0 // start: index of the line's first byte
	for start < len(src) {
		end := start
		for end < len(src) && src[end] != '\n' {
			end++
		}
		depth, i := 0, start
		for i < end && blank(i, end) {
			i++
		}
		for i < end {
			next := i + 1 // past an indicator
			if src[i] != '-' && src[i] != '?' || !blank(i+1, end) {
				for next = i; next < end && !blank(next, end); next++ {
				}
				if src[next-1] != ':' { // not a key
					break
				}
			}
			if depth++; depth > maxDepth {
				return line, utf8.RuneCount(src[start:i]) + 1, true
			}
			for i = next; i < end && blank(i, end); i++ {
			}
		}
		line, start = line+1, end+1
	}
	return 0, 0, false
}
