package conformance_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// wait bounds every wait of these tests.
const wait = 10 * time.Second

// Framings, as the tests frame messages themselves: nothing here uses the
// runtime's framing package, so that a shared mistake cannot hide.
const (
	ndjson        = "ndjson"
	contentLength = "content-length"
)

// frame wraps one message for the wire.
func frame(framing string, msg []byte) []byte {
	if framing == contentLength {
		return append([]byte("Content-Length: "+strconv.Itoa(len(msg))+"\r\n\r\n"), msg...)
	}
	return append(append([]byte(nil), msg...), '\n')
}

// wire is one raw connection to a program under test: what the test
// writes goes out as is, what comes back is split into messages by an
// independent reader, and both directions are recorded so that a failure
// shows the bytes exchanged.
type wire struct {
	t       *testing.T
	peer    string // names the program in failures
	framing string
	w       io.Writer
	frames  chan []byte
	readErr chan error

	mu  sync.Mutex
	log bytes.Buffer
}

func newWire(t *testing.T, peer, framing string, w io.Writer, r io.Reader) *wire {
	c := &wire{t: t, peer: peer, framing: framing, w: w, frames: make(chan []byte, 256), readErr: make(chan error, 1)}
	go c.read(bufio.NewReader(r))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bytes exchanged with %s (%s), in order (> sent, < received):\n%s", c.peer, c.framing, c.transcript())
		}
	})
	return c
}

func (c *wire) record(dir string, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(&c.log, "%s %q\n", dir, b)
}

func (c *wire) transcript() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.log.String()
}

// sendRaw writes b exactly as given.
func (c *wire) sendRaw(b []byte) {
	c.t.Helper()
	c.record(">", b)
	if _, err := c.w.Write(b); err != nil {
		c.t.Fatalf("%s: writing %q: %v", c.peer, b, err)
	}
}

// send frames msg and writes it.
func (c *wire) send(msg string) { c.t.Helper(); c.sendRaw(frame(c.framing, []byte(msg))) }

// recv returns the next message, failing the test after wait.
func (c *wire) recv(step string) []byte {
	c.t.Helper()
	select {
	case b := <-c.frames:
		return b
	case err := <-c.readErr:
		c.t.Fatalf("%s, %s: connection ended before an answer: %v", c.peer, step, err)
	case <-time.After(wait):
		c.t.Fatalf("%s, %s: no answer within %v", c.peer, step, wait)
	}
	return nil
}

// recvOrEnd returns the next message, or nil and the error that ended the
// stream; it fails the test after wait.
func (c *wire) recvOrEnd(step string) ([]byte, error) {
	c.t.Helper()
	select {
	case b := <-c.frames:
		return b, nil
	case err := <-c.readErr:
		return nil, err
	case <-time.After(wait):
		c.t.Fatalf("%s, %s: neither an answer nor the end of the stream within %v", c.peer, step, wait)
	}
	return nil, nil
}

func (c *wire) read(r *bufio.Reader) {
	for {
		b, err := c.readFrame(r)
		if err != nil {
			c.readErr <- err
			return
		}
		c.frames <- b
	}
}

// readFrame reads one message, checking the Content-Length header strictly
// (exactly one header, the length in bytes, CRLF line ends).
func (c *wire) readFrame(r *bufio.Reader) ([]byte, error) {
	if c.framing == ndjson {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			c.record("<", line)
		}
		if err != nil {
			return nil, err
		}
		return bytes.TrimSuffix(line, []byte("\n")), nil
	}
	head, err := r.ReadString('\n')
	if err != nil {
		if head != "" {
			c.record("<", []byte(head))
		}
		return nil, err
	}
	blank, err := r.ReadString('\n')
	if err != nil {
		c.record("<", []byte(head+blank))
		return nil, err
	}
	n, convErr := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(head, "Content-Length: "), "\r\n"))
	if !strings.HasPrefix(head, "Content-Length: ") || !strings.HasSuffix(head, "\r\n") || blank != "\r\n" || convErr != nil || n < 0 {
		c.record("<", []byte(head+blank))
		return nil, fmt.Errorf("malformed header section %q", head+blank)
	}
	body := make([]byte, n)
	_, err = io.ReadFull(r, body)
	c.record("<", append([]byte(head+blank), body...))
	if err != nil {
		return nil, fmt.Errorf("body shorter than Content-Length %d: %w", n, err)
	}
	return body, nil
}

// proc is a program under test running as a child process.
type proc struct {
	*wire
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *lockedBuffer
	exited chan struct{}
}

// spawn starts path with args and talks to it over its stdin and stdout.
// When the test ends, stdin is closed and the process gets wait to exit
// before it is killed.
func spawn(t *testing.T, peer, framing, path string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(path, args...)
	cmd.Dir = t.TempDir()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, stdin: stdin, stderr: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: starting %s: %v", peer, path, err)
	}
	p.wire = newWire(t, peer, framing, stdin, stdout)
	go func() { cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(wait):
			cmd.Process.Kill()
			<-p.exited
		}
		if t.Failed() {
			t.Logf("stderr of %s:\n%s", peer, p.stderr.String())
		}
	})
	return p
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// dialTCP connects to a program listening on addr (127.0.0.1 only).
func dialTCP(t *testing.T, peer, addr string) *wire {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, wait)
	if err != nil {
		t.Fatalf("%s: dialing %s: %v", peer, addr, err)
	}
	t.Cleanup(func() { conn.Close() })
	return newWire(t, peer, ndjson, conn, conn)
}
