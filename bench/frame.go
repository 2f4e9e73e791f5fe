package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// The two baselines share this minimal framing, written for them alone so
// that they depend on neither rpcgen's runtime nor a peer library.

// maxFrame bounds the size of a message the baselines accept: room for the
// 1 MiB echo, escaped.
const maxFrame = 8 << 20

// frameWriter frames messages and writes each with one Write call. It is
// safe for concurrent use.
type frameWriter struct {
	mu   sync.Mutex
	w    io.Writer
	f    framingKind
	buf  []byte
	body []byte
}

// write frames msg and writes it.
func (fw *frameWriter) write(msg []byte) error {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	return fw.writeLocked(msg)
}

// writeBuilt frames and writes the message build appends to an empty buffer.
func (fw *frameWriter) writeBuilt(build func(buf []byte) []byte) error {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	fw.body = build(fw.body[:0])
	return fw.writeLocked(fw.body)
}

// writeLocked frames msg and writes it; fw.mu is held.
func (fw *frameWriter) writeLocked(msg []byte) error {
	fw.buf = fw.buf[:0]
	if fw.f == contentLength {
		fw.buf = append(fw.buf, "Content-Length: "...)
		fw.buf = strconv.AppendInt(fw.buf, int64(len(msg)), 10)
		fw.buf = append(fw.buf, "\r\n\r\n"...)
		fw.buf = append(fw.buf, msg...)
	} else {
		fw.buf = append(fw.buf, msg...)
		fw.buf = append(fw.buf, '\n')
	}
	if _, err := fw.w.Write(fw.buf); err != nil {
		return fmt.Errorf("write frame: %w", err)
	}
	return nil
}

// frameReader reads framed messages. It is not safe for concurrent use.
type frameReader struct {
	r   *bufio.Reader
	f   framingKind
	buf []byte
}

// newFrameReader returns a reader of messages framed by f from r.
func newFrameReader(r io.Reader, f framingKind) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, 4096), f: f}
}

// read returns the next message. The slice is valid until the next call.
func (fr *frameReader) read() ([]byte, error) {
	if fr.f == ndjson {
		return fr.readLine()
	}
	length := -1
	for {
		line, err := fr.r.ReadSlice('\n')
		if err != nil {
			return nil, fmt.Errorf("read header: %w", err)
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return nil, fmt.Errorf("header line %q has no colon", line)
		}
		if string(name) == "Content-Length" {
			n, err := strconv.Atoi(string(bytes.TrimSpace(value)))
			if err != nil || n < 0 || n > maxFrame {
				return nil, fmt.Errorf("bad Content-Length %q", value)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, errors.New("no Content-Length header")
	}
	if cap(fr.buf) < length {
		fr.buf = make([]byte, length)
	}
	fr.buf = fr.buf[:length]
	if _, err := io.ReadFull(fr.r, fr.buf); err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	return fr.buf, nil
}

// readLine returns the next non-empty line, without its line ending.
func (fr *frameReader) readLine() ([]byte, error) {
	for {
		line, err := fr.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			fr.buf = append(fr.buf[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				if len(fr.buf) > maxFrame {
					return nil, errors.New("line too long")
				}
				line, err = fr.r.ReadSlice('\n')
				fr.buf = append(fr.buf, line...)
			}
			line = fr.buf
		}
		if err != nil {
			return nil, fmt.Errorf("read line: %w", err)
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > 0 {
			return line, nil
		}
	}
}

// pending matches responses to the callers waiting for them.
type pending[T any] struct {
	mu      sync.Mutex
	next    int64
	waiting map[int64]chan T
	err     error
}

// add reserves a new id and the channel its response will arrive on.
func (p *pending[T]) add() (int64, chan T, error) {
	ch := make(chan T, 1)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return 0, nil, p.err
	}
	if p.waiting == nil {
		p.waiting = make(map[int64]chan T)
	}
	p.next++
	p.waiting[p.next] = ch
	return p.next, ch, nil
}

// remove forgets id, whose call failed to be sent.
func (p *pending[T]) remove(id int64) {
	p.mu.Lock()
	delete(p.waiting, id)
	p.mu.Unlock()
}

// deliver hands v to the caller waiting for id, if any.
func (p *pending[T]) deliver(id int64, v T) bool {
	p.mu.Lock()
	ch, ok := p.waiting[id]
	delete(p.waiting, id)
	p.mu.Unlock()
	if ok {
		ch <- v
	}
	return ok
}

// fail closes the channel of every waiting caller and refuses new calls.
func (p *pending[T]) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.err = err
	for id, ch := range p.waiting {
		close(ch)
		delete(p.waiting, id)
	}
}

// errConnClosed fails the calls of a baseline whose connection ended.
var errConnClosed = errors.New("connection closed")
