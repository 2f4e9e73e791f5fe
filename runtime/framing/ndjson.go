package framing

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/rpcgen/rpcgen/runtime/internal/bigbuf"
)

// NDJSON is newline-delimited JSON: each message is one line.
//
// The reader accepts "\n" and "\r\n" line ends (the '\r' is stripped) and
// skips blank lines (empty or only spaces, tabs and '\r'). A final line
// without a newline at the end of the stream is returned as a message, and
// the next Read returns io.EOF, so an NDJSON reader never reports
// io.ErrUnexpectedEOF. A line longer than the limit is discarded and
// refused with a recoverable [*Error] wrapping [ErrTooLarge]. An error
// from the underlying reader is returned by every later Read.
//
// The writer replaces every '\n' and '\r' in a message with a space (in
// valid JSON they can only be insignificant whitespace) so the message
// fits on one line, and refuses a blank message, which the reader would
// skip.
var NDJSON Framing = ndjsonFraming{}

// ndName is the name of the NDJSON framing.
const ndName = "ndjson"

type ndjsonFraming struct{}

func (ndjsonFraming) Name() string { return ndName }

func (ndjsonFraming) NewReader(r io.Reader, limits Limits) Reader {
	return &ndReader{src: newSource(r), max: limits.withDefaults().MaxMessageSize}
}

func (ndjsonFraming) NewWriter(w io.Writer) Writer {
	return &ndWriter{w: w}
}

// ndReader reads newline-delimited messages.
type ndReader struct {
	src source
	max int
	// err is returned by every Read once set: io.EOF after the final
	// unterminated line, or a non-recoverable *Error.
	err error
	// free holds frames handed back by Recycle.
	free freeList
	// skip keeps the ends of the line being skipped as too long; nil
	// until a line is, so that a reader waiting for its next message
	// fits a smaller allocation (see TestIdleReaderSmall).
	skip *skippedLine
	// long is the length of the last line gathered, with its line end.
	long int
}

// skippedLine holds the ends of a line being skipped as too long, of
// which n bytes were seen.
type skippedLine struct {
	head, tail []byte
	n          int
}

// Recycle implements [Recycler].
func (r *ndReader) Recycle(frame []byte) { r.free.put(frame) }

// Read implements [Reader].
func (r *ndReader) Read() ([]byte, error) {
	for r.err == nil {
		r.src.reader()
		line, owned, tooLarge, err := r.readLine()
		if isBlank(line) || tooLarge || (err != nil && err != io.EOF) {
			r.src.release() // no line to copy out of its buffer
		}
		if err != nil && err != io.EOF {
			r.err = &Error{Framing: ndName, Reason: "reading line", Err: err}
			break
		}
		if err == io.EOF {
			r.err = io.EOF
		}
		if tooLarge {
			head, tail := r.skippedEnds()
			return nil, &Error{
				Framing:     ndName,
				Reason:      fmt.Sprintf("line exceeds limit of %d bytes", r.max),
				Recoverable: true,
				Err:         ErrTooLarge,
				Head:        head,
				Tail:        tail,
			}
		}
		if isBlank(line) {
			continue
		}
		if owned {
			r.src.release()
			return line, nil
		}
		out := r.frame(len(line))
		copy(out, line)
		r.src.release()
		return out, nil
	}
	return nil, r.err
}

// ReadBusy implements [Waiter].
func (r *ndReader) ReadBusy() ([]byte, error) {
	if r.err == nil && !r.src.ready() {
		return nil, ErrStillIdle
	}
	return r.Read()
}

// Wait implements [Waiter].
func (r *ndReader) Wait() {
	if r.err == nil {
		r.src.wait()
	}
}

// readLine reads the next line, from the source's buffered reader, and
// strips its "\n" or "\r\n". A line that fits in that reader's buffer is returned in place (valid until the next read);
// a longer one is gathered in a pooled buffer, then copied to a frame of
// its length, which is owned (and owned reports true). Once a line is
// known to exceed the limit, the rest of it is discarded and tooLarge
// reports true. err is nil, io.EOF (the stream ended; line holds any
// final unterminated line) or an I/O error.
func (r *ndReader) readLine() (line []byte, owned, tooLarge bool, err error) {
	var acc []byte // once the line outgrows br's buffer, what is gathered
	r.skip = nil
	br := r.src.br
	for {
		var frag []byte
		frag, err = br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// frag has no '\n', so all of it but a final '\r' is content.
			switch {
			case tooLarge:
				r.keepTail(frag)
			case len(acc)+len(frag) > r.max+1:
				r.keepEnds(acc, frag)
				bigbuf.Put(acc)
				acc, tooLarge = nil, true
			default:
				acc = r.gather(acc, frag)
			}
			continue
		}
		if tooLarge {
			r.keepTail(bytes.TrimSuffix(frag, []byte{'\n'}))
			r.dropCR()
			return nil, false, true, err
		}
		if acc != nil {
			if len(acc)+len(frag) > r.max+2 {
				r.keepEnds(acc, bytes.TrimSuffix(frag, []byte{'\n'}))
				r.dropCR()
				bigbuf.Put(acc)
				return nil, false, true, err
			}
			acc = r.gather(acc, frag)
			frag = trimLineEnd(acc)
			if len(frag) > r.max {
				r.keepEnds(frag, nil)
				bigbuf.Put(acc)
				return nil, false, true, err
			}
			r.long = len(acc)
			line = r.frame(len(frag))
			copy(line, frag)
			bigbuf.Put(acc)
			return line, true, false, err
		}
		frag = trimLineEnd(frag)
		if len(frag) > r.max {
			r.keepEnds(frag, nil)
			return nil, false, true, err
		}
		return frag, false, false, err
	}
}

// gather appends frag to acc, the part of a long line read so far, in a
// pooled buffer at least twice as large when acc is full: what a line
// takes grows with what has arrived of it. The outgrown buffer is pooled.
// The first buffer is as large as the last long line when one is pooled:
// the next line probably has a similar size.
func (r *ndReader) gather(acc, frag []byte) []byte {
	need := len(acc) + len(frag)
	if need <= cap(acc) {
		return append(acc, frag...)
	}
	if acc == nil && r.long > need {
		if b := bigbuf.Get(r.long); b != nil {
			return append(b[:0], frag...)
		}
	}
	size := max(need, min(max(2*cap(acc), initialBodySize), r.max+2))
	grown := bigbuf.Make(size)[:len(acc)]
	copy(grown, acc)
	bigbuf.Put(acc)
	return append(grown, frag...)
}

// frame returns a frame of n bytes for a message: handed back, pooled or
// new.
func (r *ndReader) frame(n int) []byte {
	if b := r.free.Get(n); b != nil {
		return b
	}
	if n > maxFreeFrame {
		return bigbuf.Make(n)
	}
	return make([]byte, n)
}

// tailWindow is how many of the last bytes of a skipped line are kept:
// one more than GlimpseSize, for a '\r' that turns out to end the line.
const tailWindow = GlimpseSize + 1

// keepEnds keeps the first GlimpseSize bytes and the last tailWindow
// bytes of a, then b: the start of a line found too long.
func (r *ndReader) keepEnds(a, b []byte) {
	n := min(len(a)+len(b), GlimpseSize)
	r.skip = &skippedLine{
		head: append(append(make([]byte, 0, n), a[:min(len(a), n)]...), b[:n-min(len(a), n)]...),
		tail: make([]byte, 0, tailWindow),
	}
	r.keepTail(a)
	r.keepTail(b)
}

// keepTail adds b, more of the line being skipped, to its kept end.
func (r *ndReader) keepTail(b []byte) {
	s := r.skip
	s.n += len(b)
	if len(b) >= tailWindow {
		s.tail = append(s.tail[:0], b[len(b)-tailWindow:]...)
		return
	}
	if drop := len(s.tail) + len(b) - tailWindow; drop > 0 {
		s.tail = s.tail[:copy(s.tail, s.tail[drop:])]
	}
	s.tail = append(s.tail, b...)
}

// dropCR takes a '\r' ending the skipped line off its kept end, as
// trimLineEnd does for a whole line.
func (r *ndReader) dropCR() {
	s := r.skip
	if n := len(s.tail); n > 0 && s.tail[n-1] == '\r' {
		s.tail = s.tail[:n-1]
		s.n--
	}
}

// skippedEnds returns the Head and Tail of the line just skipped: the
// tail holds at most GlimpseSize bytes, none of them in the head.
func (r *ndReader) skippedEnds() (head, tail []byte) {
	s := r.skip
	return s.head, s.tail[len(s.tail)-min(len(s.tail), GlimpseSize, s.n-len(s.head)):]
}

// trimLineEnd strips a trailing "\n", then a trailing '\r'.
func trimLineEnd(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// isBlank reports whether b holds only JSON whitespace: spaces, tabs,
// '\r' and '\n'.
func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// ndWriter writes newline-delimited messages.
type ndWriter struct {
	w   io.Writer
	buf []byte
}

// Write implements [Writer].
func (w *ndWriter) Write(msg []byte) error {
	if isBlank(msg) {
		return fmt.Errorf("%s framing: refusing to write a blank message", ndName)
	}
	if bw, ok := w.w.(buffered); ok {
		if err := writeLine(bw, msg); err != nil {
			return fmt.Errorf("%s framing: writing %d-byte message: %w", ndName, len(msg), err)
		}
		return nil
	}
	buf := append(w.buf[:0], msg...)
	replaceByte(buf, '\n', ' ')
	replaceByte(buf, '\r', ' ')
	buf = append(buf, '\n')
	err := writeAll(w.w, buf)
	if cap(buf) <= maxRetainedWriteBuffer {
		w.buf = buf
	} else {
		w.buf = nil
	}
	if err != nil {
		return fmt.Errorf("%s framing: writing %d-byte message: %w", ndName, len(msg), err)
	}
	return nil
}

// WriteInPlace implements [InPlaceWriter]: line breaks in msg become
// spaces and the newline goes after it.
func (w *ndWriter) WriteInPlace(msg []byte) (bool, error) {
	if cap(msg) == len(msg) {
		return false, nil
	}
	if isBlank(msg) {
		return true, fmt.Errorf("%s framing: refusing to write a blank message", ndName)
	}
	replaceByte(msg, '\n', ' ')
	replaceByte(msg, '\r', ' ')
	if err := writeAll(w.w, append(msg, '\n')); err != nil {
		return true, fmt.Errorf("%s framing: writing %d-byte message: %w", ndName, len(msg), err)
	}
	return true, nil
}

// space and newline are written by writeLine.
var space, newline = []byte{' '}, []byte{'\n'}

// writeLine writes msg with every '\n' and '\r' replaced by a space, then
// a newline, to a buffered writer, without copying msg. It looks for
// each of the two bytes with the vectorized bytes.IndexByte, which a
// message of megabytes with neither passes in one go.
func writeLine(w io.Writer, msg []byte) error {
	nl, cr := indexFrom(msg, 0, '\n'), indexFrom(msg, 0, '\r')
	off := 0
	for nl >= 0 || cr >= 0 {
		i := nl
		if i < 0 || (cr >= 0 && cr < i) {
			i = cr
		}
		if _, err := w.Write(msg[off:i]); err != nil {
			return err
		}
		if _, err := w.Write(space); err != nil {
			return err
		}
		off = i + 1
		if nl >= 0 && nl < off {
			nl = indexFrom(msg, off, '\n')
		}
		if cr >= 0 && cr < off {
			cr = indexFrom(msg, off, '\r')
		}
	}
	if _, err := w.Write(msg[off:]); err != nil {
		return err
	}
	_, err := w.Write(newline)
	return err
}

// indexFrom returns the index in b of the first c at or after off, or -1.
func indexFrom(b []byte, off int, c byte) int {
	if i := bytes.IndexByte(b[off:], c); i >= 0 {
		return off + i
	}
	return -1
}

// replaceByte replaces every from byte in b with to, using the vectorized
// bytes.IndexByte to skip ahead.
func replaceByte(b []byte, from, to byte) {
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], from)
		if j < 0 {
			return
		}
		b[i+j] = to
		i += j + 1
	}
}
