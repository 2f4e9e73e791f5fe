package rpcimpl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// This file holds the decoding helpers that generated UnmarshalJSON
// methods call, so that every generated package shares one copy.

// NonNull returns err, or an error when value is the JSON null: generated
// decoders use it for members that are required and not nullable.
func NonNull(value []byte, err error) error {
	if string(trimSpace(value)) == "null" {
		return errors.New("must not be null")
	}
	return err
}

// Unmarshal is json.Unmarshal for a *T, usable as a DecodeArray or
// DecodeMap element decoder.
func Unmarshal[T any](b []byte, v *T) error {
	return json.Unmarshal(b, v)
}

// DecodeArray decodes the JSON array b into *v with decode, one element at
// a time, placing an element's error at its index (see [AtIndex]). A JSON
// null leaves *v nil. The elements are counted first, so that *v is
// allocated once at its length; the first few are not scanned again.
func DecodeArray[T any](b []byte, v *[]T, decode func([]byte, *T) error) error {
	b = trimSpace(b)
	var ends [8]int
	n, ok := countItems(b, ends[:])
	if !ok {
		return decodeArraySlow(b, v, decode)
	}
	out := make([]T, n)
	i := skipSpace(b, 1)
	for k := range out {
		var end int
		if k < len(ends) {
			end = ends[k]
		} else {
			end = skipValue(b, i)
		}
		if err := decode(b[i:end], &out[k]); err != nil {
			return AtIndex(k, err)
		}
		i = skipSpace(b, skipSpace(b, end)+1) // past the comma
	}
	*v = out
	return nil
}

// countItems counts the items of the JSON array b, without space around
// it, and records where the first len(ends) of them end; ok is false
// when b is not a well-formed array.
func countItems(b []byte, ends []int) (n int, ok bool) {
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return 0, false
	}
	last := len(b) - 1
	i := skipSpace(b, 1)
	if i == last {
		return 0, true
	}
	for {
		end := skipValue(b, i)
		if end <= i || end > last {
			return 0, false
		}
		if n < len(ends) {
			ends[n] = end
		}
		n++
		i = skipSpace(b, end)
		if i == last {
			return n, true
		}
		if b[i] != ',' {
			return 0, false
		}
		if i = skipSpace(b, i+1); i >= last {
			return 0, false
		}
	}
}

// decodeArraySlow is DecodeArray through encoding/json, which gives the
// errors of a value that is not a well-formed array.
func decodeArraySlow[T any](b []byte, v *[]T, decode func([]byte, *T) error) error {
	var items []json.RawMessage
	if err := json.Unmarshal(b, &items); err != nil {
		return err
	}
	if items == nil {
		*v = nil
		return nil
	}
	out := make([]T, len(items))
	for i, item := range items {
		if err := decode(item, &out[i]); err != nil {
			return AtIndex(i, err)
		}
	}
	*v = out
	return nil
}

// DecodeMap decodes the JSON object b into *v with decode, one member at a
// time, placing a member's error at its key (see [AtField]). A JSON null
// leaves *v nil. The members are counted first, so that the map, its
// keys and the values being decoded take one allocation each.
func DecodeMap[T any](b []byte, v *map[string]T, decode func([]byte, *T) error) error {
	b = trimSpace(b)
	if string(b) == "null" {
		*v = nil
		return nil
	}
	n, nameBytes, _, err := objectShape(b)
	if err != nil {
		return err
	}
	var names strings.Builder
	names.Grow(nameBytes)
	vals := make([]T, n)
	out := make(map[string]T, n)
	i := 0
	err = DecodeObject(b, func(key, value []byte) error {
		x := &vals[i]
		i++
		if err := decode(value, x); err != nil {
			return AtField(string(key), err)
		}
		out[keep(&names, key)] = *x
		return nil
	})
	if err != nil {
		return err
	}
	*v = out
	return nil
}

// JSONKind returns the kind of the JSON value b: "string", "number",
// "boolean", "array", "object", "null", or "nothing" for blank input.
// Generated decoders of unions told apart by kind use it.
func JSONKind(b []byte) string { return jsonscan.Kind(b) }

// ExpectNull returns nil when result, the raw result of a call to method,
// is null (or empty), and otherwise an error wrapping
// [jsonrpc.ErrUnexpectedResult]: generated stubs of methods whose result is always
// null use it.
func ExpectNull(method string, result json.RawMessage) error {
	b := trimSpace(result)
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	if len(b) > 64 {
		b = append(b[:61:61], "..."...)
	}
	return fmt.Errorf("%w: %q answered %s; the protocol says null", jsonrpc.ErrUnexpectedResult, method, b)
}

// NullValue is a value that encodes as the JSON null. Passed as the params of
// a call or notification it sends "params": null, which a nil value would
// leave out.
var NullValue Appender = jsonNull{}

type jsonNull struct{}

// AppendJSON appends null to b.
func (jsonNull) AppendJSON(b []byte) ([]byte, error) { return append(b, "null"...), nil }

// MarshalJSON encodes null.
func (jsonNull) MarshalJSON() ([]byte, error) { return []byte("null"), nil }

// MissingParams returns the -32602 error answering a request or
// notification sent without the params its method requires.
func MissingParams() *jsonrpc.Error { return jsonrpc.InvalidParams("", "params are required") }

// TagOf returns the text of the JSON string b, the discriminator of a
// union: a slice of b when the string has no escapes, a decoded copy
// otherwise. Anything but a string gives encoding/json's error.
func TagOf(b []byte) ([]byte, error) {
	b = trimSpace(b)
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		if s := b[1 : len(b)-1]; bytes.IndexByte(s, '\\') < 0 && bytes.IndexByte(s, '"') < 0 && utf8.Valid(s) && !hasControl(s) {
			return s, nil
		}
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// hasControl reports whether s holds a byte below 0x20, which a JSON
// string must escape.
func hasControl(s []byte) bool {
	for _, c := range s {
		if c < 0x20 {
			return true
		}
	}
	return false
}
