package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The error codes defined by the JSON-RPC 2.0 specification.
const (
	// CodeParseError: the message is not valid JSON.
	CodeParseError = -32700
	// CodeInvalidRequest: the JSON is not a valid request object.
	CodeInvalidRequest = -32600
	// CodeMethodNotFound: the method does not exist or is not available.
	CodeMethodNotFound = -32601
	// CodeInvalidParams: the params do not fit the method.
	CodeInvalidParams = -32602
	// CodeInternalError: the handler failed.
	CodeInternalError = -32603
	// CodeRequestCancelled is the LSP code answering a request the caller
	// cancelled with $/cancelRequest.
	CodeRequestCancelled = -32800
)

// Error is a JSON-RPC error object. It is what a failed call returns and
// what a handler returns to send a specific error to the peer.
//
// Two *Error values match under errors.Is when their codes are equal, so
// errors.Is(err, jsonrpc.ErrMethodNotFound) holds for any -32601 error.
type Error struct {
	// Code is the error code.
	Code int64 `json:"code"`
	// Message is a short description of the error.
	Message string `json:"message"`
	// Data is optional additional information, as raw JSON.
	Data json.RawMessage `json:"data,omitempty"`
}

// Sentinels for the specification's codes, for use with errors.Is.
var (
	ErrParse          = &Error{Code: CodeParseError, Message: "Parse error"}
	ErrInvalidRequest = &Error{Code: CodeInvalidRequest, Message: "Invalid Request"}
	ErrMethodNotFound = &Error{Code: CodeMethodNotFound, Message: "Method not found"}
	ErrInvalidParams  = &Error{Code: CodeInvalidParams, Message: "Invalid params"}
	ErrInternal       = &Error{Code: CodeInternalError, Message: "Internal error"}
)

// NewError returns an error with the given code and message whose data is
// data encoded as JSON. A nil data, or one that cannot be encoded, is left
// out.
func NewError(code int64, message string, data any) *Error {
	e := &Error{Code: code, Message: message}
	if data != nil {
		if b, err := json.Marshal(data); err == nil {
			e.Data = b
		}
	}
	return e
}

// Error implements the error interface.
func (e *Error) Error() string {
	if len(e.Data) > 0 {
		return fmt.Sprintf("jsonrpc error %d: %s (data: %s)", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t != nil && t.Code == e.Code
}

// ErrClosed is wrapped by the error of every call that could not complete
// because the connection closed or the peer went away.
var ErrClosed = errors.New("jsonrpc: connection closed")

// ErrNotSent is wrapped, besides [ErrClosed], by the error of a call or
// notification that failed because the connection ended before any byte
// of it was written: the peer never saw it, so sending it again on a new
// connection cannot run it twice.
var ErrNotSent = errors.New("jsonrpc: not sent")

// ErrTimeout is matched (with errors.Is) by the error of a call that ran
// out its method's default timeout.
var ErrTimeout = errors.New("jsonrpc: call timed out")

// ErrBatchesRejected is wrapped by the error of [Conn.Batch] on a
// connection that does not accept batches: its protocol has none
// ([Options.RejectBatches]), or has them under other negotiated versions
// only ([Options.BatchVersions]).
var ErrBatchesRejected = errors.New("jsonrpc: the protocol does not accept batches")

// TimeoutError is returned by a call that ran out its method's default
// timeout (see [Options.Timeout]). It matches both [ErrTimeout] and
// context.DeadlineExceeded under errors.Is.
type TimeoutError struct {
	// Method is the method called.
	Method string
	// ID is the id the request was sent with.
	ID ID
	// Timeout is the timeout that elapsed.
	Timeout time.Duration
}

// Error implements the error interface.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("jsonrpc: call %q (id %s) timed out after %v", e.Method, e.ID, e.Timeout)
}

// Is reports whether target is ErrTimeout or context.DeadlineExceeded.
func (e *TimeoutError) Is(target error) bool {
	return target == ErrTimeout || target == context.DeadlineExceeded
}

// errorf is fmt.Errorf for the errors of this package: the errors among
// args lose the "jsonrpc: " prefix of their text, so that the result
// carries it once, from format or, when format starts with "%w", from
// the first error it wraps. errors.Is and errors.As see them unchanged.
func errorf(format string, args ...any) error {
	for i, a := range args {
		if err, ok := a.(error); ok && (i > 0 || !strings.HasPrefix(format, "%w")) {
			args[i] = unprefixed{err}
		}
	}
	return fmt.Errorf(format, args...)
}

// unprefixed is an error whose text loses its "jsonrpc: " prefix.
type unprefixed struct{ err error }

func (u unprefixed) Error() string { return strings.TrimPrefix(u.err.Error(), "jsonrpc: ") }
func (u unprefixed) Unwrap() error { return u.err }

// ErrUnexpectedResult is matched (with errors.Is) by the error of a call
// whose method always answers null when the peer answered something else.
var ErrUnexpectedResult = errors.New("jsonrpc: unexpected result")
