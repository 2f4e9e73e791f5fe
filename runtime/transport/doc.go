// Package transport provides the byte streams a JSON-RPC connection runs
// over. It knows nothing about JSON-RPC: every transport is an
// [io.ReadWriteCloser] (or a [net.Conn]), and message framing and the
// protocol itself live in other packages.
//
// The transports are:
//
//   - [Stdio]: the current process's standard input and output, for the
//     extension, plugin or agent side of a stdio protocol.
//   - [Spawn] and [Process]: the host side of the same arrangement; the
//     host starts a child process and talks to it over the child's stdin
//     and stdout, while the child's stderr is forwarded to a [log/slog]
//     logger line by line.
//   - [Server] and [Dial]: TCP and Unix-domain sockets. A Server bounds by
//     default how long a connection may stay silent ([WithIdleTimeout]),
//     how long one received message may take ([WithMessageTimeout]), how
//     long a connection has to become established, and how many
//     connections it serves, where connections not yet established give
//     way to new ones.
//   - [Pipe]: two connected in-memory endpoints, for tests.
//
// The package uses only the standard library.
package transport
