package transport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// spawn starts the test binary in mode and makes sure it is gone when the
// test ends.
func spawn(t *testing.T, mode string, opts SpawnOptions) *Process {
	t.Helper()
	p, err := Spawn(childCmd(t, mode), opts)
	if err != nil {
		t.Fatalf("Spawn(%s): %v", mode, err)
	}
	t.Cleanup(func() { _ = p.Kill() })
	return p
}

// signaledKill reports whether err is an *exec.ExitError for SIGKILL.
func signaledKill(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

func TestProcessEchoRoundTrip(t *testing.T) {
	p := spawn(t, "echo", SpawnOptions{})
	if p.Pid() <= 0 {
		t.Fatalf("Pid() = %d", p.Pid())
	}
	// Larger than a pipe buffer, so writing and reading must overlap.
	want := bytes.Repeat([]byte("0123456789abcdef"), 64<<10)
	writeErr := make(chan error, 1)
	go func() {
		_, err := p.Write(want)
		writeErr <- err
	}()
	got := make([]byte, len(want))
	if _, err := io.ReadFull(p, got); err != nil {
		t.Fatalf("ReadFull: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("echoed bytes differ from written bytes")
	}
	if err := within(t, writeErr, 10*time.Second, "Write"); err != nil {
		t.Fatalf("Write: %v", err)
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown of echo child: %v", err)
	}
	select {
	case <-p.Done():
	default:
		t.Fatal("Done not closed after Shutdown")
	}
	if err := p.ExitErr(); err != nil {
		t.Fatalf("ExitErr = %v, want nil", err)
	}
	// Idempotent.
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if n, err := p.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("Read after Shutdown = %d, %v; want 0, io.EOF", n, err)
	}
	if _, err := p.Write([]byte("x")); err == nil {
		t.Fatal("Write after Shutdown succeeded")
	}
}

func TestProcessStderrLogged(t *testing.T) {
	h := &recordHandler{}
	p := spawn(t, "stderr", SpawnOptions{Logger: slog.New(h)})
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	var lines []string
	for _, r := range h.snapshot() {
		if r.attrs["stream"] != "stderr" {
			continue
		}
		if r.level != slog.LevelInfo {
			t.Errorf("stderr record %q at level %v, want Info", r.msg, r.level)
		}
		if pid, ok := r.attrs["pid"].(int64); !ok || int(pid) != p.Pid() {
			t.Errorf("stderr record %q has pid %v, want %d", r.msg, r.attrs["pid"], p.Pid())
		}
		lines = append(lines, r.msg)
	}
	want := []string{
		"first line",
		"second line",
		strings.Repeat("x", maxStderrLine),
		"xxxxxxxxxx",
		"no newline at end",
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d stderr lines, want %d: %.80q", len(lines), len(want), lines)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("stderr line %d = %.80q, want %.80q", i, lines[i], want[i])
		}
	}
}

func TestProcessShutdownKillsAfterGrace(t *testing.T) {
	h := &recordHandler{}
	p := spawn(t, "ignore-eof", SpawnOptions{Logger: slog.New(h), Grace: 200 * time.Millisecond})
	err := p.Shutdown(context.Background())
	if err == nil {
		t.Fatal("Shutdown of a child that ignores EOF returned nil")
	}
	if !signaledKill(err) || !strings.Contains(err.Error(), "killed after grace period") {
		t.Fatalf("Shutdown error = %v; want a SIGKILL after the grace period", err)
	}
	if !signaledKill(p.ExitErr()) {
		t.Fatalf("ExitErr = %v; want SIGKILL", p.ExitErr())
	}
	if again := p.Shutdown(context.Background()); again != err {
		t.Fatalf("second Shutdown = %v, want the first result %v", again, err)
	}
}

func TestProcessShutdownContext(t *testing.T) {
	p := spawn(t, "ignore-eof", SpawnOptions{Grace: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- p.Shutdown(ctx) }()
	err := within(t, done, 10*time.Second, "Shutdown with an ending context")
	if !errors.Is(err, context.DeadlineExceeded) || !signaledKill(err) {
		t.Fatalf("Shutdown error = %v; want context.DeadlineExceeded and SIGKILL", err)
	}
}

func TestProcessKill(t *testing.T) {
	p := spawn(t, "ignore-eof", SpawnOptions{})
	if err := p.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	select {
	case <-p.Done():
	default:
		t.Fatal("Done not closed after Kill")
	}
	if !signaledKill(p.ExitErr()) {
		t.Fatalf("ExitErr = %v; want SIGKILL", p.ExitErr())
	}
	if err := p.Kill(); err != nil {
		t.Fatalf("second Kill: %v", err)
	}
	if err := p.Shutdown(context.Background()); !signaledKill(err) {
		t.Fatalf("Shutdown after Kill = %v; want the SIGKILL exit error", err)
	}
}

func TestProcessExitStatus(t *testing.T) {
	p := spawn(t, "exit3", SpawnOptions{})
	within(t, p.Done(), 10*time.Second, "exit of the child")
	var ee *exec.ExitError
	if !errors.As(p.ExitErr(), &ee) || ee.ExitCode() != 3 {
		t.Fatalf("ExitErr = %v; want exit status 3", p.ExitErr())
	}
	if n, err := p.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Fatalf("Read after exit = %d, %v; want 0, io.EOF", n, err)
	}
	err := p.Shutdown(context.Background())
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("Shutdown = %v; want exit status 3", err)
	}
}

func TestProcessOutputReadableAfterExit(t *testing.T) {
	p := spawn(t, "write-exit", SpawnOptions{})
	within(t, p.Done(), 10*time.Second, "exit of the child")
	got, err := io.ReadAll(p)
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	if string(got) != "goodbye\n" {
		t.Fatalf("read %q, want %q", got, "goodbye\n")
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func TestProcessEOFDespiteGrandchild(t *testing.T) {
	p := spawn(t, "spawn-grandchild", SpawnOptions{})
	// The grandchild keeps the child's stdout open, yet reading must
	// end once the child itself has exited.
	result := make(chan string, 1)
	go func() {
		b, err := io.ReadAll(p)
		if err != nil {
			result <- "error: " + err.Error()
			return
		}
		result <- string(b)
	}()
	if got := within(t, result, 10*time.Second, "EOF after the child exited"); got != "parent done\n" {
		t.Fatalf("read %q, want %q", got, "parent done\n")
	}
	// Closing stdin also ends the grandchild.
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

func TestProcessKilledMidRead(t *testing.T) {
	p := spawn(t, "ignore-eof", SpawnOptions{})
	type result struct {
		n   int
		err error
	}
	read := make(chan result, 1)
	go func() {
		n, err := p.Read(make([]byte, 16))
		read <- result{n, err}
	}()
	// Kill the child behind the Process's back, as a crash would.
	if err := syscall.Kill(p.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r := within(t, read, 10*time.Second, "Read returning after the child was killed")
	if r.n != 0 || r.err != io.EOF {
		t.Fatalf("Read = %d, %v; want 0, io.EOF", r.n, r.err)
	}
	within(t, p.Done(), 10*time.Second, "Done after the child was killed")
	if !signaledKill(p.ExitErr()) {
		t.Fatalf("ExitErr = %v; want SIGKILL", p.ExitErr())
	}
}

func TestProcessKillWakesRead(t *testing.T) {
	p := spawn(t, "ignore-eof", SpawnOptions{})
	read := make(chan error, 1)
	go func() {
		_, err := p.Read(make([]byte, 16))
		read <- err
	}()
	if err := p.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	if err := within(t, read, 10*time.Second, "Read returning after Kill"); err != io.EOF {
		t.Fatalf("Read after Kill = %v, want io.EOF", err)
	}
}

func TestSpawnRejectsConnectedStreams(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*exec.Cmd)
	}{
		{"Stdin", func(c *exec.Cmd) { c.Stdin = strings.NewReader("") }},
		{"Stdout", func(c *exec.Cmd) { c.Stdout = io.Discard }},
		{"Stderr", func(c *exec.Cmd) { c.Stderr = io.Discard }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := childCmd(t, "echo")
			tc.set(cmd)
			p, err := Spawn(cmd, SpawnOptions{})
			if err == nil {
				_ = p.Kill()
				t.Fatal("Spawn succeeded")
			}
			if cmd.Process != nil {
				t.Fatal("Spawn started the command despite the error")
			}
		})
	}
}

func TestSpawnStartError(t *testing.T) {
	_, err := Spawn(exec.Command("/nonexistent/rpcgen-transport-test"), SpawnOptions{})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/rpcgen-transport-test") {
		t.Fatalf("Spawn of a missing binary = %v; want an error naming it", err)
	}
}

func TestProcessLifecycleLogged(t *testing.T) {
	h := &recordHandler{}
	p := spawn(t, "echo", SpawnOptions{Logger: slog.New(h)})
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	var started, exited bool
	for _, r := range h.snapshot() {
		started = started || strings.Contains(r.msg, "started")
		exited = exited || strings.Contains(r.msg, "exited")
	}
	if !started || !exited {
		t.Fatalf("lifecycle not logged: started=%v exited=%v", started, exited)
	}
}
