// Package jsonscan reads JSON text that encoding/json has validated (or
// that is checked as it is read), and describes decoding errors in JSON's
// terms. Package jsonrpc uses it to read messages, and package rpcimpl to
// decode generated types member by member; it lives here so that neither
// has to export it. It uses the standard library only.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/bits"
	"unicode/utf8"
)

// IsSpace reports whether c is JSON whitespace.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	return i
}

// TrimSpace returns b without leading and trailing JSON whitespace.
func TrimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && IsSpace(b[i]) {
		i++
	}
	for j > i && IsSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

// SkipString returns the index just past the string literal starting at
// b[i] (a '"'), in valid JSON. It looks for the closing quote with
// bytes.IndexByte, so a long string costs little. After a quote that
// turns out escaped (as in JSON text held in a string, where escapes are
// a few bytes apart) it reads eight bytes at a time and tells escaped
// quotes from the closing one without a branch per escape (see
// [escapes]), until 32 bytes in a row hold no backslash.
func SkipString(b []byte, i int) int {
	for i++; i < len(b); {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			break
		}
		i += j
		k := i // the quote is escaped after an odd run of backslashes
		for b[k-1] == '\\' {
			k--
		}
		i++
		if (i-1-k)%2 == 0 {
			return i
		}
		// b[i] follows an escaped quote, so it is not escaped itself.
		escaped := uint64(0) // 1 when b[i] is escaped
		plain := 0           // words in a row without a backslash
		for ; i+8 <= len(b) && plain < 4; i += 8 {
			w := binary.LittleEndian.Uint64(b[i:])
			slashes := byteMask(w, '\\')
			e := uint64(escapes[escaped<<8|slashes])
			if q := byteMask(w, '"') &^ e; q != 0 {
				return i + bits.TrailingZeros64(q) + 1
			}
			escaped = e >> 8
			if slashes == 0 {
				plain++
			} else {
				plain = 0
			}
		}
		if plain < 4 { // fewer than eight bytes left
			for i += int(escaped); i < len(b); i++ {
				switch b[i] {
				case '\\':
					i++
				case '"':
					return i + 1
				}
			}
		}
	}
	return len(b)
}

// escapes[e<<8|m], for the backslashes of eight bytes (bit j of m set
// when byte j is one) and e (1 when the first byte is escaped by the
// bytes before), has bit j set when byte j is escaped, and bit 8 when
// the byte after the eight is.
var escapes = func() (t [512]uint16) {
	for in := range 2 {
		for m := range 256 {
			escaped := in == 1
			var out uint16
			for j := range 8 {
				switch {
				case escaped:
					out |= 1 << j
					escaped = false
				case m&(1<<j) != 0:
					escaped = true
				}
			}
			if escaped {
				out |= 1 << 8
			}
			t[in<<8|m] = out
		}
	}
	return t
}()

// byteMask returns a mask with bit j set when byte j of w (in memory
// order) is c: each byte of w^c is tested for zero exactly, without the
// borrow of the quicker test, and the eight results gathered by one
// multiplication.
func byteMask(w uint64, c byte) uint64 {
	x := w ^ (ones * uint64(c))
	zero := ^((x&^high + ^high) | x) & high
	return (zero >> 7) * 0x0102040810204080 >> 56
}

// SkipValue returns the index just past the JSON value starting at b[i],
// in valid JSON.
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = SkipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}

// Unquote decodes a JSON string literal known to be valid. Invalid UTF-8
// becomes U+FFFD, as encoding/json does.
func Unquote(b []byte) string {
	if s, ok := UnquoteString(b); ok {
		return s
	}
	var s string
	_ = json.Unmarshal(b, &s) // valid by construction
	return s
}

// DecodeObject calls field for each member of the JSON object b, in
// order, with the member's unescaped key and its raw value. b must be a
// JSON object; anything else is an error.
func DecodeObject(b []byte, field func(key, value []byte) error) error {
	b = TrimSpace(b)
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return errors.New("expected a JSON object")
	}
	for i := SkipSpace(b, 1); i < len(b) && b[i] == '"'; {
		keyEnd := SkipString(b, i)
		key := b[i+1 : keyEnd-1]
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			key = []byte(Unquote(b[i:keyEnd]))
		}
		i = SkipSpace(b, keyEnd)
		if i >= len(b) || b[i] != ':' {
			return errors.New("malformed JSON object")
		}
		i = SkipSpace(b, i+1)
		end := SkipValue(b, i)
		if end <= i || end > len(b)-1 {
			return errors.New("malformed JSON object")
		}
		if err := field(key, b[i:end]); err != nil {
			return err
		}
		i = SkipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = SkipSpace(b, i+1)
		}
	}
	return nil
}

// Kind returns the kind of the JSON value b: "string", "number",
// "boolean", "array", "object", "null", or "nothing" for blank input.
func Kind(b []byte) string {
	b = TrimSpace(b)
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case '[':
		return "array"
	case '{':
		return "object"
	case 'n':
		return "null"
	}
	return "number"
}
