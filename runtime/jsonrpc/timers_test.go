package jsonrpc

import (
	"testing"
	"time"
)

// TestTimersReused checks that the waits of a connection (lingering, a
// call's timeout, the drain at close) reuse stopped timers instead of
// allocating one each, and that a reused timer fires after its new
// duration only, whether it was stopped early or fired before.
func TestTimersReused(t *testing.T) {
	if !reuseTimers {
		t.Fatal("timer channels are not synchronous: the module's go line is 1.23 or later, so they should be")
	}
	fired := startTimer(time.Microsecond)
	<-fired.C
	releaseTimer(fired)
	stopped := startTimer(time.Hour)
	releaseTimer(stopped)
	for range 4 {
		tm := startTimer(time.Hour)
		select {
		case <-tm.C:
			t.Fatal("a reused timer fired at once")
		default:
		}
		defer releaseTimer(tm)
	}
	if raceEnabled {
		return // the race detector drops pooled values at random
	}
	if n := testing.AllocsPerRun(100, func() { releaseTimer(startTimer(time.Hour)) }); n != 0 {
		t.Errorf("a timer started and released allocates %v times, want 0", n)
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
