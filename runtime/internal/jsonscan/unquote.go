package jsonscan

import (
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
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
// UTF-8. It decodes into a buffer that becomes the string without a
// copy: nothing else refers to the buffer.
func unquoteSlow(b []byte) (string, bool) {
	last := len(b) - 1 // the closing quote
	buf := make([]byte, 0, last-1)
	for i := 1; i < last; {
		// Text between escapes is copied byte by byte while it is short
		// ASCII, as in text with many escapes; a long run, or one with
		// other bytes, is found eight bytes at a time and copied at once.
		j := i
		for ; j < last && j-i < 16; j++ {
			c := b[j]
			if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
				break
			}
			buf = append(buf, c)
		}
		if j < last && (j-i == 16 || b[j] >= utf8.RuneSelf) {
			i, j = j, PlainRun(b[:last], j)
			buf = appendUTF8(buf, b[i:j])
		}
		if j == last {
			break
		}
		if b[j] != '\\' || j+1 >= last {
			return "", false // a quote or control character inside
		}
		i = j + 2
		switch c := b[j+1]; c {
		case '"', '\\', '/':
			buf = append(buf, c)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
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
			buf = utf8.AppendRune(buf, r)
		default:
			return "", false
		}
	}
	return unsafe.String(unsafe.SliceData(buf), len(buf)), true
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

// appendUTF8 appends s, each byte that is not part of valid UTF-8
// replaced by U+FFFD.
func appendUTF8(buf, s []byte) []byte {
	if utf8.Valid(s) {
		return append(buf, s...)
	}
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		if r == utf8.RuneError && size == 1 {
			buf = utf8.AppendRune(buf, utf8.RuneError)
		} else {
			buf = append(buf, s[:size]...)
		}
		s = s[size:]
	}
	return buf
}
