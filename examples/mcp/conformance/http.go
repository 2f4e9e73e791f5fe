package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/rpcgen/rpcgen/generated/mcp"
)

// serveHTTP serves sessions at addr until ctx ends.
//
// The Streamable HTTP server transport (runtime/streamhttp) is not merged
// into this branch yet; until it is, the program only reports that.
func serveHTTP(context.Context, string, *slog.Logger) error {
	return errors.New("the Streamable HTTP server transport is not available yet")
}

// reconnection will end the request's event stream before answering.
func reconnection(context.Context, *session, call) (*mcp.CallToolResult, error) {
	return toolError("the Streamable HTTP server transport is not available yet"), nil
}
