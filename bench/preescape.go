package bench

import (
	"bytes"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The ceiling's string codec: the least a JSON string needs. Quotes,
// backslashes and control characters are escaped; everything else, non-ASCII
// text included, is copied as it is.

// appendEscaped appends s to buf as the inside of a JSON string.
func appendEscaped(buf []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		buf = append(buf, s[start:i]...)
		switch c {
		case '"', '\\':
			buf = append(buf, '\\', c)
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\t':
			buf = append(buf, '\\', 't')
		default:
			buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	return append(buf, s[start:]...)
}

const hexDigits = "0123456789abcdef"

// unescape returns the string whose JSON-escaped form is b. It trusts its
// input: an escape it cannot read is kept as it is.
func unescape(b []byte) string {
	i := bytes.IndexByte(b, '\\')
	if i < 0 {
		return string(b)
	}
	out := make([]byte, 0, len(b))
	for i >= 0 {
		out = append(out, b[:i]...)
		b = b[i:]
		n := 2
		switch {
		case len(b) < 2:
			n = len(b)
			out = append(out, b...)
		case b[1] == 'u':
			r, m := readU(b)
			if m == 0 {
				out = append(out, b[:2]...)
				break
			}
			out = utf8.AppendRune(out, r)
			n = m
		default:
			out = append(out, unescapeChar(b[1]))
		}
		b = b[n:]
		i = bytes.IndexByte(b, '\\')
	}
	return string(append(out, b...))
}

// unescapeChar returns the byte a one-letter escape stands for.
func unescapeChar(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	}
	return c // '"', '\\', '/'
}

// readU decodes the \uXXXX escape (and its low surrogate, if it is a high
// one) at the start of b, returning the rune and the bytes it took, or 0
// bytes when b does not start with one.
func readU(b []byte) (rune, int) {
	if len(b) < 6 {
		return 0, 0
	}
	v, err := strconv.ParseUint(string(b[2:6]), 16, 16)
	if err != nil {
		return 0, 0
	}
	r := rune(v)
	if utf16.IsSurrogate(r) && len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
		if lo, err := strconv.ParseUint(string(b[8:12]), 16, 16); err == nil {
			if pair := utf16.DecodeRune(r, rune(lo)); pair != utf8.RuneError {
				return pair, 12
			}
		}
	}
	return r, 6
}
