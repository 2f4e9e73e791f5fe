// Package jsonstr writes JSON string literals exactly as encoding/json
// writes them. The runtime (with HTML escaping, as json.Marshal) and the
// JSON Schema generator (without it) share it. It uses the standard
// library only, as everything the runtime imports must.
package jsonstr

import "unicode/utf8"

// Append appends s to dst as a JSON string. Quotes, backslashes and
// control characters are escaped (\b, \f, \n, \r and \t in short form),
// as are U+2028 and U+2029; invalid UTF-8 becomes U+FFFD. With escapeHTML,
// '<', '>' and '&' are escaped too, as json.Marshal does.
func Append(dst []byte, s string, escapeHTML bool) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	plain := &plainASCII
	if escapeHTML {
		plain = &plainHTML
	}
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if plain[c] {
				i = plainRun(s, i+1, escapeHTML)
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		if n := plainRune(s, i); n > 0 {
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Masks for testing the eight bytes of a uint64 at once.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plainRun returns the index of the first byte of s from i on that is not
// printable ASCII written as is (len(s) when there is none), looking at
// eight bytes at a time.
func plainRun(s string, i int, escapeHTML bool) int {
	for ; i+16 <= len(s); i += 16 {
		if m := special(load(s, i), escapeHTML) | special(load(s, i+8), escapeHTML); m&highs != 0 {
			break
		}
	}
	plain := &plainASCII
	if escapeHTML {
		plain = &plainHTML
	}
	for i < len(s) && plain[s[i]] {
		i++
	}
	return i
}

// load returns the eight bytes of s from i on, the first in the low byte.
func load(s string, i int) uint64 {
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// special returns a word whose high bit is set in every byte of x that is
// not printable ASCII written as is (and maybe in others: callers look at
// the bytes again), and in none otherwise. '"' and '&' differ only in
// bit 2, and '<' and '>' only in bit 1, so that setting the bit tests
// for both at once, and for no other byte.
func special(x uint64, escapeHTML bool) uint64 {
	m := x | (x - ones*0x20) | hasByte(x, '\\')
	if escapeHTML {
		return m | hasByte(x|ones*0x04, '&') | hasByte(x|ones*0x02, '>')
	}
	return m | hasByte(x, '"')
}

// plainASCII and plainHTML tell the bytes written as they are, without
// and with HTML escaping.
var plainASCII, plainHTML = plainTables()

func plainTables() (plain, html [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		plain[c] = c != '"' && c != '\\'
		html[c] = plain[c] && c != '<' && c != '>' && c != '&'
	}
	return plain, html
}

// hasByte returns a word whose high bit is set in some byte when some byte
// of x is c, and in none otherwise.
func hasByte(x uint64, c byte) uint64 {
	y := x ^ (ones * uint64(c))
	return (y - ones) &^ y
}

// plainRune returns the length of the UTF-8 sequence at s[i] when it is a
// valid two- or three-byte sequence written as is (not U+2028 or U+2029),
// and 0 for anything else, which utf8.DecodeRuneInString then looks at.
func plainRune(s string, i int) int {
	c := s[i]
	switch {
	case c >= 0xC2 && c < 0xE0:
		if i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
			return 2
		}
	case c >= 0xE0 && c < 0xF0:
		if i+2 >= len(s) || s[i+2]&0xC0 != 0x80 {
			return 0
		}
		lo, hi := byte(0x80), byte(0xBF)
		switch c {
		case 0xE0:
			lo = 0xA0 // no overlong encoding
		case 0xED:
			hi = 0x9F // no surrogate
		case 0xE2:
			if s[i+1] == 0x80 && s[i+2]&0xFE == 0xA8 {
				return 0 // U+2028 or U+2029
			}
		}
		if b := s[i+1]; b >= lo && b <= hi {
			return 3
		}
	}
	return 0
}
