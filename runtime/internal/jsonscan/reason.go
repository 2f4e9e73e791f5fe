package jsonscan

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// JoinPath joins an outer field path and an inner one: "a" and "b.c"
// give "a.b.c"; "a" and "[2].c" give "a[2].c".
func JoinPath(outer, inner string) string {
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

// Reason describes a decoding error without Go package prefixes or Go
// type names; truncate cuts the peer's value it quotes.
func Reason(err error, truncate func(string) string) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Sprintf("%s: expected %s, got JSON %s", te.Field, TypeName(te.Type), Got(te, truncate))
		}
		return fmt.Sprintf("expected %s, got JSON %s", TypeName(te.Type), Got(te, truncate))
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// Got describes the value of a type error as encoding/json does
// ("string", "number 1.5"), but with "boolean" for "bool", and cut with
// truncate (a number out of range quotes the peer's digits).
func Got(te *json.UnmarshalTypeError, truncate func(string) string) string {
	if te.Value == "bool" {
		return "boolean"
	}
	return truncate(te.Value)
}

// TypeName names, in JSON's terms, the Go type a value failed to decode
// into, without revealing the program's own types to the peer: a struct
// or map is "object", a slice or array "array", a signed integer
// "integer", an unsigned one "non-negative integer", a float "number", a
// bool "boolean".
func TypeName(t reflect.Type) string {
	if t == nil {
		return "value"
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Pointer:
		return TypeName(t.Elem())
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
