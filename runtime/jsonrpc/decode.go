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
			return fmt.Sprintf("%s: expected %s, got JSON %s", te.Field, jsonTypeName(te.Type), te.Value)
		}
		return fmt.Sprintf("expected %s, got JSON %s", jsonTypeName(te.Type), te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// jsonTypeName names the Go type a value failed to decode into without
// revealing the program's own type names to the peer: a struct or map is
// "object", a slice or array "array", a named basic type its kind ("int",
// "string").
func jsonTypeName(t reflect.Type) string {
	if t == nil {
		return "value"
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Interface:
		return "value"
	case reflect.Pointer:
		return jsonTypeName(t.Elem())
	}
	return t.Kind().String()
}
