// Package conformance holds the JSON-RPC 2.0 conformance tests of rpcgen's
// generated code and the replay of the seed documents' example messages
// against the example programs. Everything is in its tests; see README.md.
package conformance
