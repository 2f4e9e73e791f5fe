package framing

import (
	"bufio"
	"errors"
	"io"
	"sync"
)

// readBuffers holds the buffers readers read messages through; a reader
// takes one when a message starts arriving.
var readBuffers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readBufferSize) }}

// firstRead is the size of the buffer a reader waits for its next message
// with: a reader holds no larger buffer between messages. It is sized so
// that a whole reader fits a 448-byte allocation (see
// TestIdleReaderSmall) while a short request still arrives in one read.
const firstRead = 288

// source is a reader's input. While a message is read it goes through a
// pooled bufio.Reader, given back between messages when nothing is left
// in it, so that a connection waiting for its next message holds only a
// small buffer.
type source struct {
	br *bufio.Reader // nil between messages
	// first.off is -1 while first holds the result of a read made by
	// ready or wait, not yet taken by reader (a flag of its own would
	// take the reader past its allocation's size class).
	first prefixed
}

// waited reports whether first holds a read not yet taken by reader.
func (s *source) waited() bool { return s.first.off < 0 }

func newSource(r io.Reader) source { return source{first: prefixed{r: r}} }

// reader returns the buffered reader for the next message, first waiting
// for its first bytes if none is held.
func (s *source) reader() *bufio.Reader {
	if s.br != nil {
		return s.br
	}
	p := &s.first
	if !s.waited() {
		var n int
		n, p.err = p.r.Read(p.buf[:])
		p.n = int32(n)
	}
	p.off = 0
	s.br = readBuffers.Get().(*bufio.Reader)
	s.br.Reset(p)
	return s.br
}

// ready reports whether a message (or an error) is there to read
// without waiting long: false only when, between messages with nothing
// held, the input implements [IdleInput] and its ReadIdle reports
// [ErrStillIdle]. A first read that brings bytes or an error is kept for
// reader.
func (s *source) ready() bool {
	if s.br != nil || s.waited() {
		return true
	}
	in, ok := s.first.r.(IdleInput)
	if !ok {
		return true
	}
	p := &s.first
	n, err := in.ReadIdle(p.buf[:])
	if errors.Is(err, ErrStillIdle) {
		if n == 0 {
			return false
		}
		err = nil
	}
	p.n, p.err, p.off = int32(n), err, -1
	return true
}

// wait waits, with a plain Read, for the first bytes of the next message
// (or an error) if none are held, and keeps them for reader. Its frame
// is small: a goroutine that starts in wait stays on its first stack.
func (s *source) wait() {
	if s.br == nil && !s.waited() {
		p := &s.first
		n, err := p.r.Read(p.buf[:])
		p.n, p.err, p.off = int32(n), err, -1
	}
}

// release gives the buffered reader back if nothing is left in it.
func (s *source) release() {
	if s.br != nil && s.br.Buffered() == 0 && s.first.off == s.first.n {
		s.br.Reset(nil)
		readBuffers.Put(s.br)
		s.br = nil
	}
}

// prefixed reads the bytes of a first read, then its error, then the
// rest of the stream.
type prefixed struct {
	r   io.Reader
	buf [firstRead]byte
	// off and n index buf (int32: see TestIdleReaderSmall).
	off, n int32
	err    error
}

func (p *prefixed) Read(b []byte) (int, error) {
	if p.off < p.n {
		n := copy(b, p.buf[p.off:p.n])
		p.off += int32(n)
		return n, nil
	}
	if err := p.err; err != nil {
		p.err = nil
		return 0, err
	}
	return p.r.Read(b)
}
