package jsonrpc

import (
	"testing"
	"time"
)

// TestLingerAllocations checks that a worker's or the writer's linger
// takes a pooled timer (runtime/internal/timerpool) instead of allocating
// one each time.
func TestLingerAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops pooled values at random")
	}
	wake := make(chan struct{}, 1)
	if n := testing.AllocsPerRun(100, func() {
		wake <- struct{}{}
		if !lingerFor(time.Hour, wake, nil) {
			t.Error("lingerFor missed the token")
		}
	}); n != 0 {
		t.Errorf("lingerFor allocates %v times, want 0", n)
	}
}
