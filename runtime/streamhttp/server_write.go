package streamhttp

import (
	"net/http"
	"strconv"
	"time"

	"github.com/rpcgen/rpcgen/runtime/internal/timerpool"
)

// How a POST's response is written once it has chosen its kind, and the
// timers its waits reuse.

// The header values of the two kinds of answers, shared by every
// response: each slice is full, so that adding a value copies it.
var (
	eventStreamType = []string{"text/event-stream"}[:1:1]
	noCache         = []string{"no-cache, no-transform"}[:1:1]
	noBuffering     = []string{"no"}[:1:1]
	jsonType        = []string{"application/json"}[:1:1]
)

// streamHeaders sends the headers of an event stream.
func streamHeaders(w http.ResponseWriter) {
	hdr := w.Header()
	hdr["Content-Type"] = eventStreamType
	hdr["Cache-Control"] = noCache
	hdr["X-Accel-Buffering"] = noBuffering
	w.WriteHeader(http.StatusOK)
}

// writeJSONAnswer answers with msg as one application/json body.
func writeJSONAnswer(w http.ResponseWriter, msg []byte) {
	hdr := w.Header()
	hdr["Content-Type"] = jsonType
	if len(msg) > 2048 {
		// Past what net/http measures itself: announced, it needs no
		// chunked encoding, and the client reads it in one piece.
		hdr["Content-Length"] = []string{strconv.Itoa(len(msg))}
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(msg)
}

// resetTimer returns t, or a pooled or new timer, set to fire after d.
// t must be stopped or have fired and been received from.
func resetTimer(t *time.Timer, d time.Duration) *time.Timer {
	if t == nil {
		return timerpool.Get(d)
	}
	t.Reset(d)
	return t
}

// putTimer stops t and keeps it for another wait.
func putTimer(t *time.Timer) { timerpool.Put(t) }
