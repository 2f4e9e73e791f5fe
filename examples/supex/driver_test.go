package supex_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// driverEnv points the driver example at rp through the environment.
func driverEnv(rp *runtimeProc, extra ...string) []string {
	host, port, _ := net.SplitHostPort(rp.addr)
	return append([]string{"SUPEX_HOST=" + host, "SUPEX_PORT=" + port}, extra...)
}

// The shell against the runtime example, keeping one connection (-reuse)
// or connecting for each request (the default), and against the runtime
// closing after each request as upstream's does.
func TestDriverShell(t *testing.T) {
	for _, tc := range []struct {
		name   string
		flags  []string // the runtime's
		env    string   // the driver's
		wantHi int      // hellos the runtime logs; 0: one per request
	}{
		{name: "reuse", env: "SUPEX_REUSE=1", wantHi: 1},
		{name: "connection per request"},
		{name: "runtime closes after each request", flags: []string{"-close-after-request"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rp := startRuntimeWith(t, "127.0.0.1:0", tc.flags, "SUPEX_AUTH_TOKEN=tok")
			testDriverShell(t, rp, tc.env, tc.wantHi)
		})
	}
}

func testDriverShell(t *testing.T, rp *runtimeProc, env string, wantHellos int) {
	ws := t.TempDir()
	commands := []struct {
		line string
		want string // a member of the output, or of its error
	}{
		{"status", `"name":"supex-runtime"`},
		{"ping", `"status":"ok"`},
		{"resources", `"id":1001`},
		{"info", `"title":"Untitled"`},
		{"entities faces", `"count":1`},
		{"selection", `"normal":[0,0,1]`},
		{"layers", `"Furniture"`},
		{"materials", `"Brick_Red"`},
		{"camera", `"fov":35`},
		{"console", `"capturing":true`},
		{"reload", `"Extension reloaded successfully"`},
		{"screenshot", `"format":"png"`},
		{`batch {"shots": [{"name": "iso"}], "width": 8, "height": 8}`, `"successful":1`},
		{"save " + filepath.Join(ws, "a.skp"), `"title":"a"`},
		{"open " + filepath.Join(ws, "a.skp"), `"file_name":"a.skp"`},
		{"export obj", `"format":"obj"`},
		{"tool get_model_info", `"num_edges":4`},
		{`tool list_entities {"entity_type": "edges"}`, `"count":4`},
		{"eval Sketchup.version", `"code":-32000,"data":{"success":false},"kind":"tool_failed"`},
		{"eval-file /etc/hosts", `"code":-32002,"data":{"success":false},"kind":"path_denied"`},
		{"tool no_such_tool", `"kind":"unknown_tool"`},
	}
	var in strings.Builder
	for _, c := range commands {
		in.WriteString(c.line + "\n")
	}
	code, stdout, stderr := runDriver(t, in.String(),
		driverEnv(rp, "SUPEX_AUTH_TOKEN=tok", "SUPEX_WORKSPACE="+ws, "SUPEX_AGENT=e2e", env), "-raw", "shell")
	if code != 1 {
		t.Errorf("exit status %d, want 1 since some commands failed; stderr:\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != len(commands) {
		t.Fatalf("%d output lines for %d commands:\n%s\nstderr:\n%s", len(lines), len(commands), stdout, stderr)
	}
	for i, c := range commands {
		if !json.Valid([]byte(lines[i])) || !strings.Contains(lines[i], c.want) {
			t.Errorf("%s: got %s, want it to contain %s", c.line, lines[i], c.want)
		}
	}
	// One hello for all the commands, or one for each request (status
	// makes two).
	if wantHellos == 0 {
		wantHellos = len(commands) + 1
	}
	rp.waitLog(t, reClientIdentified, wantHellos)
	rp.mu.Lock()
	n := strings.Count(strings.Join(rp.logs, "\n"), "client identified")
	rp.mu.Unlock()
	if n != wantHellos {
		t.Errorf("the driver said hello %d times, want %d", n, wantHellos)
	}
}

func TestDriverSingleCommands(t *testing.T) {
	rp := startRuntime(t, "127.0.0.1:0", "SUPEX_AUTH_TOKEN=tok")
	host, port, _ := net.SplitHostPort(rp.addr)

	code, stdout, stderr := runDriver(t, "", nil, "-host", host, "-port", port, "-token", "tok", "info")
	if code != 0 || !strings.Contains(stdout, `"units": "meters"`) {
		t.Errorf("info: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr = runDriver(t, "", driverEnv(rp, "SUPEX_AUTH_TOKEN=nope"), "ping")
	if code != 1 || !strings.Contains(stderr, "-32001") {
		t.Errorf("wrong token: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runDriver(t, "", driverEnv(rp), "frobnicate")
	if code != 2 || !strings.Contains(stderr, "unknown command") {
		t.Errorf("unknown command: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runDriver(t, "", driverEnv(rp, "SUPEX_AUTH_TOKEN=tok"), "open")
	if code != 2 {
		t.Errorf("open without a path: exit %d, stderr %q", code, stderr)
	}

	// Nothing listening: the driver retries, then fails.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	free := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	code, _, stderr = runDriver(t, "", nil, "-host", "127.0.0.1", "-port", fmt.Sprint(free), "-retries", "1", "ping")
	if code != 1 || !strings.Contains(stderr, "connecting to the runtime") {
		t.Errorf("no runtime: exit %d, stderr %q", code, stderr)
	}
}

// SUPEX_TIMEOUT bounds each answer; the runtime delays its answers by 5 s.
func TestDriverTimeout(t *testing.T) {
	rp := startRuntime(t, "127.0.0.1:0", "SUPEX_RESPONSE_DELAY=5")
	code, _, stderr := runDriver(t, "", driverEnv(rp, "SUPEX_TIMEOUT=0.2"), "info")
	// The error names the timeout that fired, whatever the time the
	// machine took to get there.
	if code != 1 || !strings.Contains(stderr, "timed out after 200ms") {
		t.Errorf("exit %d, stderr %q; want the 200ms timeout", code, stderr)
	}
}

// shellProc is the driver example's shell, fed one command at a time.
type shellProc struct {
	in    io.WriteCloser
	lines chan string
	done  chan error
}

func startShell(t *testing.T, env []string) *shellProc {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*wait)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin.driver, "-raw", "shell")
	cmd.Env = environ(env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sp := &shellProc{in: in, lines: make(chan string, 16), done: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			sp.lines <- sc.Text()
		}
		sp.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		in.Close()
		select {
		case <-sp.done:
		case <-time.After(wait):
			cancel()
			<-sp.done
		}
	})
	return sp
}

// run sends one command and returns its output line.
func (sp *shellProc) run(t *testing.T, line string) string {
	t.Helper()
	if _, err := io.WriteString(sp.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case out := <-sp.lines:
		if strings.Contains(out, `"error"`) {
			t.Errorf("%s: %s", line, out)
		}
		return out
	case <-time.After(wait):
		t.Fatalf("no answer to %q", line)
		return ""
	}
}

// The driver drops an idle connection and says hello again on a new one.
func TestDriverReconnectsAfterIdle(t *testing.T) {
	rp := startRuntime(t, "127.0.0.1:0")
	sp := startShell(t, driverEnv(rp, "SUPEX_IDLE_TIMEOUT=0.2", "SUPEX_REUSE=1"))
	sp.run(t, "ping")
	rp.waitLog(t, reClientIdentified, 1)
	rp.waitLog(t, reClientClosed, 1) // the driver's idle timer closed it
	sp.run(t, "info")
	rp.waitLog(t, reClientIdentified, 2)
}

// The driver connects again after the runtime went away and came back.
func TestDriverReconnectsAfterError(t *testing.T) {
	first := startRuntime(t, "127.0.0.1:0")
	sp := startShell(t, driverEnv(first, "SUPEX_REUSE=1"))
	sp.run(t, "ping")
	first.waitLog(t, reClientIdentified, 1)
	first.stop()

	second := startRuntime(t, first.addr)
	if out := sp.run(t, "info"); !strings.Contains(out, `"title":"Untitled"`) {
		t.Errorf("info after the restart: %s", out)
	}
	second.waitLog(t, reClientIdentified, 1)
}
