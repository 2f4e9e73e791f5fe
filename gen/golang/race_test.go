//go:build race

package golang

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = true
