// Package jsonrpc implements JSON-RPC 2.0 connections in which both peers
// send requests and notifications, as editors, agents and plugin hosts do
// with their child processes.
//
// A [Conn] runs over any byte stream (see package transport) split into
// messages by a framing (see package framing). It serves incoming messages
// with a [Handler] and sends with [Conn.Call], [Conn.Notify] and
// [Conn.Batch]:
//
//   - many requests may be in flight both ways; responses are matched by
//     id and may arrive in any order;
//   - incoming requests run concurrently up to a limit, incoming
//     notifications run one at a time in arrival order;
//   - a call whose context ends returns at once and, when the protocol has
//     one, sends its cancellation notification (LSP "$/cancelRequest" or
//     MCP "notifications/cancelled"); an incoming one cancels the
//     handler's context;
//   - handlers' contexts derive from [Options.BaseContext], whose values
//     they see and whose cancellation stops them all (a server's
//     shutdown);
//   - middleware wraps incoming messages ([Options.Middleware]) and
//     outgoing calls ([Options.Outgoing]), each element of a batch
//     included;
//   - per-method default timeouts apply when the caller sets no deadline
//     and fail with a [*TimeoutError];
//   - malformed input is answered with the specification's exact error
//     codes (-32700, -32600, -32601, -32602, -32603), and a handler's
//     panic or plain error becomes -32603 without leaking details; an
//     invalid response is never answered (its id belongs to our own
//     requests) and fails the call it names with [ErrInvalidResponse];
//   - closing or losing the peer fails every pending call at once with an
//     error wrapping [ErrClosed];
//   - an error the peer sends on its own (a response with id null, such
//     as why it is about to exit) goes to [Options.OnPeerError], and the
//     errors of calls failed by the end of the connection wrap it as a
//     [*PeerError]; [Conn.SendError] sends one;
//   - batches are accepted both ways unless the protocol has none
//     ([Options.RejectBatches]) or has them under some negotiated versions
//     only ([Options.BatchVersions], as MCP had them in revision
//     2025-03-26): a refused batch is answered with one -32600 and none
//     of it is handled, and [Conn.Batch] fails with [ErrBatchesRejected];
//     the version is the handshake result's [Options.VersionField]
//     ([Conn.ProtocolVersion]), and until it is known batches are refused;
//   - what a peer can make a connection hold is bounded by default: our
//     calls awaiting an answer ([Options.MaxOutgoingCalls]), the bytes of
//     its messages waiting for a handler ([Options.MaxQueuedBytes]), the
//     size of an answer ([Options.MaxResponseBytes]); its values are
//     echoed and logged truncated ([Truncate]) and as valid UTF-8, and
//     the warnings it can trigger are rate-limited;
//   - [Conn.Stats] counts a connection's traffic, errors by code, timeouts
//     and cancellations, and a [Metrics] shared through [Options.Metrics]
//     sums a server's connections and publishes them with expvar;
//   - [Options.Trace] sees every frame read and written ([TraceWriter]
//     writes them as readable lines), and costs nothing when unset.
//
// The read loop never writes: its output goes through a write loop, so a
// peer that stops reading cannot stop us from reading its messages. A
// call that only the connection's end can interrupt, and a handler's
// answer, are written by their own goroutine when no write loop runs,
// one hand-over less. The write loop and the handler workers run only
// while they have work, so an idle connection holds one goroutine, its
// reader.
// Diagnostics go to a log/slog logger and never to stdout.
//
// Generated protocol packages are built on this package: their remote
// stubs call through a [Caller] ([*Conn] or [*Redialer]) and their
// dispatchers are [Handler]s. The encoders and decoders their method
// bodies call are in package rpcimpl, which is for generated code only.
package jsonrpc
