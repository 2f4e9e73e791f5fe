package rpcimpl

import (
	"errors"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// DecodeObject calls field for each member of the JSON object b, in order,
// with the member's unescaped key and its raw value. Generated
// UnmarshalJSON methods use it to decode member by member. b must be a
// JSON object, as UnmarshalJSON receives; anything else is an error.
func DecodeObject(b []byte, field func(key, value []byte) error) error {
	return jsonscan.DecodeObject(b, field)
}

// AtField places err at the member named field of the value being
// decoded: a *[jsonrpc.FieldError] gets field prefixed to its path ("a"
// and "b.c" give "a.b.c"; "a" and "[2].c" give "a[2].c"); any other error
// becomes a *jsonrpc.FieldError for field with a readable reason. A
// request's params that fail this way are answered with -32602.
func AtField(field string, err error) error {
	if err == nil {
		return nil
	}
	var fe *jsonrpc.FieldError
	if errors.As(err, &fe) {
		return &jsonrpc.FieldError{Field: jsonscan.JoinPath(field, fe.Field), Reason: fe.Reason}
	}
	return &jsonrpc.FieldError{Field: field, Reason: jsonscan.Reason(err, jsonrpc.Truncate)}
}

// AtIndex is AtField for the element at index i of an array.
func AtIndex(i int, err error) error {
	return AtField("["+strconv.Itoa(i)+"]", err)
}

// MissingField returns the *[jsonrpc.FieldError] for a required member
// that is absent.
func MissingField(field string) error {
	return &jsonrpc.FieldError{Field: field, Reason: "required field is missing"}
}
