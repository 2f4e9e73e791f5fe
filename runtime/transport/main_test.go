package transport

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// childEnv selects a child behaviour when the test binary is run as a
// child process by the Process tests.
const childEnv = "RPCGEN_TRANSPORT_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	goleak.VerifyTestMain(m)
}

// runChild runs one child behaviour and returns its exit status.
func runChild(mode string) int {
	switch mode {
	case "echo":
		// Echo stdin to stdout until EOF, then exit 0.
		if _, err := io.Copy(os.Stdout, os.Stdin); err != nil {
			fmt.Fprintln(os.Stderr, "echo:", err)
			return 1
		}
		return 0
	case "stderr":
		// Write some lines to stderr, one of them longer than
		// maxStderrLine, wait for stdin EOF and exit 0.
		fmt.Fprint(os.Stderr, "first line\nsecond line\r\n")
		fmt.Fprint(os.Stderr, strings.Repeat("x", maxStderrLine+10)+"\n")
		fmt.Fprint(os.Stderr, "no newline at end")
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	case "ignore-eof":
		// Read stdin to EOF, then hang until killed.
		_, _ = io.Copy(io.Discard, os.Stdin)
		time.Sleep(time.Minute)
		return 0
	case "exit3":
		return 3
	case "stdio-close":
		// Read Stdio in the background, then close it while the parent
		// keeps our stdin open: the blocked Read must end, and we exit.
		s := Stdio()
		readDone := make(chan error, 1)
		go func() {
			_, err := s.Read(make([]byte, 1))
			readDone <- err
		}()
		time.Sleep(50 * time.Millisecond) // let the Read block
		if err := s.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "close:", err)
			return 1
		}
		select {
		case err := <-readDone:
			fmt.Fprintf(os.Stderr, "read interrupted: %v\n", err)
			return 0
		case <-time.After(10 * time.Second):
			fmt.Fprint(os.Stderr, "read still blocked\n")
			return 4
		}
	case "write-exit":
		// Write a message and exit at once without reading stdin.
		fmt.Fprint(os.Stdout, "goodbye\n")
		return 0
	case "spawn-grandchild":
		// Start a grandchild that inherits stdin, stdout and stderr
		// (so the pipes stay open after we exit), then exit.
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), childEnv+"=grandchild")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "start grandchild:", err)
			return 1
		}
		fmt.Fprint(os.Stdout, "parent done\n")
		return 0
	case "grandchild":
		// Hold the inherited pipes until stdin closes (the test's
		// Shutdown does that) or a minute passes.
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			os.Exit(0)
		}()
		time.Sleep(time.Minute)
		return 0
	default:
		fmt.Fprintln(os.Stderr, "unknown child mode", mode)
		return 2
	}
}

// childCmd returns a command that runs this test binary as a child in the
// given mode.
func childCmd(t *testing.T, mode string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	// Under -race a child exiting with status 0 sleeps for a second
	// before exiting unless told otherwise.
	cmd.Env = append(os.Environ(), childEnv+"="+mode,
		"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	return cmd
}

// record is one log record kept by recordHandler.
type record struct {
	level slog.Level
	msg   string
	attrs map[string]any
}

// recordHandler is a slog.Handler that keeps every record.
type recordHandler struct {
	mu      sync.Mutex
	records []record
}

func (h *recordHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *recordHandler) Handle(_ context.Context, r slog.Record) error {
	rec := record{level: r.Level, msg: r.Message, attrs: map[string]any{}}
	r.Attrs(func(a slog.Attr) bool {
		rec.attrs[a.Key] = a.Value.Any()
		return true
	})
	h.mu.Lock()
	h.records = append(h.records, rec)
	h.mu.Unlock()
	return nil
}

func (h *recordHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordHandler) WithGroup(string) slog.Handler      { return h }

func (h *recordHandler) snapshot() []record {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]record(nil), h.records...)
}

// within fails the test if ch is not closed (or does not deliver) within
// d, a generous bound that only guards against hangs.
func within[T any](t *testing.T, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("%s did not happen within %v", what, d)
		panic("unreachable")
	}
}
