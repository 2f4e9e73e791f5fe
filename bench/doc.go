// Package bench measures rpcgen side by side with other Go JSON-RPC 2.0
// libraries and two hand-written baselines. Each implementation is one file
// registering an [impl]; bench_test.go runs every workload on every
// implementation, and rpc_test.go checks that each one really answers.
//
// The module is separate from rpcgen's so that the peer libraries never enter
// rpcgen's own dependencies. See README.md for how to run it and for the
// latest results.
package bench
