package exampletest

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// Lines collects what a process writes (use it as its Stdout or Stderr)
// and lets a test wait for the lines it expects.
type Lines struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // closed and replaced by each Write
}

// NewLines returns an empty Lines.
func NewLines() *Lines { return &Lines{changed: make(chan struct{})} }

// Write implements io.Writer.
func (w *Lines) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	close(w.changed)
	w.changed = make(chan struct{})
	return len(p), nil
}

// String returns everything written so far.
func (w *Lines) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// Wait waits until n complete lines contain substr and returns every such
// line, without its line break. After timeout it fails the test, naming
// what (the process) and showing what was written.
func (w *Lines) Wait(t testing.TB, what, substr string, n int, timeout time.Duration) []string {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		w.mu.Lock()
		var found []string
		for line := range strings.Lines(w.buf.String()) {
			if strings.HasSuffix(line, "\n") && strings.Contains(line, substr) {
				found = append(found, strings.TrimSuffix(line, "\n"))
			}
		}
		changed := w.changed
		w.mu.Unlock()
		if len(found) >= n {
			return found
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("%s: timed out waiting for %d lines with %q:\n%s", what, n, substr, w)
		}
	}
}
