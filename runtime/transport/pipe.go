package transport

import "io"

// Pipe returns two connected in-memory endpoints: bytes written to a are
// read from b, and bytes written to b are read from a. It is meant for
// tests, where it replaces a socket or a subprocess.
//
// Each direction is an [io.Pipe], so the endpoints are synchronous and
// unbuffered: a Write blocks until the peer has read all of it (possibly
// across several Reads) or one of the endpoints is closed. Both
// directions are independent, so a writer does not wait for the peer to
// read in the other direction, but a test that writes without a
// concurrent reader on the other side deadlocks.
//
// Close on one endpoint makes the peer's Reads return [io.EOF] and both
// endpoints' later Writes fail with [io.ErrClosedPipe]; Reads on the
// closed endpoint itself also fail with io.ErrClosedPipe. Close is safe to
// call more than once. Reads and Writes are safe to call concurrently with
// each other and with Close.
func Pipe() (a, b io.ReadWriteCloser) {
	aReads, bWrites := io.Pipe()
	bReads, aWrites := io.Pipe()
	return &pipeEnd{r: aReads, w: aWrites}, &pipeEnd{r: bReads, w: bWrites}
}

// pipeEnd is one endpoint of [Pipe]: it reads one io.Pipe and writes the
// other.
type pipeEnd struct {
	r *io.PipeReader
	w *io.PipeWriter
}

func (p *pipeEnd) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p *pipeEnd) Write(b []byte) (int, error) { return p.w.Write(b) }

// Close ends both directions. Closing the writer gives the peer's Reads
// io.EOF; closing the reader makes the peer's Writes fail. Both closes are
// idempotent and never fail.
func (p *pipeEnd) Close() error {
	_ = p.w.Close()
	_ = p.r.Close()
	return nil
}
