//go:build !race

package jsonrpc

// raceEnabled reports whether the tests run under the race detector,
// which makes every allocation larger.
const raceEnabled = false
