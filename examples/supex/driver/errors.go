package main

import (
	"errors"
	"strings"

	"github.com/rpcgen/rpcgen/generated/supex"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// errorKind names what went wrong, for the user and for scripts reading
// the shell's output. A runtime may answer a failed tool with the code
// the protocol documents (-32000, -32002, -32602) or, as upstream's
// runtime does for every tool failure, with -32603 and the reason in the
// message only; both give the same kind.
func errorKind(err error) string {
	var e *jsonrpc.Error
	switch {
	case errors.Is(err, jsonrpc.ErrTimeout):
		return "timeout"
	case errors.As(err, &e):
	case errors.Is(err, jsonrpc.ErrClosed):
		return "connection_lost"
	case errors.Is(err, errUsage):
		return "usage"
	default:
		return "connection_failed"
	}
	switch e.Code {
	case supex.CodeRuby:
		return "tool_failed"
	case supex.CodePathAccessDenied:
		return "path_denied"
	case supex.CodeAuthenticationFailed:
		return "authentication_failed"
	case jsonrpc.CodeInvalidRequest:
		return "not_identified"
	case jsonrpc.CodeInvalidParams:
		if strings.Contains(string(e.Data), `"field":"name"`) {
			return "unknown_tool"
		}
		return "invalid_params"
	case jsonrpc.CodeMethodNotFound:
		return "method_not_found"
	case jsonrpc.CodeInternalError:
		// Upstream's runtime: the tool's own prefix ("Failed to open
		// model: ") may come before the path policy's message.
		switch {
		case strings.Contains(e.Message, "Path access denied for "):
			return "path_denied"
		case strings.HasPrefix(e.Message, "Unknown tool: "):
			return "unknown_tool"
		}
		return "tool_failed"
	}
	return "error"
}

// errorJSON describes err for the shell's output.
func errorJSON(err error) any {
	e := map[string]any{"kind": errorKind(err), "message": err.Error()}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		e["code"] = rpcErr.Code
		if len(rpcErr.Data) > 0 {
			e["data"] = rpcErr.Data
		}
	}
	if errors.Is(err, jsonrpc.ErrTimeout) {
		e["timeout"] = true
	}
	return map[string]any{"error": e}
}
