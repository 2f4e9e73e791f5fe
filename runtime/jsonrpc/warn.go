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

// warnLimiter rate-limits the warnings of one connection.
type warnLimiter struct {
	log *slog.Logger
	now func() time.Time

	mu         sync.Mutex
	logged     int       // warnings logged in the burst
	next       time.Time // when the next warning past the burst may be logged
	suppressed int       // warnings suppressed since the last one logged
	total      int       // warnings suppressed in all
}

// warn logs a warning the peer triggered, unless too many came lately.
// Values from the peer among args must already be truncated.
func (c *Conn) warn(msg string, args ...any) { c.warnings.emit(slog.LevelWarn, msg, args) }

// warnError is warn at the error level, for a peer's request that made
// a handler panic.
func (c *Conn) warnError(msg string, args ...any) { c.warnings.emit(slog.LevelError, msg, args) }

func (w *warnLimiter) emit(level slog.Level, msg string, args []any) {
	w.mu.Lock()
	var since int
	switch now := w.now(); {
	case w.logged < warnBurst:
		w.logged++
	case !now.Before(w.next):
		since = w.suppressed
		w.suppressed = 0
		w.next = now.Add(warnInterval)
	default:
		w.suppressed++
		w.total++
		w.mu.Unlock()
		return
	}
	if w.logged == warnBurst && w.next.IsZero() {
		w.next = w.now().Add(warnInterval)
	}
	w.mu.Unlock()
	if since > 0 {
		args = append(args, "suppressed", since)
	}
	w.log.Log(context.Background(), level, msg, args...)
}

// summary logs, when the connection ends, how many warnings were
// suppressed in all.
func (w *warnLimiter) summary() {
	w.mu.Lock()
	total := w.total
	w.total = 0
	w.mu.Unlock()
	if total > 0 {
		w.log.Warn("jsonrpc: warnings suppressed on this connection", "suppressed", total)
	}
}
