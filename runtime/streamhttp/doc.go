// Package streamhttp carries JSON-RPC over HTTP the way the Model Context
// Protocol's Streamable HTTP transport does (revision 2025-11-25): one
// endpoint; the client POSTs each message and reads the answer either as
// a JSON body or as a stream of server-sent events that may carry the
// server's own requests and notifications first; a GET opens a stream for
// messages the server starts; DELETE ends a session.
//
// Both sides present a session as an [io.ReadWriteCloser] of
// newline-delimited JSON messages, so a jsonrpc.Conn, and the generated
// Connect functions built on it, run over HTTP exactly as over stdio or a
// socket: bidirectional calls, cancellation, progress and timeouts behave
// the same.
//
// Nothing here is tied to MCP: what a protocol puts in headers (the session
// and revision headers, the handshake that opens a session) is described by
// a [Protocol] value, which generated code provides for protocols whose IDL
// declares an http transport.
//
// The package uses only the standard library.
package streamhttp
