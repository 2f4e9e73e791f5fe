package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DecodeObject calls field for each member of the JSON object b, in order,
// with the member's unescaped key and its raw value. Generated
// UnmarshalJSON methods use it to decode member by member. b must be a
// JSON object, as UnmarshalJSON receives; anything else is an error.
func DecodeObject(b []byte, field func(key, value []byte) error) error {
	b = trimSpace(b)
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return errors.New("expected a JSON object")
	}
	for i := skipSpace(b, 1); i < len(b) && b[i] == '"'; {
		keyEnd := skipString(b, i)
		key := b[i+1 : keyEnd-1]
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			key = unquoteBytes(b[i:keyEnd])
		}
		i = skipSpace(b, keyEnd)
		if i >= len(b) || b[i] != ':' {
			return errors.New("malformed JSON object")
		}
		i = skipSpace(b, i+1)
		end := skipValue(b, i)
		if end <= i || end > len(b)-1 {
			return errors.New("malformed JSON object")
		}
		if err := field(key, b[i:end]); err != nil {
			return err
		}
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return nil
}

// AtField places err at the member named field of the value being
// decoded: a *FieldError gets field prefixed to its path ("a" and "b.c"
// give "a.b.c"; "a" and "[2].c" give "a[2].c"); any other error becomes a
// *FieldError for field with a readable reason.
func AtField(field string, err error) error {
	if err == nil {
		return nil
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		return &FieldError{Field: joinPath(field, fe.Field), Reason: fe.Reason}
	}
	return &FieldError{Field: field, Reason: reasonOf(err)}
}

// AtIndex is AtField for the element at index i of an array.
func AtIndex(i int, err error) error {
	return AtField("["+strconv.Itoa(i)+"]", err)
}

// MissingField returns the *FieldError for a required member that is
// absent.
func MissingField(field string) error {
	return &FieldError{Field: field, Reason: "required field is missing"}
}

// joinPath joins an outer field path and an inner one.
func joinPath(outer, inner string) string {
	switch {
	case inner == "":
		return outer
	case outer == "":
		return inner
	case strings.HasPrefix(inner, "["):
		return outer + inner
	}
	return outer + "." + inner
}

// reasonOf describes a decoding error without Go package prefixes.
func reasonOf(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Sprintf("%s: expected %s, got JSON %s", te.Field, jsonTypeName(te.Type), gotValue(te))
		}
		return fmt.Sprintf("expected %s, got JSON %s", jsonTypeName(te.Type), gotValue(te))
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// gotValue describes the value of a type error as encoding/json does
// ("string", "number 1.5"), but with "boolean" for "bool", and cut with
// Truncate (a number out of range quotes the peer's digits).
func gotValue(te *json.UnmarshalTypeError) string {
	if te.Value == "bool" {
		return "boolean"
	}
	return Truncate(te.Value)
}

// jsonTypeName names, in JSON's terms, the Go type a value failed to
// decode into, without revealing the program's own types to the peer: a
// struct or map is "object", a slice or array "array", a signed integer
// "integer", an unsigned one "non-negative integer", a float "number", a
// bool "boolean".
func jsonTypeName(t reflect.Type) string {
	if t == nil {
		return "value"
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Pointer:
		return jsonTypeName(t.Elem())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Bool:
		return "boolean"
	case reflect.String:
		return "string"
	}
	return "value"
}
