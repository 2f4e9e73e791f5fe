package jsonrpc

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"

	"github.com/rpcgen/rpcgen/internal/jsonstr"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
)

// The JSON scanning this package shares with package rpcimpl, which
// decodes generated types.

func isSpace(c byte) bool                 { return jsonscan.IsSpace(c) }
func skipSpace(b []byte, i int) int       { return jsonscan.SkipSpace(b, i) }
func trimSpace(b []byte) []byte           { return jsonscan.TrimSpace(b) }
func skipString(b []byte, i int) int      { return jsonscan.SkipString(b, i) }
func skipValue(b []byte, i int) int       { return jsonscan.SkipValue(b, i) }
func unquote(b []byte) string             { return jsonscan.Unquote(b) }
func jsonKind(b []byte) string            { return jsonscan.Kind(b) }
func joinPath(outer, inner string) string { return jsonscan.JoinPath(outer, inner) }
func jsonTypeName(t reflect.Type) string  { return jsonscan.TypeName(t) }

// gotValue describes the value of a type error, truncated.
func gotValue(te *json.UnmarshalTypeError) string { return jsonscan.Got(te, Truncate) }

// decodeObject calls field for each member of the JSON object b, in order.
func decodeObject(b []byte, field func(key, value []byte) error) error {
	return jsonscan.DecodeObject(b, field)
}

// appendString appends s as a JSON string, escaped as json.Marshal
// escapes it.
func appendString(b []byte, s string) []byte { return jsonstr.Append(b, s, true) }

// atField places err at the member named field of the value being
// decoded, as a *FieldError (see rpcimpl.AtField, which generated
// decoders call).
func atField(field string, err error) error {
	if err == nil {
		return nil
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		return &FieldError{Field: joinPath(field, fe.Field), Reason: fe.Reason}
	}
	return &FieldError{Field: field, Reason: jsonscan.Reason(err, Truncate)}
}

// atIndex is atField for the element at index i of an array.
func atIndex(i int, err error) error { return atField("["+strconv.Itoa(i)+"]", err) }

// appender is what rpcimpl.Appender names: a value that appends its own
// JSON encoding, as generated types do.
type appender interface {
	AppendJSON(b []byte) ([]byte, error)
}

// appendValue appends v encoded as JSON: through its own AppendJSON when
// it has one, else by encoding/json.
func appendValue(b []byte, v any) ([]byte, error) {
	if a, ok := v.(appender); ok {
		return a.AppendJSON(b)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, data...), nil
}
