package hermes_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/generated/hermes"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// execCommand runs name with the test's environment.
func execCommand(name string, args ...string) *exec.Cmd {
	return exec.Command(name, args...)
}

// misbehavingChild is the test binary run as a misbehaving extension.
func misbehavingChild(mode string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	return cmd
}

// An extension that does not answer initialize in time is marked failed:
// the call fails with a timeout and the connection is closed.
func TestInitializeTimeout(t *testing.T) {
	proc, conn, ext := spawn(t, misbehavingChild("hang-init"), nil, jsonrpc.Options{Timeout: scaled(200*time.Millisecond, hermes.MethodInitialize)}, newLogSink())
	_, err := ext.Initialize(context.Background(), &hermes.InitializeParams{HermesVersion: "1.0.0", APIVersion: "1.0", DataDirectory: t.TempDir()})
	var te *jsonrpc.TimeoutError
	// The error names the timeout that fired: the scaled one, not the
	// protocol's 10 s (the child never answers, so only which one matters).
	if !errors.As(err, &te) || te.Method != hermes.MethodInitialize || te.Timeout != 200*time.Millisecond || !errors.Is(err, jsonrpc.ErrTimeout) {
		t.Fatalf("initialize: got %v, want the 200ms timeout", err)
	}
	waitDone(t, conn.Done(), "closing the connection of a failed extension")
	// The connection is gone: nothing more can be sent.
	if err := ext.CommandExecute(context.Background(), &hermes.CommandExecuteParams{Command: "x"}); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Fatalf("command after the failure: got %v, want ErrClosed", err)
	}
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
}

// An extension that does not answer shutdown in time is killed with
// SIGKILL.
func TestShutdownTimeout(t *testing.T) {
	// Only shutdown is meant to time out: initialize keeps the protocol's
	// timeout, and gets a deadline of its own besides.
	proc, conn, ext := spawn(t, misbehavingChild("hang-shutdown"), nil, jsonrpc.Options{Timeout: scaled(200*time.Millisecond, hermes.MethodShutdown)}, newLogSink())
	ctx := context.Background()
	initCtx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if _, err := ext.Initialize(initCtx, &hermes.InitializeParams{}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	_, err := ext.Shutdown(ctx, &hermes.ShutdownParams{Reason: hermes.ShutdownReasonClosing})
	var te *jsonrpc.TimeoutError
	if !errors.As(err, &te) || te.Method != hermes.MethodShutdown || !errors.Is(err, jsonrpc.ErrTimeout) {
		t.Fatalf("shutdown: got %v, want a timeout", err)
	}
	waitDone(t, proc.Done(), "killing the extension")
	waitDone(t, conn.Done(), "closing the connection")
	var ee *exec.ExitError
	if err := proc.ExitErr(); !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("extension exit = %v, want killed by SIGKILL", proc.ExitErr())
	}
}

// An extension that cannot stop cleanly answers shutdown with
// GeneralError.
func TestShutdownError(t *testing.T) {
	proc, conn, ext := spawn(t, misbehavingChild("fail-shutdown"), nil, jsonrpc.Options{}, newLogSink())
	ctx := context.Background()
	if _, err := ext.Initialize(ctx, &hermes.InitializeParams{}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if _, err := ext.Shutdown(ctx, &hermes.ShutdownParams{}); !errors.Is(err, hermes.ErrGeneral) || code(err) != hermes.CodeGeneral {
		t.Fatalf("shutdown: got %v, want GeneralError", err)
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	waitDone(t, proc.Done(), "the extension's exit")
}

// The example host enforces both timeouts against a real child.
func TestHostTimeouts(t *testing.T) {
	for _, c := range []struct{ mode, flag, want string }{
		{"hang-init", "-init-timeout=300ms", "extension failed: initialize"},
		{"hang-shutdown", "-shutdown-timeout=300ms", "extension killed: no answer to shutdown within 300ms"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin.host, c.flag, "--", os.Args[0])
			cmd.Env = append(os.Environ(), childEnv+"="+c.mode)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("host exited with %v, want status 1; output:\n%s", err, out)
			}
			if !strings.Contains(string(out), c.want) {
				t.Fatalf("host output lacks %q:\n%s", c.want, out)
			}
		})
	}
}
