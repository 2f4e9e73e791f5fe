package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/examples/mcp/internal/tasks"
	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// The defaults of the bounds on what a client can make the server keep.
const (
	defaultMaxNotes     = 64
	defaultMaxNoteBytes = 8 << 10
	// maxSubscriptions is the most resources/subscribe the server keeps:
	// every greeting://{name} is readable, so without it a client could
	// grow the set with names.
	maxSubscriptions = 64
)

// limits bound what one client (one session: the server serves one
// client on stdio) can make the server keep.
type limits struct {
	maxNotes     int // notes add_note keeps
	maxNoteBytes int // bytes of one note's text
	tasks        tasks.Limits
}

// tooMany is the -32603 error of a request refused because the server
// already keeps max things of what, for this session.
func tooMany(what string, max int) error {
	return jsonrpc.NewError(jsonrpc.CodeInternalError,
		fmt.Sprintf("Too many %s: this session keeps at most %d", what, max), map[string]int{"max": max})
}

// decode decodes a tool's arguments, reporting bad input as a tool error
// phrased in JSON's terms: which argument, which JSON type it needs.
func decode(args json.RawMessage, v any) *mcp.CallToolResult {
	if string(args) == "null" {
		args = []byte("{}")
	}
	if err := json.Unmarshal(args, v); err != nil {
		return toolError("%s", argumentError(err))
	}
	return nil
}

// argumentError phrases a decoding error of tool arguments without Go's
// names, as in `argument "a": want a number, got a string`.
func argumentError(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return "invalid arguments"
	}
	got := te.Value
	switch {
	case got == "bool":
		got = "a boolean"
	case got == "string", got == "number", got == "array", got == "object":
		got = article(got)
	case strings.HasPrefix(got, "number "):
		got = "the number " + jsonrpc.Truncate(strings.TrimPrefix(got, "number "))
	}
	if te.Field == "" {
		return fmt.Sprintf("invalid arguments: want %s, got %s", jsonType(te.Type), got)
	}
	return fmt.Sprintf("argument %q: want %s, got %s", jsonrpc.Truncate(te.Field), jsonType(te.Type), got)
}

// jsonType names the JSON type a Go type decodes from.
func jsonType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// article prefixes a JSON type name with its article.
func article(typ string) string {
	if strings.IndexByte("aeiou", typ[0]) >= 0 {
		return "an " + typ
	}
	return "a " + typ
}

// rootsWatch coalesces the client's notifications/roots/list_changed: at
// most one roots/list is outstanding, and list_changed notifications that
// arrive meanwhile lead to exactly one more once it returns.
type rootsWatch struct {
	outstanding bool // a roots/list is on its way
	stale       bool // the roots changed since it was sent
}

// RootsListChanged asks the client for its roots, unless a roots/list is
// already outstanding: then the answer is marked stale, to be asked for
// once more when it returns.
func (s *server) RootsListChanged(ctx context.Context, _ *mcp.NotificationParams) error {
	s.mu.Lock()
	if s.rootsWatch.outstanding {
		s.rootsWatch.stale = true
		s.mu.Unlock()
		return nil
	}
	s.rootsWatch.outstanding = true
	s.mu.Unlock()
	c := client(ctx)
	go s.listRoots(c) // a notification handler must not wait on the peer
	return nil
}

// listRoots asks the client for its roots until the answer is not stale.
func (s *server) listRoots(c mcp.Client) {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, err := c.ListRoots(ctx, &mcp.RequestParams{})
		s.mu.Lock()
		again := s.rootsWatch.stale
		s.rootsWatch.stale = false
		s.rootsWatch.outstanding = again
		s.mu.Unlock()
		if err != nil {
			s.log.Warn("listing the changed roots", "error", jsonrpc.Truncate(err.Error()))
		} else {
			s.logf(ctx, c, mcp.LoggingLevelInfo, "roots", "roots changed: %d roots", len(res.Roots))
		}
		cancel()
		if !again {
			return
		}
	}
}
