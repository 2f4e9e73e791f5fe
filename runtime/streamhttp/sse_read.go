package streamhttp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// errEventTooLarge reports an event (or one of its lines) longer than the
// client's MaxMessageBytes.
var errEventTooLarge = errors.New("streamhttp: server-sent event too large")

// parsedEvent is one event dispatched by an [sseParser]: a blank line ended
// it and it had at least one data field.
type parsedEvent struct {
	// Type is the event field ("" when absent, which means "message").
	Type string
	// Data is the data fields joined with "\n". It is the parser's buffer,
	// valid until the next call of Next.
	Data []byte
	// ID is the stream's last event id once this event was dispatched,
	// the parser's LastID, valid until the next call of Next.
	ID []byte
}

// sseParser reads server-sent events as the HTML standard defines them:
// lines end with CRLF, LF or CR; a leading byte order mark is skipped;
// lines starting with ':' are comments; a line is a field name, an optional
// ':' and a value whose one leading space is dropped; a blank line
// dispatches the event. Fields: event, data (joined with "\n"), id (kept
// across events; ignored when it holds NUL) and retry (ASCII digits, the
// reconnection delay in milliseconds). What follows the last blank line at
// the end of the stream is dropped, as the standard says.
//
// No event's data may exceed max bytes, nor a line max bytes and a field
// name: the parser never buffers more, whatever the server sends.
type sseParser struct {
	r   *bufio.Reader
	src eofReader // what r reads
	max int

	started   bool // the first line was read (the BOM is checked on it)
	pendingCR bool // the last line ended with CR: a following LF belongs to it

	line []byte // the line being read

	data    []byte // the data buffer of the event being read
	hasData bool
	typ     string
	id      []byte // the id field of the event being read

	// LastID is the last event id, updated when an event is dispatched
	// (priming events with empty data included). Its buffer is reused:
	// like an event's data, it holds until the next call to Next.
	LastID []byte
	// Retry is the last reconnection delay the server set, and HasRetry
	// says whether it set one.
	Retry    time.Duration
	HasRetry bool
}

// newSSEParser returns a parser reading r, bounding lines and event data to
// max bytes.
func newSSEParser(r io.Reader, max int) *sseParser {
	p := &sseParser{src: eofReader{r: r}, max: max}
	p.r = bufio.NewReaderSize(&p.src, 4096)
	return p
}

// parsers keeps idle parsers, their buffers with them, for the next
// event stream: a POST answered with one costs no parser.
var parsers sync.Pool

// maxPooledBytes bounds the line and data buffers of a parser put back in
// parsers: one that grew past it for a large event is dropped.
const maxPooledBytes = 64 << 10

// getSSEParser is newSSEParser, reusing an idle parser when there is one.
// putSSEParser gives it back once its events are no longer used.
func getSSEParser(r io.Reader, max int) *sseParser {
	p, ok := parsers.Get().(*sseParser)
	if !ok {
		return newSSEParser(r, max)
	}
	p.src = eofReader{r: r}
	p.max = max
	p.r.Reset(&p.src)
	return p
}

// putSSEParser puts p back in parsers, forgetting its stream.
func putSSEParser(p *sseParser) {
	if cap(p.line) > maxPooledBytes || cap(p.data) > maxPooledBytes {
		return
	}
	p.src = eofReader{}
	p.r.Reset(&p.src)
	*p = sseParser{r: p.r, line: p.line[:0], data: p.data[:0], id: p.id[:0], LastID: p.LastID[:0]}
	parsers.Put(p)
}

// eofReader notes when its reader has returned io.EOF.
type eofReader struct {
	r   io.Reader
	eof bool
}

func (e *eofReader) Read(b []byte) (int, error) {
	n, err := e.r.Read(b)
	if err == io.EOF {
		e.eof = true
	}
	return n, err
}

// sawEOF reports whether the stream's end has been read (events may be
// left in the buffer).
func (p *sseParser) sawEOF() bool { return p.src.eof }

// Next returns the next event that carries data, whose Data is valid until
// the next call of Next. Events with an empty data
// buffer (no data field) only update LastID. At the end of the stream it
// returns io.EOF (or the reading error); an oversized line or event
// returns an error wrapping errEventTooLarge.
func (p *sseParser) Next() (parsedEvent, error) {
	for {
		line, err := p.readLine()
		if err != nil {
			return parsedEvent{}, err
		}
		if len(line) == 0 {
			if ev, ok := p.dispatch(); ok {
				return ev, nil
			}
			continue
		}
		if err := p.field(line); err != nil {
			return parsedEvent{}, err
		}
	}
}

// dispatch ends the event being read and reports it when it had data.
func (p *sseParser) dispatch() (parsedEvent, bool) {
	p.LastID = append(p.LastID[:0], p.id...)
	if !p.hasData {
		p.typ = ""
		return parsedEvent{}, false
	}
	data := p.data
	if n := len(data); n > 0 && data[n-1] == '\n' {
		data = data[:n-1]
	}
	ev := parsedEvent{Type: p.typ, Data: data, ID: p.LastID}
	p.data = p.data[:0] // the next event's data overwrites this one's
	p.hasData = false
	p.typ = ""
	return ev, true
}

// field processes one non-blank line.
func (p *sseParser) field(line []byte) error {
	if line[0] == ':' {
		return nil // comment
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "event":
		if string(value) == "message" {
			p.typ = "message" // the usual type, without allocating
		} else {
			p.typ = string(value)
		}
	case "data":
		if len(p.data)+len(value)+1 > p.max+1 {
			return fmt.Errorf("%w: data past %d bytes", errEventTooLarge, p.max)
		}
		p.data = append(p.data, value...)
		p.data = append(p.data, '\n')
		p.hasData = true
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			p.id = append(p.id[:0], value...)
		}
	case "retry":
		if ms, ok := parseDigits(value); ok {
			p.Retry = time.Duration(ms) * time.Millisecond
			p.HasRetry = true
		}
	}
	return nil
}

// lineSlack is what a line may hold besides max bytes of data: the field
// name, the colon and the space.
const lineSlack = 16

// maxRetryMillis caps a retry value: about 24 days, far past any delay a
// client would honour, and small enough not to overflow a Duration.
const maxRetryMillis = 1 << 31

// parseDigits parses a non-empty string of ASCII digits, capping the value
// at maxRetryMillis.
func parseDigits(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if n < maxRetryMillis {
			n = n*10 + int64(c-'0')
		}
	}
	return min(n, maxRetryMillis), true
}

// readLine returns the next line without its ending. A line cut off by the
// end of the stream is dropped and io.EOF returned.
func (p *sseParser) readLine() ([]byte, error) {
	p.line = p.line[:0]
	for {
		if _, err := p.r.Peek(1); err != nil {
			if err == io.EOF {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("streamhttp: reading events: %w", err)
		}
		buf, _ := p.r.Peek(p.r.Buffered())
		if p.pendingCR {
			p.pendingCR = false
			if buf[0] == '\n' {
				_, _ = p.r.Discard(1)
				continue
			}
		}
		i := bytes.IndexAny(buf, "\r\n")
		if i < 0 {
			i = len(buf)
		}
		if len(p.line)+i > p.max+lineSlack {
			return nil, fmt.Errorf("%w: a line past %d bytes", errEventTooLarge, p.max)
		}
		p.line = append(p.line, buf[:i]...)
		if i == len(buf) {
			_, _ = p.r.Discard(i)
			continue
		}
		p.pendingCR = buf[i] == '\r'
		_, _ = p.r.Discard(i + 1)
		if !p.started {
			p.started = true
			p.line = bytes.TrimPrefix(p.line, []byte("\uFEFF"))
		}
		return p.line, nil
	}
}
