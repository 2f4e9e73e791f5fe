package jsonrpc

import (
	"sync"
	"time"
)

// timers holds stopped timers for reuse: the waits of a connection's life
// (a worker or the writer lingering, a call's timeout, the drain and the
// handlers' finish at its end) take one each and give it back instead of
// allocating a timer and its channel each time.
var timers sync.Pool

// reuseTimers reports whether timers may be reused: only when their
// channels are synchronous (Go 1.23's timers, unless GODEBUG says
// asynctimerchan=1), since then a stopped or reset timer never delivers a
// value from before (a stale one could end the next user's wait early).
var reuseTimers = func() bool {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	return cap(t.C) == 0
}()

// startTimer returns a timer firing after d, reused when one is kept.
func startTimer(d time.Duration) *time.Timer {
	if t, ok := timers.Get().(*time.Timer); ok {
		t.Reset(d)
		return t
	}
	return time.NewTimer(d)
}

// releaseTimer stops t and keeps it for reuse. Neither t nor its channel
// may be used afterwards.
func releaseTimer(t *time.Timer) {
	t.Stop()
	if reuseTimers {
		timers.Put(t)
	}
}
