package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// DefaultGrace is how long [Process.Shutdown] waits, by default, for a
// child to exit after its stdin was closed before killing it.
const DefaultGrace = 5 * time.Second

// maxStderrLine is the longest stderr line forwarded as one log record;
// longer lines are split into records of this size.
const maxStderrLine = 64 << 10

// drainTimeout bounds how long reads of the child's stdout and stderr wait
// for more bytes once the child has been reaped. Whatever the child wrote
// before exiting is already in the pipe and is read at once; the timeout
// only matters when a grandchild inherited the pipe and keeps it open.
const drainTimeout = 100 * time.Millisecond

// SpawnOptions configures [Spawn]. The zero value is ready to use.
type SpawnOptions struct {
	// Logger receives each line the child writes to stderr (level Info,
	// with attributes "pid" and "stream"="stderr") and the child's
	// lifecycle events. Nil discards them.
	Logger *slog.Logger
	// Grace is how long Shutdown waits for the child to exit after
	// closing its stdin before killing it. Zero or negative means
	// DefaultGrace.
	Grace time.Duration
}

// Process is a running child process seen as a byte stream: Read reads
// the child's stdout and Write writes its stdin. It is the host side of a
// stdio protocol; the child typically uses [Stdio]. Create one with
// [Spawn] and always end it with Close, Shutdown or Kill, which release
// its file descriptors.
//
// Read and Write may be called concurrently with each other and with
// every other method. The methods of a nil or zero Process (the one a
// failed Spawn returns, say) do not panic: Read, Write, Close, Shutdown and
// Kill return an error saying the process was never started.
type Process struct {
	cmd    *exec.Cmd
	pid    int
	logger *slog.Logger
	grace  time.Duration

	stdin  *os.File // our end of the child's stdin
	stdout *os.File // our end of the child's stdout
	stderr *os.File // our end of the child's stderr

	stdoutEOF atomic.Bool // set once Read has returned io.EOF

	stderrDone chan struct{} // closed when forwardStderr returns
	done       chan struct{} // closed when the child has been reaped
	exitErr    error         // cmd.Wait's result; read only after done

	closeIOOnce sync.Once

	shutdownOnce sync.Once
	shutdownErr  error
}

// Spawn starts cmd with its stdin, stdout and stderr connected to the
// returned Process. cmd must be unstarted and must not have Stdin, Stdout
// or Stderr set. The rest of cmd (Path, Args, Env, Dir, SysProcAttr, ...)
// is used as given.
//
// The Process owns one goroutine that waits for the child to exit and one
// that forwards the child's stderr to opts.Logger; both end once the child
// has exited and been reaped (and Shutdown, Close and Kill wait for
// that).
func Spawn(cmd *exec.Cmd, opts SpawnOptions) (*Process, error) {
	if cmd == nil {
		return nil, errors.New("transport: spawn: nil command")
	}
	name := cmd.Path
	if cmd.Stdin != nil || cmd.Stdout != nil || cmd.Stderr != nil {
		return nil, fmt.Errorf("transport: spawn %s: Stdin, Stdout and Stderr must be nil; the Process connects them", name)
	}
	if cmd.Process != nil {
		return nil, fmt.Errorf("transport: spawn %s: command already started", name)
	}

	// Pipes we create ourselves are *os.File, so exec.Cmd hands them to
	// the child directly, starts no copying goroutines and never closes
	// our ends in Wait: reading stdout cannot race Wait, and what the
	// child wrote before exiting stays readable.
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			_ = f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	childIn, stdin, err := pipe()
	if err != nil {
		return nil, wrapf(err, "spawn %s: stdin pipe", name)
	}
	stdout, childOut, err := pipe()
	if err != nil {
		closeAll()
		return nil, wrapf(err, "spawn %s: stdout pipe", name)
	}
	stderr, childErr, err := pipe()
	if err != nil {
		closeAll()
		return nil, wrapf(err, "spawn %s: stderr pipe", name)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = childIn, childOut, childErr
	if err := cmd.Start(); err != nil {
		closeAll()
		if notFound(cmd, err) {
			return nil, &NotFoundError{Name: name, Err: err}
		}
		return nil, wrapf(err, "spawn %s", name)
	}
	// The child has its own copies now. Closing ours is what lets our
	// reads see EOF when the child exits.
	_ = childIn.Close()
	_ = childOut.Close()
	_ = childErr.Close()

	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	grace := opts.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	p := &Process{
		cmd:        cmd,
		pid:        cmd.Process.Pid,
		logger:     logger,
		grace:      grace,
		stdin:      stdin,
		stdout:     stdout,
		stderr:     stderr,
		stderrDone: make(chan struct{}),
		done:       make(chan struct{}),
	}
	p.logger.Info("transport: child started", "pid", p.pid, "path", name)
	go p.forwardStderr()
	go p.wait()
	return p, nil
}

// NotFoundError is the error [Spawn] returns when the command's executable
// does not exist: a bare name not found in $PATH, or a path (relative to
// the command's Dir, or to the working directory) with no file at it. It
// matches both [exec.ErrNotFound] and [fs.ErrNotExist] with [errors.Is].
type NotFoundError struct {
	Name string // the command's Path
	Err  error  // what starting it returned
}

// Error says which executable was not found.
func (e *NotFoundError) Error() string {
	return fmt.Sprintf("transport: spawn %s: executable not found: %v", e.Name, e.Err)
}

// Unwrap returns exec.ErrNotFound, fs.ErrNotExist and the start error.
func (e *NotFoundError) Unwrap() []error { return []error{exec.ErrNotFound, fs.ErrNotExist, e.Err} }

// notFound reports whether err, returned by cmd.Start, says that the
// executable itself is missing, rather than, say, cmd.Dir.
func notFound(cmd *exec.Cmd, err error) bool {
	if errors.Is(err, exec.ErrNotFound) {
		return true
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	path := cmd.Path
	if !filepath.IsAbs(path) && cmd.Dir != "" {
		path = filepath.Join(cmd.Dir, path)
	}
	_, statErr := os.Stat(path)
	return errors.Is(statErr, fs.ErrNotExist)
}

// errNoProcess is what the methods of a Process that [Spawn] did not
// return (nil, or the zero value) fail with.
var errNoProcess = errors.New("transport: process not started (use the *Process Spawn returned, after checking its error)")

// started reports whether p came from a successful Spawn.
func (p *Process) started() bool { return p != nil && p.cmd != nil && p.done != nil }

// wait reaps the child, lets the stderr forwarder finish, records the exit
// status and closes done. It is the only caller of cmd.Wait.
func (p *Process) wait() {
	err := p.cmd.Wait()
	// If a grandchild inherited stdout or stderr, EOF never comes; the
	// deadlines end reads that would otherwise wait for it forever.
	deadline := time.Now().Add(drainTimeout)
	_ = p.stderr.SetReadDeadline(deadline)
	_ = p.stdout.SetReadDeadline(deadline)
	<-p.stderrDone
	_ = p.stderr.Close()
	p.exitErr = err
	if err != nil {
		p.logger.Info("transport: child exited", "pid", p.pid, "status", err.Error())
	} else {
		p.logger.Info("transport: child exited", "pid", p.pid, "status", "exit status 0")
	}
	close(p.done)
}

// forwardStderr logs each line the child writes to stderr until stderr
// reaches EOF or its drain deadline. Lines longer than maxStderrLine are
// logged in pieces, so a child cannot make us buffer without bound.
func (p *Process) forwardStderr() {
	defer close(p.stderrDone)
	r := bufio.NewReaderSize(p.stderr, maxStderrLine)
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			p.logStderr(line)
			continue
		}
		if len(line) > 0 {
			p.logStderr(line)
		}
		if err != nil {
			return
		}
	}
}

func (p *Process) logStderr(line []byte) {
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	p.logger.Info(string(line), "pid", p.pid, "stream", "stderr")
}

// Read reads the child's stdout. Once the child has exited, Read still
// returns what the child wrote before exiting and then [io.EOF]; it also
// returns io.EOF after Shutdown, Close or Kill.
func (p *Process) Read(b []byte) (int, error) {
	if !p.started() {
		return 0, errNoProcess
	}
	if p.stdoutEOF.Load() {
		return 0, io.EOF
	}
	select {
	case <-p.done:
		// Buffered bytes are read at once; only an empty pipe held
		// open by a grandchild waits out the deadline.
		_ = p.stdout.SetReadDeadline(time.Now().Add(drainTimeout))
	default:
	}
	n, err := p.stdout.Read(b)
	if err == nil {
		return n, nil
	}
	if err == io.EOF || errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, os.ErrClosed) {
		p.stdoutEOF.Store(true)
		return n, io.EOF
	}
	return n, wrapf(err, "read stdout of child %d", p.pid)
}

// Write writes to the child's stdin. It fails once the child has exited
// or Shutdown, Close or Kill has closed stdin.
func (p *Process) Write(b []byte) (int, error) {
	if !p.started() {
		return 0, errNoProcess
	}
	n, err := p.stdin.Write(b)
	if err != nil {
		return n, wrapf(err, "write stdin of child %d", p.pid)
	}
	return n, nil
}

// Close is Shutdown with [context.Background]: it waits at most the grace
// period and then kills the child.
func (p *Process) Close() error {
	return p.Shutdown(context.Background())
}

// Shutdown ends the child politely: it closes the child's stdin, waits
// for the child to exit until the grace period ([SpawnOptions.Grace]) or
// ctx ends, whichever comes first, and then kills it with SIGKILL and
// reaps it. It returns nil if the child exited with status 0 on its own,
// and otherwise an error that describes what happened and wraps the
// [*exec.ExitError] (and ctx.Err() if ctx ended first).
//
// Keep reading the child's stdout while Shutdown waits: a child blocked
// writing to a full stdout pipe cannot exit. The child's stdout is closed
// once the child has been reaped, so concurrent and later Reads return
// [io.EOF] and unread output is discarded.
//
// Shutdown is idempotent: later calls wait for the first to finish and
// return its result.
func (p *Process) Shutdown(ctx context.Context) error {
	if !p.started() {
		return errNoProcess
	}
	p.shutdownOnce.Do(func() { p.shutdownErr = p.shutdown(ctx) })
	return p.shutdownErr
}

func (p *Process) shutdown(ctx context.Context) error {
	_ = p.stdin.Close()
	timer := time.NewTimer(p.grace)
	defer timer.Stop()
	var killed bool
	var ctxErr error // set if ctx ended before the child did
	select {
	case <-p.done:
	case <-timer.C:
		killed = true
		p.logger.Warn("transport: killing child after grace period", "pid", p.pid, "grace", p.grace)
	case <-ctx.Done():
		killed, ctxErr = true, ctx.Err()
		p.logger.Warn("transport: killing child on shutdown", "pid", p.pid, "reason", ctxErr.Error())
	}
	if killed {
		if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			p.logger.Error("transport: kill child", "pid", p.pid, "err", err.Error())
		}
		<-p.done
	}
	p.closeIO()

	switch {
	case p.exitErr == nil:
		// It exited cleanly, even if it raced our kill.
		return nil
	case killed && ctxErr != nil && killedBySIGKILL(p.exitErr):
		return fmt.Errorf("transport: child %d killed on shutdown: %w: %w", p.pid, ctxErr, p.exitErr)
	case killed && killedBySIGKILL(p.exitErr):
		return fmt.Errorf("transport: child %d killed after grace period (%v): %w", p.pid, p.grace, p.exitErr)
	default:
		return fmt.Errorf("transport: child %d: %w", p.pid, p.exitErr)
	}
}

// Kill sends SIGKILL to the child at once, waits until it has been reaped
// and closes the streams. It returns an error only if the signal could not
// be sent; the exit status is available from [Process.ExitErr]. Killing a
// child that has already exited is not an error.
func (p *Process) Kill() error {
	if !p.started() {
		return errNoProcess
	}
	err := p.cmd.Process.Kill()
	if err != nil && !errors.Is(err, os.ErrProcessDone) {
		// The child may be gone already; in every other case there is
		// nothing to wait for that we could end.
		select {
		case <-p.done:
		default:
			return wrapf(err, "kill child %d", p.pid)
		}
	}
	<-p.done
	p.closeIO()
	return nil
}

// closeIO closes our ends of the child's stdin and stdout, once.
func (p *Process) closeIO() {
	p.closeIOOnce.Do(func() {
		_ = p.stdin.Close()
		_ = p.stdout.Close()
	})
}

// Done returns a channel that is closed once the child has exited and
// been reaped and its stderr has been forwarded.
// For a Process that Spawn did not return, the channel is closed already.
func (p *Process) Done() <-chan struct{} {
	if !p.started() {
		return closedChan
	}
	return p.done
}

// closedChan is the Done channel of a Process that Spawn did not return.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// ExitErr returns the child's exit error once [Process.Done] is closed:
// nil for exit status 0, otherwise an [*exec.ExitError] (or the error
// waiting failed with). Before that it returns nil.
func (p *Process) ExitErr() error {
	if !p.started() {
		return errNoProcess
	}
	select {
	case <-p.done:
		return p.exitErr
	default:
		return nil
	}
}

// Pid returns the child's process id, or 0 for a Process that Spawn did
// not return.
func (p *Process) Pid() int {
	if p == nil {
		return 0
	}
	return p.pid
}

// killedBySIGKILL reports whether err says the process died of SIGKILL.
func killedBySIGKILL(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}
