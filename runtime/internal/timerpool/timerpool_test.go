package timerpool

import (
	"testing"
	"time"
)

// TestReuseAllocations checks that a timer put back is reused, and that a reused
// timer fires after its new duration only, whether it was stopped early
// or had fired before.
func TestReuseAllocations(t *testing.T) {
	if !Reusable() {
		t.Fatal("timer channels are not synchronous: the module's go line is 1.23 or later, so they should be")
	}
	fired := Get(time.Microsecond)
	<-fired.C
	Put(fired)
	stopped := Get(time.Hour)
	Put(stopped)
	for range 4 {
		tm := Get(time.Hour)
		select {
		case <-tm.C:
			t.Fatal("a reused timer fired at once")
		default:
		}
		defer Put(tm)
	}
	again := Get(time.Millisecond)
	select {
	case <-again.C:
	case <-time.After(time.Minute):
		t.Fatal("a reused timer never fired")
	}
	Put(again)
	if raceEnabled {
		return // the race detector drops pooled values at random
	}
	if n := testing.AllocsPerRun(100, func() { Put(Get(time.Hour)) }); n != 0 {
		t.Errorf("a timer got and put back allocates %v times, want 0", n)
	}
}
