package rpcimpl

import (
	"encoding/json"
	"strconv"
	"unsafe"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
)

// This file holds the reflection-free decoders that generated
// UnmarshalJSON methods call for members of basic types. Each decodes the
// common, plain form of its value directly and hands anything else
// (escapes, exponents, null, a value of the wrong kind) to encoding/json,
// so that results and error messages are exactly encoding/json's.

// DecodeString decodes the JSON string b into *v. A string without
// escapes costs a check of eight bytes at a time and one copy; one with
// escapes is unescaped here too, without encoding/json.
func DecodeString[T ~string](b []byte, v *T) error {
	if s, ok := jsonscan.UnquoteString(b); ok {
		*v = T(s)
		return nil
	}
	return unmarshalInto(b, v)
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
	end, ok := jsonscan.CheckNumber(b, 0)
	return ok && end == len(b)
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
