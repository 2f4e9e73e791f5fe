//go:build !race

package timerpool

const raceEnabled = false
