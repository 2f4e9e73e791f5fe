package transport

import (
	"errors"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpawnMissingExecutable: a missing executable, named by a path or by
// a bare name looked up in $PATH, gives a nil Process and an error that
// says so and matches exec.ErrNotFound and fs.ErrNotExist.
func TestSpawnMissingExecutable(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		cmd  *exec.Cmd
	}{
		{"relative path", func() *exec.Cmd { c := exec.Command("./calc-server"); c.Dir = dir; return c }()},
		{"absolute path", exec.Command(filepath.Join(dir, "calc-server"))},
		{"name in PATH", exec.Command("rpcgen-transport-test-no-such-command")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Spawn(tc.cmd, SpawnOptions{})
			if p != nil {
				t.Errorf("Spawn returned a non-nil Process %v", p)
			}
			if err == nil {
				t.Fatal("Spawn succeeded")
			}
			if !strings.Contains(err.Error(), "executable not found") || !strings.Contains(err.Error(), tc.cmd.Path) {
				t.Errorf("error %q does not say that %s was not found", err, tc.cmd.Path)
			}
			if !errors.Is(err, exec.ErrNotFound) || !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("error %q matches neither exec.ErrNotFound nor fs.ErrNotExist", err)
			}
			var nf *NotFoundError
			if !errors.As(err, &nf) || nf.Name != tc.cmd.Path {
				t.Errorf("error %q is not a *NotFoundError naming %s", err, tc.cmd.Path)
			}
		})
	}
}

// TestSpawnMissingDirIsNotNotFound: a missing working directory is not
// reported as a missing executable.
func TestSpawnMissingDirIsNotNotFound(t *testing.T) {
	cmd := childCmd(t, "echo")
	cmd.Dir = filepath.Join(t.TempDir(), "gone")
	p, err := Spawn(cmd, SpawnOptions{})
	if err == nil {
		_ = p.Kill()
		t.Fatal("Spawn in a missing directory succeeded")
	}
	if p != nil {
		t.Errorf("Spawn returned a non-nil Process")
	}
	var nf *NotFoundError
	if errors.As(err, &nf) || errors.Is(err, exec.ErrNotFound) {
		t.Errorf("error %q blames the executable, which exists", err)
	}
}

// TestUnstartedProcessFailsCleanly: every method of the nil Process a
// failed Spawn returns, and of a zero Process, returns an error instead
// of panicking.
func TestUnstartedProcessFailsCleanly(t *testing.T) {
	failed, err := Spawn(exec.Command("./no-such-calc-server"), SpawnOptions{})
	if err == nil {
		t.Fatal("Spawn of a missing executable succeeded")
	}
	for _, tc := range []struct {
		name string
		p    *Process
	}{
		{"failed Spawn", failed},
		{"nil", nil},
		{"zero", &Process{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			if _, err := p.Read(make([]byte, 8)); !errors.Is(err, errNoProcess) {
				t.Errorf("Read = %v; want errNoProcess", err)
			}
			if _, err := p.Write([]byte("x")); !errors.Is(err, errNoProcess) {
				t.Errorf("Write = %v; want errNoProcess", err)
			}
			if err := p.Close(); !errors.Is(err, errNoProcess) {
				t.Errorf("Close = %v; want errNoProcess", err)
			}
			if err := p.Shutdown(t.Context()); !errors.Is(err, errNoProcess) {
				t.Errorf("Shutdown = %v; want errNoProcess", err)
			}
			if err := p.Kill(); !errors.Is(err, errNoProcess) {
				t.Errorf("Kill = %v; want errNoProcess", err)
			}
			if err := p.ExitErr(); !errors.Is(err, errNoProcess) {
				t.Errorf("ExitErr = %v; want errNoProcess", err)
			}
			select {
			case <-p.Done():
			default:
				t.Error("Done is not closed")
			}
			if pid := p.Pid(); pid != 0 {
				t.Errorf("Pid = %d; want 0", pid)
			}
		})
	}
}
