package transport

import (
	"errors"
	"io"
	"os"
	"sync"
)

// Stdio returns the current process's standard streams as one
// [io.ReadWriteCloser]: Read reads [os.Stdin] and Write writes
// [os.Stdout]. It is the transport of the extension, plugin or agent side
// of a stdio protocol, whose host started this process with [Spawn] or an
// equivalent.
//
// Close closes both streams; it is safe to call more than once and every
// call returns the result of the first. Nothing else in the process may
// write to os.Stdout while the stream is in use, or the peer will read
// garbage; log to os.Stderr instead.
//
// When stdin is a pipe or a socket (the usual case for a spawned
// extension, plugin or agent), Stdio reads it through a duplicate
// descriptor in non-blocking mode, managed by Go's poller, so Close
// interrupts a Read in progress: a peer can end its side while the host
// keeps the pipe open. A terminal is left alone (non-blocking mode would
// leak into the shell sharing it), and there a Read blocked on input
// returns only when input arrives. Once Stdio has been called, read
// standard input only through it: the descriptor's non-blocking mode is
// shared with os.Stdin, whose own reads would fail with EAGAIN.
func Stdio() io.ReadWriteCloser {
	if in := pollableStdin(); in != nil {
		return newStdio(in, os.Stdout)
	}
	return newStdio(os.Stdin, os.Stdout)
}

// newStdio joins a reader and a writer into one stream whose Close closes
// both exactly once.
func newStdio(in io.ReadCloser, out io.WriteCloser) io.ReadWriteCloser {
	return &stdio{in: in, out: out}
}

type stdio struct {
	in  io.ReadCloser
	out io.WriteCloser

	closeOnce sync.Once
	closeErr  error
}

func (s *stdio) Read(b []byte) (int, error)  { return s.in.Read(b) }
func (s *stdio) Write(b []byte) (int, error) { return s.out.Write(b) }

// Close closes the input and then the output. Later calls return the
// first call's result.
func (s *stdio) Close() error {
	s.closeOnce.Do(func() {
		s.closeErr = errors.Join(s.in.Close(), s.out.Close())
		if s.closeErr != nil {
			s.closeErr = wrapf(s.closeErr, "close stdio")
		}
	})
	return s.closeErr
}
