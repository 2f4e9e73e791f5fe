package jsonrpc

import (
	"encoding/json"
	"errors"
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
func JSONKind(b []byte) string {
	b = trimSpace(b)
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
