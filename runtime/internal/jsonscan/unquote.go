package jsonscan

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// UnquoteString decodes the JSON string literal b (quotes included) as
// encoding/json does: escapes are resolved, invalid UTF-8 and unpaired
// surrogates become U+FFFD. It reports false when b is not exactly one
// valid string literal. A string without escapes costs one check and one
// copy.
func UnquoteString(b []byte) (string, bool) {
	n := len(b)
	if n < 2 || b[0] != '"' || b[n-1] != '"' {
		return "", false
	}
	i := PlainRun(b, 1)
	if i == n-1 {
		inner := b[1 : n-1]
		if utf8.Valid(inner) {
			return string(inner), true
		}
	}
	return unquoteSlow(b)
}

// unquoteSlow is UnquoteString for a literal with escapes or invalid
// UTF-8.
func unquoteSlow(b []byte) (string, bool) {
	var sb strings.Builder
	sb.Grow(len(b) - 2)
	last := len(b) - 1 // the closing quote
	for i := 1; i < last; {
		j := PlainRun(b[:last], i)
		writeUTF8(&sb, b[i:j])
		if j == last {
			break
		}
		if b[j] != '\\' || j+1 >= last {
			return "", false // a quote or control character inside
		}
		switch c := b[j+1]; c {
		case '"', '\\', '/':
			sb.WriteByte(c)
			i = j + 2
		case 'b':
			sb.WriteByte('\b')
			i = j + 2
		case 'f':
			sb.WriteByte('\f')
			i = j + 2
		case 'n':
			sb.WriteByte('\n')
			i = j + 2
		case 'r':
			sb.WriteByte('\r')
			i = j + 2
		case 't':
			sb.WriteByte('\t')
			i = j + 2
		case 'u':
			r, ok := hex4(b[:last], j+2)
			if !ok {
				return "", false
			}
			i = j + 6
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(-1), false
				if i+1 < last && b[i] == '\\' && b[i+1] == 'u' {
					r2, ok2 = hex4(b[:last], i+2)
				}
				if d := utf16.DecodeRune(r, r2); ok2 && d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			sb.WriteRune(r)
		default:
			return "", false
		}
	}
	return sb.String(), true
}

// hex4 reads the four hexadecimal digits at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if len(b)-i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// writeUTF8 writes s, each byte that is not part of valid UTF-8 replaced
// by U+FFFD.
func writeUTF8(sb *strings.Builder, s []byte) {
	if utf8.Valid(s) {
		sb.Write(s)
		return
	}
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		if r == utf8.RuneError && size == 1 {
			sb.WriteRune(utf8.RuneError)
		} else {
			sb.Write(s[:size])
		}
		s = s[size:]
	}
}
