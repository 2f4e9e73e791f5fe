package streamhttp

import (
	"bytes"
	"errors"
	"slices"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// What a Session reads of the messages its connection writes, and how it
// turns stored ones into events.

// outMessage is what routing needs to know of a message the server sends:
// its id (zero when absent or null) and whether it has a method.
type outMessage struct {
	ID     jsonrpc.ID
	Method bool
}

// errNotMessage reports a message that is not an object, or whose id or
// method has the wrong type.
var errNotMessage = errors.New("streamhttp: id or method of the wrong type")

// readOutMessage reads msg's id and method as encoding/json would decode
// them into pointers (names matched without regard to case, the last of
// duplicates winning, null as absent). msg must be valid JSON other than
// a batch; null has neither, and what is not an object is an error.
func readOutMessage(msg []byte) (outMessage, error) {
	var m outMessage
	if msg[0] != '{' {
		if msg[0] == 'n' {
			return m, nil
		}
		return m, errNotMessage
	}
	err := jsonscan.DecodeObject(msg, func(key, value []byte) error {
		switch {
		case bytes.EqualFold(key, []byte("id")):
			m.ID = jsonrpc.ID{}
			if value[0] == 'n' {
				return nil
			}
			return m.ID.UnmarshalJSON(value)
		case bytes.EqualFold(key, []byte("method")):
			switch value[0] {
			case 'n':
				m.Method = false
			case '"':
				m.Method = true
			default:
				return errNotMessage
			}
		}
		return nil
	})
	return m, err
}

// appendEventsAfter appends to *b, as SSE events, st's stored events
// after seq up to upTo, and returns the sequence number of the last one
// (seq when there is none); it returns false when some of them have been
// evicted. s.mu is held.
func (s *Session) appendEventsAfter(b *[]byte, st *stream, seq, upTo uint64) (uint64, bool) {
	if seq < st.evicted {
		return seq, false
	}
	i := len(st.events)
	for i > 0 && st.events[i-1].seq > seq {
		i--
	}
	need := 0
	for _, e := range st.events[i:] {
		need += len(e.data) + 64 // the data and the event's fields
	}
	*b = slices.Grow(*b, need)
	last := seq
	for _, e := range st.events[i:] {
		if e.seq > upTo {
			break
		}
		*b = appendEvent(*b, st.id, e.seq, e.data)
		last = e.seq
	}
	return last, true
}
