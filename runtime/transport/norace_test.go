//go:build !race

package transport

// raceEnabled reports whether the tests run under the race detector,
// which makes goroutine stacks deeper.
const raceEnabled = false
