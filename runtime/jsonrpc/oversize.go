package jsonrpc

import (
	"errors"
	"fmt"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// A message over the size limit is skipped unread; the framing reader
// keeps its first and last bytes (framing.Error's Head and Tail). They
// usually show what the message was and its id: writers put "jsonrpc",
// "id" and "method" or "result" first, or the id last, after a large
// result. With the id, an oversized request is refused to its sender
// (whose call would otherwise wait for ever), and the call waiting for an
// oversized response fails at once.

// glimpse is what the ends of a skipped message tell.
type glimpse struct {
	request  bool   // a "method" member came first
	response bool   // a "result" or "error" member came first
	id       []byte // the id's JSON text, if seen
}

// skippedTooLarge handles a message the reader refused as too large.
func (c *Conn) skippedTooLarge(fe *framing.Error) {
	g := glimpseOf(fe.Head, fe.Tail)
	switch {
	case g.response:
		// Never answered, like any response we cannot take.
		c.warn("jsonrpc: skipped an oversized response", "id", Truncate(string(g.id)), "reason", Truncate(fe.Error()))
		if p := c.takePending(g.id); p != nil {
			p.ch <- callResult{err: fmt.Errorf("response refused: %w", fe)}
		}
	case g.request && g.id != nil:
		c.warn("jsonrpc: refused an oversized request", "id", Truncate(string(g.id)), "reason", Truncate(fe.Error()))
		c.replyFromReader(c.errorResponse(idOf(g.id), invalidRequest(fe.Error())))
	default:
		c.warn("jsonrpc: skipped a bad frame", "reason", Truncate(fe.Error()))
		c.replyFromReader(c.errorResponse(NullID, invalidRequest(fe.Error())))
	}
}

// isTooLarge reports whether fe is a refusal of an oversized message.
func isTooLarge(fe *framing.Error) bool { return errors.Is(fe.Err, framing.ErrTooLarge) }

// glimpseOf reads the top-level members at the start of a message (head)
// up to the first one cut off, and, when the id is not among them, the
// member closing the message (tail), if it is the id.
func glimpseOf(head, tail []byte) glimpse {
	var g glimpse
	s := scanner{b: head}
	s.space()
	if !s.byte('{') {
		return g
	}
	for first := true; ; first = false {
		s.space()
		if !first && !s.byte(',') {
			break
		}
		s.space()
		key, ok := s.plainString()
		s.space()
		if !ok || !s.byte(':') {
			break
		}
		s.space()
		switch key {
		case "method":
			g.request = !g.response
		case "result", "error":
			g.response = !g.request
		}
		start := s.i
		if !s.value() {
			break
		}
		if key == "id" {
			if id := head[start:s.i]; validID(id) {
				g.id = id
			}
		}
	}
	if g.id == nil {
		g.id = trailingID(tail)
	}
	return g
}

// trailingID returns the id's JSON text when tail, the end of a JSON
// object, ends with an "id" member holding a number or a string.
func trailingID(tail []byte) []byte {
	i := len(tail)
	back := func() {
		for i > 0 && isSpace(tail[i-1]) {
			i--
		}
	}
	back()
	if i == 0 || tail[i-1] != '}' {
		return nil
	}
	i--
	back()
	end := i
	switch {
	case i > 0 && tail[i-1] == '"':
		// Find the opening quote: one not escaped by an odd run of
		// backslashes.
		for i--; ; {
			j := i - 1
			for j >= 0 && tail[j] != '"' {
				j--
			}
			if j < 0 {
				return nil
			}
			k := j
			for k > 0 && tail[k-1] == '\\' {
				k--
			}
			i = j
			if (j-k)%2 == 0 {
				break
			}
		}
	default:
		for i > 0 && isNumberByte(tail[i-1]) {
			i--
		}
	}
	id := tail[i:end]
	if !validID(id) || string(id) == "null" {
		return nil
	}
	back()
	if i == 0 || tail[i-1] != ':' {
		return nil
	}
	i--
	back()
	const key = `"id"`
	if i < len(key) || string(tail[i-len(key):i]) != key {
		return nil
	}
	i -= len(key)
	back()
	if i == 0 || (tail[i-1] != ',' && tail[i-1] != '{') {
		return nil
	}
	return id
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// scanner walks a possibly cut-off JSON text; every method reports false
// when the text ends or does not match.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() { s.i = skipSpace(s.b, s.i) }

func (s *scanner) byte(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// plainString reads a string without escapes (as member names of the
// envelope are) and returns its contents.
func (s *scanner) plainString() (string, bool) {
	if !s.byte('"') {
		return "", false
	}
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			s.i++
			return string(s.b[start : s.i-1]), true
		case '\\':
			return "", false
		}
		s.i++
	}
	return "", false
}

// value skips one complete value, reporting false if it is cut off. A
// value reaching the end of the text counts as cut off: head is followed
// by more of the message, so a complete member ends before it.
func (s *scanner) value() bool {
	end := skipValue(s.b, s.i)
	if end == s.i || end >= len(s.b) {
		return false
	}
	s.i = end
	return true
}
