//go:build race

package timerpool

const raceEnabled = true
