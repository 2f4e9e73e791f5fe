// Package gosdk holds the interoperability tests of rpcgen's generated MCP
// package against the official MCP Go SDK
// (github.com/modelcontextprotocol/go-sdk). It is a separate module so that
// the SDK stays out of the main module's dependencies; everything is in the
// _test.go files.
package gosdk
