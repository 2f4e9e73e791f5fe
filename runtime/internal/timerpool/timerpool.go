// Package timerpool keeps stopped timers for reuse, so that the short
// waits of a connection's life (a worker lingering, a call's timeout, the
// drain at close, a POST's wait for headers) do not allocate a timer and
// its channel each.
package timerpool

import (
	"sync"
	"time"
)

var pool sync.Pool

// reusable reports whether timers may be reused: only when their channels
// are synchronous (Go 1.23's timers, unless the main module's go line is
// older or GODEBUG says asynctimerchan=1), since then a stopped or reset
// timer never delivers a value from before, which could end the next
// user's wait early.
var reusable = func() bool {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	return cap(t.C) == 0
}()

// Reusable reports whether Put keeps timers for reuse.
func Reusable() bool { return reusable }

// Get returns a timer firing after d, a reused one when one is kept.
func Get(d time.Duration) *time.Timer {
	if t, ok := pool.Get().(*time.Timer); ok {
		t.Reset(d)
		return t
	}
	return time.NewTimer(d)
}

// Put stops t and keeps it for reuse. Neither t nor its channel may be
// used afterwards.
func Put(t *time.Timer) {
	t.Stop()
	if reusable {
		pool.Put(t)
	}
}
