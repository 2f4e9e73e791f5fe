package rpcimpl

import (
	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// The JSON scanning this package shares with package jsonrpc.

func trimSpace(b []byte) []byte     { return jsonscan.TrimSpace(b) }
func skipSpace(b []byte, i int) int { return jsonscan.SkipSpace(b, i) }
func skipValue(b []byte, i int) int { return jsonscan.SkipValue(b, i) }

// reasonOf describes a decoding error in JSON's terms, quoting the peer's
// value truncated.
func reasonOf(err error) string { return jsonscan.Reason(err, jsonrpc.Truncate) }
