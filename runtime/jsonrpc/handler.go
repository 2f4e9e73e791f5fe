package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Handler answers the requests and notifications a peer sends.
//
// Handle is called concurrently for requests (up to
// [Options.MaxConcurrentRequests] at once) and one at a time, in arrival
// order, for notifications. The result is encoded as JSON (a
// json.RawMessage is sent as is). A returned *Error (or an error wrapping
// one) is sent to the peer as it is; any other error is sent as -32603
// Internal error, with its text only when [Options.ExposeErrors] is set.
// For a notification the result is ignored and an error is only logged.
//
// ctx derives from [Options.BaseContext] and is cancelled when the peer
// cancels the request, when the connection ends, when the base context is
// cancelled, or when the handler returns.
type Handler interface {
	Handle(ctx context.Context, req *Request) (result any, err error)
}

// HandlerFunc adapts a function to the Handler interface.
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Handle calls f(ctx, req).
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (any, error) { return f(ctx, req) }

// Middleware wraps the handling of incoming messages (logging, metrics,
// authentication checks). It may answer a request itself without calling
// next.
type Middleware func(next Handler) Handler

// Outgoing is a request or notification on its way to the peer, as seen by
// [OutgoingMiddleware].
type Outgoing struct {
	// Method is the method name.
	Method string
	// Params are the parameters, encoded as JSON when sent; nil sends none.
	Params any
	// Result receives the decoded result of a call; nil discards it.
	Result any
	// Notification is true for a notification, which has no response.
	Notification bool
	// ID is the id the request will be sent with, chosen before any
	// middleware runs so that middleware can log or trace it; zero for a
	// notification.
	ID ID
	// Batch is true for an element of a [Conn.Batch]: its next returns
	// once that element's answer arrived, and the batch goes out when
	// every element has reached the innermost SendFunc or been refused.
	Batch bool

	num   int64     // our request number behind ID; 0: none chosen yet
	batch *assembly // the batch being assembled, for an element of one
	index int       // the element's index in batch
}

// SendFunc sends an outgoing request or notification and, for a request,
// waits for its response.
type SendFunc func(ctx context.Context, out *Outgoing) error

// OutgoingMiddleware wraps the sending of requests and notifications.
type OutgoingMiddleware func(next SendFunc) SendFunc

// Request is an incoming request or notification.
type Request struct {
	// ID is the request's id, exactly as received; zero for a notification.
	ID ID
	// Method is the method name.
	Method string
	// Params is the raw params member; nil when absent or null.
	Params json.RawMessage

	nullParams bool // the params member was null
	strict     bool // reject unknown members
	valid      bool // Params came from a frame already checked to be valid JSON
}

// IsNotification reports whether the peer expects no response.
func (r *Request) IsNotification() bool { return r.ID.IsZero() }

// HasParams reports whether the message carried a params member, null
// included: Params alone cannot tell "params": null from no params.
func (r *Request) HasParams() bool { return len(r.Params) > 0 || r.nullParams }

// DecodeParams decodes the params into v. Absent or null params decode as
// an empty array when v points to a slice or an array, and as an empty
// object otherwise. With [Options.DisallowUnknownFields] a member, at any depth, that
// no field of v takes is rejected. When v has a Validate() error method it
// is called afterwards.
// Every failure is an *Error with code -32602 whose data names the
// failing field: {"field": "a.b", "reason": "..."}.
func (r *Request) DecodeParams(v any) error {
	params := r.Params
	if len(params) == 0 {
		params = emptyParams(v)
	}
	var err error
	u, isUnmarshaler := v.(json.Unmarshaler)
	switch {
	case isUnmarshaler && (r.valid || len(r.Params) == 0):
		err = u.UnmarshalJSON(params) // valid JSON: encoding/json's check is not needed
	case !isUnmarshaler && isListPointer(v) && jsonKind(params) == "array":
		err = decodeItems(params, reflect.ValueOf(v).Elem())
	default:
		err = json.Unmarshal(params, v)
	}
	if err != nil {
		return paramsError(err)
	}
	if r.strict {
		if err := checkUnknown(params, reflect.ValueOf(v), ""); err != nil {
			return paramsError(err)
		}
	}
	if val, ok := v.(interface{ Validate() error }); ok {
		if err := val.Validate(); err != nil {
			return paramsError(err)
		}
	}
	return nil
}

// isListPointer reports whether v points to a slice or an array.
func isListPointer(v any) bool {
	t := reflect.TypeOf(v)
	return t != nil && t.Kind() == reflect.Pointer && (t.Elem().Kind() == reflect.Slice || t.Elem().Kind() == reflect.Array)
}

// decodeItems decodes the JSON array b into the slice or array s item by
// item, so that an item's error names its index. An array takes exactly
// as many items as it has elements.
func decodeItems(b []byte, s reflect.Value) error {
	var items []json.RawMessage
	if err := json.Unmarshal(b, &items); err != nil {
		return err
	}
	out := reflect.New(s.Type()).Elem()
	if s.Kind() == reflect.Array {
		if len(items) != s.Len() {
			return &FieldError{Reason: fmt.Sprintf("params must be an array of %d items, got %d", s.Len(), len(items))}
		}
	} else {
		out = reflect.MakeSlice(s.Type(), len(items), len(items))
	}
	for i, item := range items {
		if err := json.Unmarshal(item, out.Index(i).Addr().Interface()); err != nil {
			return atIndex(i, err)
		}
	}
	s.Set(out)
	return nil
}

// emptyParams is what absent params decode as into v: positional params
// (a slice or an array) get an empty array, anything else an empty object.
func emptyParams(v any) []byte {
	if t := reflect.TypeOf(v); t != nil && t.Kind() == reflect.Pointer {
		if k := t.Elem().Kind(); k == reflect.Slice || k == reflect.Array {
			return []byte("[]")
		}
	}
	return []byte("{}")
}

// FieldError says which field of a value is wrong. Validate methods of
// generated types return it; [Request.DecodeParams] turns it into -32602.
type FieldError struct {
	// Field is the dotted path of the field, e.g. "context.selection".
	Field string
	// Reason says what is wrong with it.
	Reason string
}

// Error implements the error interface.
func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Reason
	}
	return fmt.Sprintf("%s: %s", e.Field, e.Reason)
}

// InvalidParams returns a -32602 error naming the failing field.
func InvalidParams(field, reason string) *Error {
	return NewError(CodeInvalidParams, "Invalid params", &FieldError{Field: field, Reason: reason})
}

// MarshalJSON encodes the error as {"field": ..., "reason": ...}. The
// field's path is made of the peer's member names, so it is truncated
// (see [Truncate]).
func (e *FieldError) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Field  string `json:"field,omitempty"`
		Reason string `json:"reason"`
	}{Truncate(e.Field), e.Reason})
}

// paramsError converts a decoding or validation failure into -32602.
func paramsError(err error) *Error {
	var rpcErr *Error
	if errors.As(err, &rpcErr) {
		return rpcErr
	}
	var fe *FieldError
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &fe):
		return InvalidParams(fe.Field, fe.Reason)
	case errors.As(err, &te):
		field := te.Field
		got := gotValue(te)
		reason := fmt.Sprintf("expected %s, got JSON %s", jsonTypeName(te.Type), got)
		if field == "" {
			reason = fmt.Sprintf("params must be %s %s, got JSON %s", article(te.Type), jsonTypeName(te.Type), got)
		}
		return InvalidParams(field, reason)
	case errors.As(err, &se):
		return InvalidParams("", "params are not valid JSON")
	}
	return InvalidParams("", strings.TrimPrefix(err.Error(), "json: "))
}

// article is the indefinite article before a type name from jsonTypeName:
// "an object", "an integer", "a number", "a string".
func article(t reflect.Type) string {
	if strings.ContainsAny(jsonTypeName(t)[:1], "aeio") {
		return "an"
	}
	return "a"
}
