//go:build race

package rpcimpl

// raceEnabled reports whether the tests run under the race detector,
// under which sync.Pool drops what it is given at random.
const raceEnabled = true
