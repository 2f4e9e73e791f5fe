package jsonrpc

import (
	"io"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// Direction tells a wire trace (see [Options.Trace]) whether a frame was
// read or written.
type Direction uint8

const (
	// Received marks a frame read from the peer.
	Received Direction = iota + 1
	// Sent marks a frame written to the peer.
	Sent
)

// String returns "<-" for Received and "->" for Sent.
func (d Direction) String() string {
	switch d {
	case Received:
		return "<-"
	case Sent:
		return "->"
	}
	return "?"
}

// DefaultTraceLimit is how many bytes of each frame a [TraceWriter]
// writes when its Limit is zero.
const DefaultTraceLimit = 4 << 10

// TraceWriter writes a readable line to W for each frame it is given, as
// LSP's --trace does: the time, the direction ("<-" received, "->" sent),
// the frame's size in bytes, and the frame, cut after Limit bytes with
// "…" so that a 32 MiB frame does not flood the log. Control characters
// (the newlines of pretty-printed JSON) are written as spaces and invalid
// UTF-8 as U+FFFD, so a frame is always one line. Set its Trace method as
// [Options.Trace]; it is safe for concurrent use, by several connections
// too. Write errors are ignored.
type TraceWriter struct {
	// W receives the lines.
	W io.Writer
	// Limit is how many bytes of a frame are written (default
	// DefaultTraceLimit; negative: all of it).
	Limit int
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	mu  sync.Mutex
	buf []byte
}

// Trace writes the line for frame; it keeps no reference to frame.
func (t *TraceWriter) Trace(dir Direction, frame []byte) {
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	limit := t.Limit
	if limit == 0 {
		limit = DefaultTraceLimit
	}
	shown := frame
	if limit > 0 && len(shown) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(shown[cut]) {
			cut--
		}
		shown = shown[:cut]
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	b := now().UTC().AppendFormat(t.buf[:0], "15:04:05.000000")
	b = append(b, ' ')
	b = append(b, dir.String()...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(len(frame)), 10)
	b = append(b, ' ')
	for len(shown) > 0 {
		if c := shown[0]; c >= 0x20 && c < 0x7f { // printable ASCII
			b = append(b, c)
			shown = shown[1:]
			continue
		}
		r, n := utf8.DecodeRune(shown)
		switch {
		case r < 0x20 || r == 0x7f:
			b = append(b, ' ')
		case r == utf8.RuneError && n == 1:
			b = utf8.AppendRune(b, utf8.RuneError)
		default:
			b = append(b, shown[:n]...)
		}
		shown = shown[n:]
	}
	if limit > 0 && len(frame) > limit {
		b = append(b, "…"...)
	}
	b = append(b, '\n')
	_, _ = t.W.Write(b)
	if cap(b) <= 2*DefaultTraceLimit {
		t.buf = b // reused for the next line, unless a large frame grew it
	}
}
