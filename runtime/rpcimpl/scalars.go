package rpcimpl

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// This file holds the reflection-free decoders that generated
// UnmarshalJSON methods call for members of basic types. Each decodes the
// common, plain form of its value directly and hands anything else
// (escapes, exponents, null, a value of the wrong kind) to encoding/json,
// so that results and error messages are exactly encoding/json's.

// DecodeString decodes the JSON string b into *v.
func DecodeString[T ~string](b []byte, v *T) error {
	if n := len(b); n >= 2 && b[0] == '"' && b[n-1] == '"' && plainString(b[1:n-1]) {
		*v = T(b[1 : n-1])
		return nil
	}
	return unmarshalInto(b, v)
}

// plainString reports whether s, the inside of a string literal, needs no
// unescaping: no quote, backslash or control character, and valid UTF-8.
func plainString(s []byte) bool {
	for i, c := range s {
		if c < 0x20 || c == '"' || c == '\\' {
			return false
		}
		if c >= utf8.RuneSelf {
			return plainUTF8(s[i:])
		}
	}
	return true
}

// plainUTF8 is plainString for text that is not all ASCII.
func plainUTF8(s []byte) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			return false
		}
		i += size
	}
	return true
}

// DecodeInt decodes the JSON integer b into *v.
func DecodeInt[T ~int | ~int8 | ~int16 | ~int32 | ~int64](b []byte, v *T) error {
	if n, ok := plainInt(b); ok {
		if t := T(n); int64(t) == n {
			*v = t
			return nil
		}
	}
	return unmarshalInto(b, v)
}

// plainInt parses b when it is a JSON integer of at most 18 digits, which
// always fits an int64.
func plainInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 || (b[0] == '0' && len(b) > 1) {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// DecodeFloat decodes the JSON number b into *v.
func DecodeFloat[T ~float32 | ~float64](b []byte, v *T) error {
	if isNumber(b) {
		bits := 64
		if unsafe.Sizeof(*v) == 4 {
			bits = 32
		}
		if f, err := strconv.ParseFloat(string(b), bits); err == nil {
			*v = T(f)
			return nil
		}
	}
	return unmarshalInto(b, v)
}

// isNumber reports whether b is a number in JSON's grammar, which is
// stricter than strconv's (no "Inf", hexadecimal or underscores).
func isNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(b)
}

// digits returns the index past the run of decimal digits at b[i:].
func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// DecodeBool decodes the JSON boolean b into *v.
func DecodeBool[T ~bool](b []byte, v *T) error {
	switch string(b) {
	case "true":
		*v = true
		return nil
	case "false":
		*v = false
		return nil
	}
	return unmarshalInto(b, v)
}

// DecodeRaw stores a copy of the JSON value b, without surrounding
// space, in *v, as encoding/json does for a json.RawMessage. Unlike the
// other decoders it does not check b: it must be valid JSON, as the
// values generated UnmarshalJSON methods receive always are.
func DecodeRaw[T ~[]byte](b []byte, v *T) error {
	b = trimSpace(b)
	if len(b) == 0 {
		return unmarshalInto(b, v) // reports the missing value
	}
	*v = append(T(nil), b...)
	return nil
}

// DecodeOptional decodes b into *v, a pointer that JSON null sets to nil
// (with or without surrounding space, as encoding/json), decoding any
// other value with decode into a new T.
func DecodeOptional[T any](b []byte, v **T, decode func([]byte, *T) error) error {
	if string(trimSpace(b)) == "null" {
		*v = nil
		return nil
	}
	p := new(T)
	if err := decode(b, p); err != nil {
		return err
	}
	*v = p
	return nil
}

// UnmarshalJSON decodes b into *v with T's own UnmarshalJSON method, as a
// function that [DecodeArray], [DecodeMap] and [DecodeOptional] take.
func UnmarshalJSON[T any, P interface {
	*T
	json.Unmarshaler
}](b []byte, v *T) error {
	return P(v).UnmarshalJSON(b)
}

// unmarshalInto is json.Unmarshal(b, v) through a copy, so that v does not
// escape: a generated decoder's value then stays on the stack.
func unmarshalInto[T any](b []byte, v *T) error {
	x := *v
	err := json.Unmarshal(b, &x)
	*v = x
	return err
}
