// Package reliability holds no code: its tests drive the runtime
// (packages jsonrpc, transport and framing) with broken peers, faults and
// load over real child processes and sockets, and render the outcome of
// every case into RELIABILITY.md in this directory.
//
// Regenerate the table after changing a case with
//
//	go test ./runtime/reliability -run TestReliability -update
package reliability
