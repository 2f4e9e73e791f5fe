package framing

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime/internal/bigbuf"
)

// ContentLength is the LSP-style framing: each message is preceded by a
// header section such as "Content-Length: N\r\n\r\n" and followed by
// exactly N bytes of body (no trailing newline).
//
// The reader matches header names case-insensitively, ignores headers
// other than Content-Length (such as Content-Type), allows spaces and
// tabs around header values, and accepts a bare "\n" as well as "\r\n" as
// a header line end, since many peers are sloppy about it. The header
// section must be ASCII and must contain a Content-Length header; a
// repeated Content-Length header is accepted only if its values agree.
// A blank line ends the header section, so stray blank lines between
// messages are an error (a missing Content-Length), not skipped. After a
// non-recoverable error every later Read returns the same error.
// Writers always emit "\r\n".
var ContentLength Framing = contentLengthFraming{}

const (
	// clName is the name of the Content-Length framing.
	clName = "content-length"
	// readBufferSize is the size of the bufio.Reader behind every reader.
	readBufferSize = 4096
	// initialBodySize caps the first allocation for a body: larger bodies
	// grow as their bytes arrive, so an announced length is never
	// allocated before it is received.
	initialBodySize = 64 << 10
	// bodyGrowth is how many times the bytes of a body that have arrived
	// a reader allocates for it, up to its announced length.
	bodyGrowth = 8
	// maxRetainedWriteBuffer is the largest write buffer a writer keeps
	// between messages; a larger one is dropped after use.
	maxRetainedWriteBuffer = 1 << 20
)

type contentLengthFraming struct{}

func (contentLengthFraming) Name() string { return clName }

func (contentLengthFraming) NewReader(r io.Reader, limits Limits) Reader {
	return &clReader{src: newSource(r), limits: limits.withDefaults()}
}

func (contentLengthFraming) NewWriter(w io.Writer) Writer {
	return &clWriter{w: w}
}

// clReader reads Content-Length framed messages.
type clReader struct {
	src source
	// br is src's buffered reader while Read runs.
	br     *bufio.Reader
	limits Limits
	// line accumulates a header line longer than br's buffer.
	line []byte
	// err is the sticky error returned once the stream is out of sync.
	err error
	// free holds frames handed back by Recycle.
	free freeList
}

// Recycle implements [Recycler].
func (r *clReader) Recycle(frame []byte) { r.free.put(frame) }

// fail records a non-recoverable error and returns it.
func (r *clReader) fail(reason string, err error) error {
	r.err = &Error{Framing: clName, Reason: reason, Err: err}
	return r.err
}

// Read implements [Reader].
func (r *clReader) Read() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	r.br = r.src.reader()
	msg, err := r.read()
	r.br = nil
	r.src.release()
	return msg, err
}

// ReadBusy implements [Waiter].
func (r *clReader) ReadBusy() ([]byte, error) {
	if r.err == nil && !r.src.ready() {
		return nil, ErrStillIdle
	}
	return r.Read()
}

// Wait implements [Waiter].
func (r *clReader) Wait() {
	if r.err == nil {
		r.src.wait()
	}
}

// read reads one message through r.br.
func (r *clReader) read() ([]byte, error) {
	length, err := r.readHeader()
	if err != nil {
		return nil, err
	}
	if length > int64(r.limits.MaxMessageSize) {
		return nil, r.discard(length)
	}
	return r.readBody(int(length))
}

// readHeader consumes the header section and returns the announced body
// length. It returns io.EOF if the stream ends before any header byte.
func (r *clReader) readHeader() (int64, error) {
	length := int64(-1)
	size := 0 // bytes of header section consumed so far
	for {
		line, err := r.readLine(&size)
		if err != nil {
			return 0, err
		}
		// Accept "\r\n" and, leniently, a bare "\n".
		line = line[:len(line)-1]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if len(line) == 0 {
			if length < 0 {
				return 0, r.fail("missing Content-Length header", nil)
			}
			return length, nil
		}
		colon := -1
		for i, c := range line {
			if c >= 0x80 {
				return 0, r.fail("non-ASCII byte in header section", nil)
			}
			if c == ':' && colon < 0 {
				colon = i
			}
		}
		if colon < 0 {
			return 0, r.fail(fmt.Sprintf("header line without colon: %q", line), nil)
		}
		name := trimSpace(line[:colon])
		if len(name) == 0 {
			return 0, r.fail("header line with empty name", nil)
		}
		if !equalFoldASCII(name, "content-length") {
			continue
		}
		n, reason := parseLength(trimSpace(line[colon+1:]))
		if reason != "" {
			return 0, r.fail(reason, nil)
		}
		if length >= 0 && n != length {
			return 0, r.fail(fmt.Sprintf("conflicting Content-Length headers: %d and %d", length, n), nil)
		}
		length = n
	}
}

// readLine returns the next header line including its final '\n'. It adds
// the line's length to *size and fails once *size exceeds the limit. The
// line is valid until the next call.
func (r *clReader) readLine(size *int) ([]byte, error) {
	r.line = r.line[:0]
	long := false
	for {
		frag, err := r.br.ReadSlice('\n')
		*size += len(frag)
		if *size > r.limits.MaxHeaderSize {
			return nil, r.fail(fmt.Sprintf("header section exceeds %d bytes", r.limits.MaxHeaderSize), ErrTooLarge)
		}
		switch {
		case err == nil:
			if long {
				return append(r.line, frag...), nil
			}
			return frag, nil
		case errors.Is(err, bufio.ErrBufferFull):
			r.line = append(r.line, frag...)
			long = true
		case err == io.EOF:
			if *size == 0 {
				return nil, io.EOF
			}
			return nil, r.fail("stream ended inside header section", io.ErrUnexpectedEOF)
		default:
			return nil, r.fail("reading header", err)
		}
	}
}

// discard skips an oversized body of length bytes through br's buffer,
// without allocating it.
func (r *clReader) discard(length int64) error {
	head := make([]byte, min(length, GlimpseSize))
	if _, err := io.ReadFull(r.br, head); err != nil {
		return r.bodyError("discarding oversized body", err)
	}
	tail := make([]byte, min(length-int64(len(head)), GlimpseSize))
	for remaining := length - int64(len(head)+len(tail)); remaining > 0; {
		chunk := int(min(remaining, math.MaxInt32))
		n, err := r.br.Discard(chunk)
		remaining -= int64(n)
		if err != nil {
			return r.bodyError("discarding oversized body", err)
		}
	}
	if _, err := io.ReadFull(r.br, tail); err != nil {
		return r.bodyError("discarding oversized body", err)
	}
	return &Error{
		Framing:     clName,
		Reason:      fmt.Sprintf("body of %d bytes exceeds limit of %d", length, r.limits.MaxMessageSize),
		Recoverable: true,
		Err:         ErrTooLarge,
		Head:        head,
		Tail:        tail,
	}
}

// readBody reads a body of n bytes. A frame handed back or pooled is
// read into when one is at hand. Otherwise it allocates at most
// initialBodySize up front and, as bytes arrive, grows the buffer to
// bodyGrowth times what has arrived (the outgrown buffers are pooled), so
// a peer that announces a large body and sends little costs little.
func (r *clReader) readBody(n int) ([]byte, error) {
	buf := r.free.Get(n)
	if buf == nil && n > maxFreeFrame {
		buf = bigbuf.Get(n)
	}
	if buf != nil {
		if _, err := io.ReadFull(r.br, buf); err != nil {
			return nil, r.bodyError("reading body", err)
		}
		return buf, nil
	}
	if n <= initialBodySize {
		buf = make([]byte, n)
	} else {
		buf = bigbuf.Make(initialBodySize)
	}
	off := 0
	for {
		m, err := io.ReadFull(r.br, buf[off:])
		off += m
		if err != nil {
			bigbuf.Put(buf)
			return nil, r.bodyError("reading body", err)
		}
		if off == n {
			return buf, nil
		}
		grown := bigbuf.Make(min(bodyGrowth*len(buf), n))
		copy(grown, buf)
		bigbuf.Put(buf)
		buf = grown
	}
}

// bodyError turns a read error inside a body into a sticky *Error, mapping
// io.EOF to io.ErrUnexpectedEOF.
func (r *clReader) bodyError(reason string, err error) error {
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return r.fail("stream ended inside body", io.ErrUnexpectedEOF)
	}
	return r.fail(reason, err)
}

// parseLength parses a Content-Length value: one or more ASCII digits
// fitting in an int64. On failure it returns a reason.
func parseLength(v []byte) (int64, string) {
	if len(v) == 0 {
		return 0, "empty Content-Length value"
	}
	if v[0] == '-' {
		return 0, fmt.Sprintf("negative Content-Length %q", v)
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, fmt.Sprintf("invalid Content-Length %q", v)
		}
		d := int64(c - '0')
		if n > (math.MaxInt64-d)/10 {
			return 0, fmt.Sprintf("Content-Length %q overflows int64", v)
		}
		n = n*10 + d
	}
	return n, ""
}

// trimSpace removes leading and trailing spaces and tabs.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// equalFoldASCII reports whether b equals lower, a lower-case ASCII
// string, ignoring ASCII case.
func equalFoldASCII(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// clWriter writes Content-Length framed messages.
type clWriter struct {
	w   io.Writer
	buf []byte
	hdr [48]byte // the header, when w is buffered
}

// Write implements [Writer].
func (w *clWriter) Write(msg []byte) error {
	if bw, ok := w.w.(buffered); ok {
		// No copy: the header and the body go into bw's buffer (a body
		// larger than it goes straight through).
		h := append(w.hdr[:0], "Content-Length: "...)
		h = strconv.AppendInt(h, int64(len(msg)), 10)
		h = append(h, "\r\n\r\n"...)
		if _, err := bw.Write(h); err != nil {
			return fmt.Errorf("%s framing: writing %d-byte message: %w", clName, len(msg), err)
		}
		if _, err := bw.Write(msg); err != nil {
			return fmt.Errorf("%s framing: writing %d-byte message: %w", clName, len(msg), err)
		}
		return nil
	}
	buf := append(w.buf[:0], "Content-Length: "...)
	buf = strconv.AppendInt(buf, int64(len(msg)), 10)
	buf = append(buf, "\r\n\r\n"...)
	buf = append(buf, msg...)
	err := writeAll(w.w, buf)
	if cap(buf) <= maxRetainedWriteBuffer {
		w.buf = buf
	} else {
		w.buf = nil
	}
	if err != nil {
		return fmt.Errorf("%s framing: writing %d-byte message: %w", clName, len(msg), err)
	}
	return nil
}

// WriteInPlace implements [InPlaceWriter]: the body moves up to make
// room for the header in front of it.
func (w *clWriter) WriteInPlace(msg []byte) (bool, error) {
	h := append(w.hdr[:0], "Content-Length: "...)
	h = strconv.AppendInt(h, int64(len(msg)), 10)
	h = append(h, "\r\n\r\n"...)
	if cap(msg)-len(msg) < len(h) {
		return false, nil
	}
	frame := msg[:len(h)+len(msg)]
	copy(frame[len(h):], msg) // overlapping: copy moves
	copy(frame, h)
	if err := writeAll(w.w, frame); err != nil {
		return true, fmt.Errorf("%s framing: writing %d-byte message: %w", clName, len(msg), err)
	}
	return true, nil
}

// buffered is a writer that buffers, such as a *bufio.Writer: writing a
// frame to it in pieces costs no more system calls than writing it
// whole, so a Writer writes the pieces instead of copying the frame.
type buffered interface {
	io.Writer
	Buffered() int
}

// writeAll writes buf with one Write call, reporting a short write.
func writeAll(w io.Writer, buf []byte) error {
	n, err := w.Write(buf)
	if err == nil && n < len(buf) {
		err = io.ErrShortWrite
	}
	return err
}
