//go:build !race

package streamhttp

// raceEnabled reports whether the tests run under the race detector, which
// slows the load cases down enough to reduce their counts.
const raceEnabled = false
