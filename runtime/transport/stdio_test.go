package transport

import (
	"errors"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// closeCounter counts Close calls on a reader or writer.
type closeCounter struct {
	io.Reader
	io.Writer
	closes int
	err    error
}

func (c *closeCounter) Close() error { c.closes++; return c.err }

func TestStdioReadWrite(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := newStdio(inR, outW)
	defer s.Close()

	go func() { _, _ = inW.Write([]byte("request")) }()
	buf := make([]byte, 7)
	if _, err := io.ReadFull(s, buf); err != nil || string(buf) != "request" {
		t.Fatalf("Read = %q, %v", buf, err)
	}

	go func() { _, _ = s.Write([]byte("response")) }()
	buf = make([]byte, 8)
	if _, err := io.ReadFull(outR, buf); err != nil || string(buf) != "response" {
		t.Fatalf("peer read = %q, %v", buf, err)
	}
}

func TestStdioClose(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := newStdio(inR, outW)

	peerRead := make(chan error, 1)
	go func() {
		_, err := outR.Read(make([]byte, 1))
		peerRead <- err
	}()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := within(t, peerRead, 5*time.Second, "read of stdout after Close"); err != io.EOF {
		t.Fatalf("reading stdout after Close = %v, want io.EOF", err)
	}
	if _, err := inW.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("writing stdin after Close = %v, want io.ErrClosedPipe", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestStdioCloseOnce(t *testing.T) {
	in := &closeCounter{err: errors.New("in failed")}
	out := &closeCounter{}
	s := newStdio(in, out)
	first := s.Close()
	if first == nil || !errors.Is(first, in.err) {
		t.Fatalf("Close = %v, want an error wrapping %v", first, in.err)
	}
	if second := s.Close(); second != first {
		t.Fatalf("second Close = %v, want %v", second, first)
	}
	if in.closes != 1 || out.closes != 1 {
		t.Fatalf("closed in %d and out %d times, want once each", in.closes, out.closes)
	}
}

func TestStdioUsesProcessStreams(t *testing.T) {
	s, ok := Stdio().(*stdio)
	if !ok {
		t.Fatalf("Stdio() is %T", Stdio())
	}
	if s.in != os.Stdin || s.out != os.Stdout {
		t.Fatal("Stdio() is not os.Stdin and os.Stdout")
	}
}

func TestStdioCloseInterruptsABlockedRead(t *testing.T) {
	// The child reads Stdio while we keep its stdin pipe open, then closes
	// Stdio: the Read must end so the child can exit on its own.
	cmd := childCmd(t, "stdio-close")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close() // held open until the child has exited
	// Hosts usually hand their child a pipe in blocking mode (os.Pipe's is
	// non-blocking, which would make the test pass without the fix).
	if err := syscall.SetNonblock(int(r.Fd()), false); err != nil {
		t.Fatal(err)
	}
	cmd.Stdin = r
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(stderr.String(), "read interrupted") {
			t.Errorf("child: %v, stderr %q; want a clean exit after the read was interrupted", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("the child never exited: Close did not interrupt its Read")
	}
}
