package jsonrpc

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
)

// ID identifies a request. It holds the id's JSON text as it was sent or
// received, so an incoming id is echoed byte for byte (but for invalid
// UTF-8, which becomes U+FFFD) and a number above 2^53 stays exact. The zero ID means "no id": a notification.
type ID struct{ raw string }

// IntID returns the numeric ID n.
func IntID(n int64) ID { return ID{strconv.FormatInt(n, 10)} }

// StringID returns the string ID s.
func StringID(s string) ID { return ID{string(appendString(nil, s))} }

// NullID is the JSON null id, used in error responses to messages whose
// id could not be read.
var NullID = ID{"null"}

// IsZero reports whether id is absent, as in a notification.
func (id ID) IsZero() bool { return id.raw == "" }

// IsNull reports whether id is the JSON null.
func (id ID) IsNull() bool { return id.raw == "null" }

// String returns the id's JSON text ("7", `"abc"`, "null"), or "" when absent.
func (id ID) String() string { return id.raw }

// MarshalJSON writes the id's JSON text; an absent id is written as null.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.raw == "" {
		return []byte("null"), nil
	}
	return []byte(id.raw), nil
}

// UnmarshalJSON accepts a JSON string, number or null.
func (id *ID) UnmarshalJSON(b []byte) error {
	raw, ok := parseID(trimSpace(b))
	if !ok {
		return fmt.Errorf("jsonrpc: id must be a string, a number or null, not %.40s", b)
	}
	*id = raw
	return nil
}

// parseID validates the JSON text of an id (a string, number or null) and
// returns it as an ID.
func parseID(b []byte) (ID, bool) {
	if !validID(b) {
		return ID{}, false
	}
	return idOf(b), true
}

// validID reports whether b is the JSON text of an id: a string, a number
// or null.
func validID(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	switch c := b[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return jsonscan.Valid(b)
	}
	return string(b) == "null"
}

// idOf returns the ID of valid id text b; empty b is the zero ID. Invalid
// UTF-8 in a string id becomes U+FFFD, as encoding/json decodes it, so
// that the id echoed in an answer or a log line is valid text.
func idOf(b []byte) ID {
	if string(b) == "null" {
		return NullID
	}
	if len(b) > 0 && b[0] == '"' && !utf8.Valid(b) {
		return ID{string(appendValidUTF8(nil, b))}
	}
	return ID{string(b)}
}

// appendValidUTF8 appends b with each invalid UTF-8 byte replaced by
// U+FFFD. In valid JSON text such bytes can only be inside strings, so
// the result is the same JSON with those strings coerced as
// encoding/json would.
func appendValidUTF8(dst, b []byte) []byte {
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, b[:size]...)
		}
		b = b[size:]
	}
	return dst
}
