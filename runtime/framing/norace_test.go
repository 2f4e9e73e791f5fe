//go:build !race

package framing_test

// raceEnabled reports whether the tests run under the race detector,
// under which a sync.Pool drops one buffer in four that it is given.
const raceEnabled = false
