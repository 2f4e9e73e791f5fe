package rpcimpl

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"

	"github.com/rpcgen/rpcgen/internal/jsonstr"
	"github.com/rpcgen/rpcgen/runtime/internal/bigbuf"
)

// This file holds the encoding helpers that generated AppendJSON methods
// call. Their output is byte for byte what encoding/json's Marshal writes
// for the same value, so a generated type encodes the same way whether it
// goes through the runtime or through json.Marshal.

// Appender is implemented by generated types: AppendJSON appends the
// value's JSON encoding to b, exactly as json.Marshal would encode it, but
// without reflection. The runtime encodes params and results that
// implement it straight into the message being built.
type Appender interface {
	AppendJSON(b []byte) ([]byte, error)
}

// AppendString appends s as a JSON string, escaped as json.Marshal escapes
// it: quotes, backslashes and control characters, '<', '>' and '&' (so the
// output is safe inside HTML), U+2028 and U+2029; invalid UTF-8 becomes
// U+FFFD.
func AppendString[T ~string](b []byte, s T) []byte {
	if len(s) > cap(b)-len(b) && len(b)+len(s) >= bigbuf.MinSize {
		b = growForString(b, len(s))
	}
	return jsonstr.Append(b, string(s), true)
}

// stringRoom is the room growForString leaves after a long string, for
// the rest of its message and a few escapes.
const stringRoom = 4 << 10

// growForString returns a copy of b with room for a string of n bytes,
// in a pooled buffer when one is at hand: a long string then costs no new
// buffer once the runtime has pooled the buffer of an earlier message. b
// itself is left as it is, since the caller may still use it.
func growForString(b []byte, n int) []byte {
	g := bigbuf.Make(len(b) + n + stringRoom)
	return g[:copy(g, b)]
}

// AppendInt appends the JSON number n.
func AppendInt[T ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32](b []byte, n T) []byte {
	return strconv.AppendInt(b, int64(n), 10)
}

// AppendBool appends the JSON boolean v.
func AppendBool[T ~bool](b []byte, v T) []byte {
	return strconv.AppendBool(b, bool(v))
}

// AppendFloat appends the JSON number f, formatted as json.Marshal formats
// a float64. NaN and infinities have no JSON form and are an error.
func AppendFloat[T ~float64](b []byte, f T) ([]byte, error) {
	x := float64(f)
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil, &json.UnsupportedValueError{Value: reflect.ValueOf(x), Str: strconv.FormatFloat(x, 'g', -1, 64)}
	}
	format := byte('f')
	if abs := math.Abs(x); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, x, format, -1, 64)
	if format == 'e' {
		// Write e-09 as e-9, as encoding/json does.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// AppendValue appends v encoded by encoding/json, for the members of a
// generated type that have no appender of their own (lists, maps, unions,
// any).
func AppendValue(b []byte, v any) ([]byte, error) {
	if a, ok := v.(Appender); ok {
		return a.AppendJSON(b)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, data...), nil
}

// CloseObject ends an object whose members were appended to b from index
// start on, each preceded by a comma: the first comma becomes the opening
// brace. Generated AppendJSON methods use it so that members left out do
// not leave a stray comma.
func CloseObject(b []byte, start int) []byte {
	if len(b) == start {
		return append(b, '{', '}')
	}
	b[start] = '{'
	return append(b, '}')
}
