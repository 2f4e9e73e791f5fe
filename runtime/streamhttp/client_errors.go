package streamhttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

var (
	// ErrSessionNotFound reports a 404 to a request that carried the
	// session id: the server ended the session or never knew it. The
	// stream ends; a new session needs a new Dial and handshake.
	ErrSessionNotFound = errors.New("streamhttp: the server no longer knows the session")
	// ErrClientClosed is returned by Write after Close.
	ErrClientClosed = errors.New("streamhttp: stream closed")
)

// CodeHTTPFailure is the JSON-RPC error code of the response a
// [ClientStream] makes up for a request whose answer failed at the HTTP
// level (an error status, an unreadable or oversized body, a stream lost
// for good): -32603, Internal error. When the server's error body holds a
// JSON-RPC error, that error is used instead.
const CodeHTTPFailure = -32603

// maxErrorBody bounds how much of an HTTP error's body is read.
const maxErrorBody = 64 << 10

// HTTPError is an HTTP status the server answered instead of a message.
// A 401 or 403 ends the stream with one, so that the caller can find it
// with errors.As and read WWW-Authenticate from Header.
type HTTPError struct {
	// Method is the HTTP method of the request: POST, GET or DELETE.
	Method string
	// StatusCode is the response's status, such as 401.
	StatusCode int
	// Header is the response's header.
	Header http.Header
	// Body is the start of the response's body, truncated for display.
	Body string
}

// Error describes the status and the start of the body.
func (e *HTTPError) Error() string {
	msg := "streamhttp: " + e.Method + ": HTTP " + strconv.Itoa(e.StatusCode)
	if t := http.StatusText(e.StatusCode); t != "" {
		msg += " " + t
	}
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// newHTTPError reads the start of resp's body (without closing it) into an
// HTTPError, and returns that start as read too.
func newHTTPError(method string, resp *http.Response) (*HTTPError, []byte) {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	return &HTTPError{Method: method, StatusCode: resp.StatusCode, Header: resp.Header, Body: jsonrpc.Truncate(string(body))}, body
}

// errorResponse returns a JSON-RPC error response line for request id.
// Text from the server stays as it is (no HTML escaping), so that data
// holding a cut body is no longer than the body.
func errorResponse(id json.RawMessage, code int, message string, data any) []byte {
	type errObj struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}
	type response struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   errObj          `json:"error"`
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(response{"2.0", id, errObj{code, message, data}}) != nil {
		b.Reset() // data that does not encode: leave it out
		_ = enc.Encode(response{"2.0", id, errObj{code, message, nil}})
	}
	return b.Bytes() // Encode ends it with a newline
}

// failureResponse is the response made up for request id whose answer was
// lost for reason.
func failureResponse(id json.RawMessage, reason error) []byte {
	return errorResponse(id, CodeHTTPFailure, "Internal error: "+reason.Error(), nil)
}

// httpErrorResponses makes up the answers to the requests ids that the
// server answered with HTTP error e and body: the server's JSON-RPC error
// when the body holds one, else -32603 with the status and body as data.
func httpErrorResponses(ids []json.RawMessage, e *HTTPError, body []byte) [][]byte {
	var peer struct {
		Error *struct {
			Code    *int            `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	usePeer := json.Unmarshal(body, &peer) == nil && peer.Error != nil && peer.Error.Code != nil
	out := make([][]byte, 0, len(ids))
	for _, id := range ids {
		if usePeer {
			var data any
			if len(peer.Error.Data) > 0 {
				data = peer.Error.Data
			}
			out = append(out, errorResponse(id, *peer.Error.Code, peer.Error.Message, data))
			continue
		}
		data := map[string]any{"status": e.StatusCode}
		if e.Body != "" {
			data["body"] = e.Body
		}
		out = append(out, errorResponse(id, CodeHTTPFailure, fmt.Sprintf("Internal error: HTTP %d %s", e.StatusCode, http.StatusText(e.StatusCode)), data))
	}
	return out
}

// unprefixed is an error whose text loses its "streamhttp: " prefix, for
// wrapping inside another error of this package that carries it.
type unprefixed struct{ err error }

func (u unprefixed) Error() string { return strings.TrimPrefix(u.err.Error(), "streamhttp: ") }
func (u unprefixed) Unwrap() error { return u.err }
