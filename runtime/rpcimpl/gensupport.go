package rpcimpl

import (
	"encoding/json"
	"errors"
	"fmt"

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
// null leaves *v nil.
func DecodeArray[T any](b []byte, v *[]T, decode func([]byte, *T) error) error {
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
// leaves *v nil.
func DecodeMap[T any](b []byte, v *map[string]T, decode func([]byte, *T) error) error {
	if string(trimSpace(b)) == "null" {
		*v = nil
		return nil
	}
	out := map[string]T{}
	err := DecodeObject(b, func(key, value []byte) error {
		var x T
		if err := decode(value, &x); err != nil {
			return AtField(string(key), err)
		}
		out[string(key)] = x
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
