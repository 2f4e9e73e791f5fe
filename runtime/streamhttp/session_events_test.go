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

// TestStreamChunksGoWithEvents: a stream whose events are all released
// or evicted keeps no chunk, so that a long-lived stream (the GET stream)
// holds no memory for events it no longer has.
func TestStreamChunksGoWithEvents(t *testing.T) {
	h := NewHandler(testProto, nil, ServerOptions{MaxEventBytes: 1 << 10})
	defer h.Close()
	s := newSession(h, "s1")
	msg := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
	s.mu.Lock()
	defer s.mu.Unlock()

	released := &stream{id: 1, next: 1, wake: make(chan struct{}, 1)}
	s.appendEvent(released, msg)
	if cap(released.carve.data) == 0 || len(released.carve.events) == 0 {
		t.Fatal("a stream with an event has no chunk left to carve from; the test needs one")
	}
	s.release(released)
	if holdsChunk(&released.carve) {
		t.Errorf("released stream keeps %d spare events and %d spare bytes, want none", len(released.carve.events), cap(released.carve.data))
	}

	evicted := &stream{id: 2, next: 1, wake: make(chan struct{}, 1)}
	other := &stream{id: 3, next: 1, wake: make(chan struct{}, 1)}
	s.appendEvent(evicted, msg)
	for range 1 << 10 / len(msg) * 2 {
		s.appendEvent(other, msg) // evicts evicted's event, then other's oldest
	}
	if len(evicted.events) != 0 || evicted.evicted != 1 {
		t.Fatalf("stream 2 holds %d events, evicted up to %d; want none, evicted up to 1", len(evicted.events), evicted.evicted)
	}
	if holdsChunk(&evicted.carve) {
		t.Errorf("stream whose events were evicted keeps %d spare events and %d spare bytes, want none", len(evicted.carve.events), cap(evicted.carve.data))
	}
	if len(other.events) == 0 || !holdsChunk(&other.carve) {
		t.Errorf("stream 3 holds %d events and no chunk, want its newest events and a chunk", len(other.events))
	}
}

// holdsChunk reports whether c keeps any chunk's memory.
func holdsChunk(c *eventChunks) bool { return cap(c.events) > 0 || cap(c.data) > 0 }
