// Package stacks counts goroutines by what their stacks hold, for tests
// that check how many goroutines a connection keeps.
package stacks

import (
	"runtime"
	"strings"
)

// Count returns how many goroutines' stacks match.
func Count(match func(stack string) bool) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if match(g) {
			count++
		}
	}
	return count
}
