package lsp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/rpcgen/rpcgen/runtime/transport"
)

// The Go module gopls works on: main.go has one deliberate type error (a
// string assigned to an int) for diagnostics, identifiers to hover,
// complete, rename and look up (greet, Greeting, count), and one line
// gofmt changes after a non-ASCII string (so edits count UTF-16 units).
const (
	goMod  = "module example.com/notes\n\ngo 1.24\n"
	mainGo = `package main

import "fmt"

// Greeting is what greet returns.
type Greeting struct {
	Text string
}

func greet(name string) Greeting {
	return Greeting{Text: "hello, " + name}
}

func main() {
	var count int = "three"
	g := greet( "Zoë" )
	fmt.Println(g.Text, count)
	fmt.Println(greet("gopls").Text)
}
`
)

// goplsWorkspace is a temporary Go module for gopls.
type goplsWorkspace struct {
	dir     string // the module's root
	mainURI string // file URI of main.go
}

// newGoplsWorkspace writes the module into a temporary directory.
func newGoplsWorkspace(t *testing.T) *goplsWorkspace {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"go.mod": goMod, "main.go": mainGo} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &goplsWorkspace{dir: dir, mainURI: fileURI(filepath.Join(dir, "main.go"))}
}

// fileURI is the file URI of an absolute path.
func fileURI(path string) string {
	return "file://" + filepath.ToSlash(path)
}

// position returns the LSP position (line, and character in UTF-16 code
// units) of the n-th (from 0) occurrence of text in main.go.
func position(t *testing.T, text string, n int) (line, char int) {
	t.Helper()
	for i, l := range strings.Split(mainGo, "\n") {
		for col := 0; ; {
			j := strings.Index(l[col:], text)
			if j < 0 {
				break
			}
			if n == 0 {
				return i, len(utf16.Encode([]rune(l[:col+j])))
			}
			n--
			col += j + len(text)
		}
	}
	t.Fatalf("main.go has no occurrence %d of %q", n, text)
	return 0, 0
}

// recorder is the stream between our side and gopls: it keeps a copy of
// every byte each way, so a test can check each message gopls sent.
type recorder struct {
	rwc    io.ReadWriteCloser
	mu     sync.Mutex
	in     bytes.Buffer  // what gopls sent
	out    bytes.Buffer  // what our side sent
	writes chan struct{} // signalled after each write of ours
}

func (r *recorder) Read(b []byte) (int, error) {
	n, err := r.rwc.Read(b)
	r.mu.Lock()
	r.in.Write(b[:n])
	r.mu.Unlock()
	return n, err
}

func (r *recorder) Write(b []byte) (int, error) {
	r.mu.Lock()
	r.out.Write(b)
	r.mu.Unlock()
	n, err := r.rwc.Write(b)
	select {
	case r.writes <- struct{}{}:
	default:
	}
	return n, err
}

// awaitSent waits until a message our side wrote matches.
func (r *recorder) awaitSent(t *testing.T, what string, match func(json.RawMessage) bool) json.RawMessage {
	t.Helper()
	timeout := time.NewTimer(goplsWait)
	defer timeout.Stop()
	for {
		sent, _ := r.sent()
		for _, m := range sent {
			if match(m) {
				return m
			}
		}
		select {
		case <-r.writes:
		case <-timeout.C:
			t.Fatalf("our side did not send %s within %v", what, goplsWait)
		}
	}
}

func (r *recorder) Close() error { return r.rwc.Close() }

// received returns the bodies of the messages gopls sent so far.
func (r *recorder) received() ([]json.RawMessage, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return parseFrames(bytes.Clone(r.in.Bytes()))
}

// sent returns the bodies of the messages our side sent so far.
func (r *recorder) sent() ([]json.RawMessage, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return parseFrames(bytes.Clone(r.out.Bytes()))
}

// dump renders both directions for a failure message.
func (r *recorder) dump() string {
	var b strings.Builder
	for _, d := range []struct {
		name string
		list func() ([]json.RawMessage, error)
	}{{"sent to gopls", r.sent}, {"received from gopls", r.received}} {
		bodies, err := d.list()
		fmt.Fprintf(&b, "--- %s (%d messages) ---\n", d.name, len(bodies))
		for _, m := range bodies {
			fmt.Fprintf(&b, "%s\n", m)
		}
		if err != nil {
			fmt.Fprintf(&b, "(framing error: %v)\n", err)
		}
	}
	return b.String()
}

// goplsProcess is a running `gopls serve` in a workspace, seen through a
// recorder.
type goplsProcess struct {
	ws     *goplsWorkspace
	proc   *transport.Process
	stream *recorder
	stderr *lockedBuffer
}

// startGopls runs `gopls serve` in ws over stdio. When the test fails it
// logs every message exchanged and what gopls wrote to stderr; at the end
// it kills gopls if it is still running.
func startGopls(t *testing.T, ws *goplsWorkspace) *goplsProcess {
	t.Helper()
	cmd := exec.Command(gopls, "serve")
	cmd.Dir = ws.dir
	// No toolchain downloads, and no module lookups for the workspace's
	// standard-library-only module.
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOPROXY=off")
	stderr := &lockedBuffer{}
	proc, err := transport.Spawn(cmd, transport.SpawnOptions{
		Grace:  wait,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo})),
	})
	if err != nil {
		t.Fatalf("starting gopls: %v", err)
	}
	g := &goplsProcess{ws: ws, proc: proc, stream: &recorder{rwc: proc, writes: make(chan struct{}, 1)}, stderr: stderr}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("gopls %s in %s\n%s--- gopls stderr ---\n%s", goplsVersion, ws.dir, g.stream.dump(), stderr.String())
		}
		select {
		case <-proc.Done():
		default:
			_ = proc.Kill()
		}
		_ = proc.Close()
	})
	return g
}

// waitExit waits for gopls to exit and fails the test unless its status
// is 0.
func (g *goplsProcess) waitExit(t *testing.T) {
	t.Helper()
	select {
	case <-g.proc.Done():
		if err := g.proc.ExitErr(); err != nil {
			t.Errorf("gopls exited with %v, want status 0", err)
		}
	case <-time.After(goplsWait):
		t.Errorf("gopls did not exit within %v of the exit notification", goplsWait)
	}
}

// checkReceived checks, once gopls has exited, that every message it
// sent is framed as LSP requires; it returns their bodies. gopls writes a
// message's header and body in two writes, so exit may cut off a message
// that another goroutine of gopls was writing: a stream ending inside its
// last message is logged, not failed.
func (g *goplsProcess) checkReceived(t *testing.T) []json.RawMessage {
	t.Helper()
	bodies, err := g.stream.received()
	switch {
	case errors.Is(err, errCutOff):
		t.Logf("gopls's output after %d whole messages: %v", len(bodies), err)
	case err != nil:
		t.Errorf("gopls's output: %v", err)
	}
	return bodies
}

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// warnings collects the records of level Warn and above that our side
// logs; the tests require none.
type warnings struct {
	mu   sync.Mutex
	recs []string
}

func (w *warnings) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (w *warnings) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	w.mu.Lock()
	w.recs = append(w.recs, r.Level.String()+" "+b.String())
	w.mu.Unlock()
	return nil
}
func (w *warnings) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *warnings) WithGroup(string) slog.Handler      { return w }

func (w *warnings) check(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range w.recs {
		t.Errorf("our side logged: %s", r)
	}
}
