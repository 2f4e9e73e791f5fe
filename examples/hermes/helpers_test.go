package hermes_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/generated/hermes"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// wait bounds every wait of the tests.
const wait = 10 * time.Second

// childEnv makes the test binary play a misbehaving extension (see child).
const childEnv = "HERMES_E2E_CHILD"

// bin holds the example binaries, built once by TestMain.
var bin struct{ host, extension string }

// child runs the test binary as an extension that misbehaves as mode says:
// hang-init never answers initialize, hang-shutdown never answers
// shutdown, fail-shutdown answers it with GeneralError, unknown-datatype
// overrides a field with a data type Hermes does not know; tour calls every
// request Hermes serves (see host_test.go).
func child(mode string) int {
	if mode == "tour" {
		return runTour()
	}
	if path, ok := strings.CutPrefix(mode, "replay:"); ok {
		return runReplay(path)
	}
	conn, _ := hermes.ConnectExtension(transport.Stdio(), &misbehaving{mode: mode}, jsonrpc.Options{})
	<-conn.Done()
	return 0
}

type misbehaving struct {
	hermes.UnimplementedExtension
	mode string
}

func (m *misbehaving) Initialize(ctx context.Context, _ *hermes.InitializeParams) (*hermes.InitializeResult, error) {
	if m.mode == "hang-init" {
		select {} // never answers, and ignores stdin closing
	}
	res := &hermes.InitializeResult{Name: "misbehaving", Version: "0.0.1"}
	if m.mode == "unknown-datatype" {
		res.Schema = &hermes.SchemaOverride{Segments: map[string]hermes.SegmentOverride{"PID": {Fields: []hermes.FieldOverride{
			{Field: 7, Datatype: jsonrpc.Some[hermes.FieldDatatype]("time"), Placeholder: jsonrpc.Some("HHMM")},
		}}}}
	}
	return res, nil
}

func (m *misbehaving) Shutdown(context.Context, *hermes.ShutdownParams) (*hermes.ShutdownResult, error) {
	switch m.mode {
	case "hang-shutdown":
		select {}
	case "fail-shutdown":
		return nil, hermes.NewGeneralError()
	}
	return &hermes.ShutdownResult{Success: true}, nil
}

// logSink is a slog handler collecting the messages logged, among them
// the lines a spawned extension writes to stderr.
type logSink struct {
	mu    sync.Mutex
	lines []string
	added chan struct{}
}

func newLogSink() *logSink { return &logSink{added: make(chan struct{}, 1)} }

func (s *logSink) Enabled(context.Context, slog.Level) bool { return true }
func (s *logSink) WithAttrs([]slog.Attr) slog.Handler       { return s }
func (s *logSink) WithGroup(string) slog.Handler            { return s }
func (s *logSink) Handle(_ context.Context, r slog.Record) error {
	s.mu.Lock()
	s.lines = append(s.lines, r.Message)
	s.mu.Unlock()
	select {
	case s.added <- struct{}{}:
	default:
	}
	return nil
}

// waitFor waits until a line containing text has been logged, and returns
// how many lines there were then, so that later waits can skip them.
func (s *logSink) waitFor(t *testing.T, from int, text string) int {
	t.Helper()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		for i := from; i < len(s.lines); i++ {
			if strings.Contains(s.lines[i], text) {
				s.mu.Unlock()
				return i + 1
			}
		}
		s.mu.Unlock()
		select {
		case <-s.added:
		case <-deadline.C:
			s.mu.Lock()
			defer s.mu.Unlock()
			t.Fatalf("no log line containing %q after line %d within %v; log:\n%s", text, from, wait, strings.Join(s.lines, "\n"))
		}
	}
}

// spawn starts cmd over stdio and connects h to it as the Hermes side.
func spawn(t *testing.T, cmd *exec.Cmd, h hermes.Host, opts jsonrpc.Options, logs *logSink) (*transport.Process, *jsonrpc.Conn, hermes.Extension) {
	t.Helper()
	proc, err := transport.Spawn(cmd, transport.SpawnOptions{Logger: slog.New(logs), Grace: wait})
	if err != nil {
		t.Fatalf("spawn: %v", err)
	}
	conn, ext := hermes.ConnectHost(proc, h, opts)
	t.Cleanup(func() {
		_ = conn.Close()
		_ = proc.Kill()
	})
	return proc, conn, ext
}

// waitDone waits for ch to close.
func waitDone(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(wait):
		t.Fatalf("%s did not happen within %v", what, wait)
	}
}

// scaled returns the protocol's timeouts, keeping their actions, with
// those of the methods named scaled down to after; every other request
// keeps its generous default, so that a loaded machine cannot time out
// the calls that precede the one under test.
func scaled(after time.Duration, methods ...string) func(string) jsonrpc.Timeout {
	return func(method string) jsonrpc.Timeout {
		t := hermes.Options().Timeout(method)
		if t.After > 0 && slices.Contains(methods, method) {
			t.After = after
		}
		return t
	}
}

// code returns the JSON-RPC error code of err, or 0.
func code(err error) int64 {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// testdata writes a file into dir and returns its path.
func testdata(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
