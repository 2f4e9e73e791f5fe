package streamhttp

import (
	"bytes"
	"fmt"
	"testing"
)

// TestStreamEventsCarved: a stream's events and their data come out of
// chunks, so that a long run of small events (progress notifications)
// costs far less than the two allocations per event it cost (2,000 and
// more for these 1,000), and each event still holds exactly its message,
// which appending to another event's data does not reach.
func TestStreamEventsCarved(t *testing.T) {
	h := NewHandler(testProto, nil, ServerOptions{})
	defer h.Close()
	const events = 1000
	msgs := make([][]byte, events)
	for i := range msgs {
		msgs[i] = fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":%d,"total":1000}}`, i)
	}
	run := func() *stream {
		s := newSession(h, "s1")
		st := &stream{id: 1, next: 1, wake: make(chan struct{}, 1)}
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, m := range msgs {
			s.appendEvent(st, m)
		}
		return st
	}
	st := run()
	if len(st.events) != events {
		t.Fatalf("%d events stored, want %d", len(st.events), events)
	}
	for i, e := range st.events {
		if e.seq != uint64(i+1) || !bytes.Equal(e.data, msgs[i]) {
			t.Fatalf("event %d: seq %d, data %q, want seq %d, %q", i, e.seq, e.data, i+1, msgs[i])
		}
		_ = append(e.data, "XXXX"...) // must not reach the next event's data
	}
	for i, e := range st.events {
		if !bytes.Equal(e.data, msgs[i]) {
			t.Fatalf("event %d holds %q after appending to the one before, want %q", i, e.data, msgs[i])
		}
	}
	session := testing.AllocsPerRun(10, func() { newSession(h, "s1") })
	n := testing.AllocsPerRun(10, func() { run() }) - session
	t.Logf("%d events: %v allocations", events, n)
	// The slices of events (the stream's and the session's) grow by
	// doubling: about 25 allocations; the chunks about 60 (88 in all
	// measured).
	if n > events/8 {
		t.Errorf("%d events: %v allocations, want at most %d", events, n, events/8)
	}
}
