// Package idl reads rpcgen's YAML description of a JSON-RPC 2.0 protocol,
// checks it, and resolves it into the model the generators work from.
//
// One file describes one protocol: its two roles, framing, transports,
// request IDs, cancellation, timeouts and handshake (protocol:), the files
// it shares definitions with (include:), its named types (types:), its
// error catalogue (errors:) and its methods and notifications
// (methods:). The format and every validation rule are described in
// README.md beside this file.
//
// [Load] and [Parse] return either a fully resolved [Protocol] or an
// [Errors] listing every problem found, each as "file:line:col: message".
// A Protocol holds plain data: every type reference points to its
// [TypeDef], inline objects, enums and unions get synthesized names, and
// every type, field, enum value, method, error and role carries the Go
// identifier generators must use (computed by internal/goname and checked
// for collisions).
package idl
