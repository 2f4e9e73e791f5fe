package jsonrpc

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// A peer can make a connection warn as often as it sends (an unknown
// notification, a response to no call, a bad frame, ...). Those warnings
// go through one limiter per connection, so that what a peer sends
// cannot grow the log in proportion.
const (
	// warnBurst is how many warnings a connection logs before limiting.
	warnBurst = 10
	// warnInterval is the least time between two warnings past the burst.
	warnInterval = time.Second
)

// warnLimiter rate-limits the warnings of one connection. It is part of
// every Conn, so it is kept small: the connection's Logger is passed in,
// and times are nanoseconds since clockBase.
type warnLimiter struct {
	now func() time.Time

	mu         sync.Mutex
	logged     int32 // warnings logged in the burst
	suppressed int32 // warnings suppressed since the last one logged (one interval's worth at most)
	next       int64 // when the next warning past the burst may be logged, since clockBase; 0: not set
	total      int   // warnings suppressed in all
}

// clockBase is the origin of a warnLimiter's times: nanoseconds since
// it fit an int64, and with the real clock they are read on its
// monotonic reading.
var clockBase = time.Now()

// warn logs a warning the peer triggered, unless too many came lately.
// Values from the peer among args must already be truncated.
func (c *Conn) warn(msg string, args ...any) { c.warnings.emit(c.log, slog.LevelWarn, msg, args) }

// warnError is warn at the error level, for a peer's request that made
// a handler panic.
func (c *Conn) warnError(msg string, args ...any) { c.warnings.emit(c.log, slog.LevelError, msg, args) }

func (w *warnLimiter) emit(log *slog.Logger, level slog.Level, msg string, args []any) {
	w.mu.Lock()
	var since int32
	switch now := int64(w.now().Sub(clockBase)); {
	case w.logged < warnBurst:
		w.logged++
	case now >= w.next:
		since = w.suppressed
		w.suppressed = 0
		w.next = now + int64(warnInterval)
	default:
		w.suppressed++
		w.total++
		w.mu.Unlock()
		return
	}
	if w.logged == warnBurst && w.next == 0 {
		w.next = int64(w.now().Sub(clockBase)) + int64(warnInterval)
	}
	w.mu.Unlock()
	if since > 0 {
		args = append(args, "suppressed", since)
	}
	log.Log(context.Background(), level, msg, args...)
}

// summary logs, when the connection ends, how many warnings were
// suppressed in all.
func (w *warnLimiter) summary(log *slog.Logger) {
	w.mu.Lock()
	total := w.total
	w.total = 0
	w.mu.Unlock()
	if total > 0 {
		log.Warn("jsonrpc: warnings suppressed on this connection", "suppressed", total)
	}
}
