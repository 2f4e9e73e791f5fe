package supex_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/generated/supex"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// wait bounds every wait of these tests, so a bug fails instead of hanging.
const wait = 10 * time.Second

// bin holds the example binaries, built once by TestMain.
var bin struct{ runtime, driver string }

// environ is the test's environment without SUPEX_ variables, plus env.
func environ(env ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SUPEX_") {
			out = append(out, kv)
		}
	}
	return append(out, env...)
}

// runtimeProc is a runtime example running as a child process.
type runtimeProc struct {
	addr string // where it listens
	dir  string // its output directory, an allowed root

	stop func() // stops it and waits for it to exit

	mu   sync.Mutex
	logs []string
	more chan struct{} // signalled on every new log line
}

var (
	reClientIdentified = regexp.MustCompile(`client identified`)
	reClientClosed     = regexp.MustCompile(`client closed`)
	reAuthFailed       = regexp.MustCompile(`authentication failed`)
)

var listening = regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)`)

// startRuntime starts the runtime on addr (127.0.0.1:0 for any port) with
// the given environment, and stops it when the test ends.
func startRuntime(t *testing.T, addr string, env ...string) *runtimeProc {
	t.Helper()
	return startRuntimeWith(t, addr, nil, env...)
}

// startRuntimeWith is startRuntime with extra command-line flags.
func startRuntimeWith(t *testing.T, addr string, flags []string, env ...string) *runtimeProc {
	t.Helper()
	rp := &runtimeProc{dir: filepath.Join(t.TempDir(), "rt"), more: make(chan struct{}, 1)}
	cmd := exec.Command(bin.runtime, append([]string{"-addr", addr, "-dir", rp.dir}, flags...)...)
	cmd.Env = environ(append([]string{"SUPEX_VERBOSE=1"}, env...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting runtime: %v", err)
	}
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			rp.mu.Lock()
			rp.logs = append(rp.logs, sc.Text())
			rp.mu.Unlock()
			select {
			case rp.more <- struct{}{}:
			default:
			}
		}
	}()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { <-scanned; cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(wait):
			cmd.Process.Kill()
			<-done
			t.Errorf("runtime did not stop on SIGTERM")
		}
	}
	t.Cleanup(stop)
	rp.stop = stop
	line := rp.waitLog(t, listening, 1)
	rp.addr = listening.FindStringSubmatch(line)[1]
	return rp
}

// waitLog waits until n log lines match re and returns the last of them.
func (rp *runtimeProc) waitLog(t *testing.T, re *regexp.Regexp, n int) string {
	t.Helper()
	deadline := time.After(wait)
	for {
		rp.mu.Lock()
		var hits []string
		for _, l := range rp.logs {
			if re.MatchString(l) {
				hits = append(hits, l)
			}
		}
		logs := strings.Join(rp.logs, "\n")
		rp.mu.Unlock()
		if len(hits) >= n {
			return hits[n-1]
		}
		select {
		case <-rp.more:
		case <-deadline:
			t.Fatalf("runtime logged %d lines matching %q, want %d; log:\n%s", len(hits), re, n, logs)
		}
	}
}

// dial connects to the runtime as a driver with the given options.
func dial(t *testing.T, addr string, opts jsonrpc.Options) (*jsonrpc.Conn, supex.Runtime) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	stream, err := transport.Dial(ctx, "tcp", addr)
	if err != nil {
		t.Fatalf("dialing the runtime: %v", err)
	}
	conn, rt := supex.ConnectDriver(stream, opts)
	t.Cleanup(func() { conn.Close() })
	return conn, rt
}

// helloParams are the params of a driver's hello.
func helloParams(token, workspace string) *supex.HelloParams {
	p := &supex.HelloParams{Name: "supex-e2e", Version: "0.2.0", Agent: "go-test", Pid: int64(os.Getpid())}
	if token != "" {
		p.Token = token
	}
	if workspace != "" {
		p.Workspace = workspace
	}
	return p
}

// session dials and says hello with workspace.
func session(t *testing.T, rp *runtimeProc, workspace string) (*jsonrpc.Conn, supex.Runtime) {
	t.Helper()
	conn, rt := dial(t, rp.addr, jsonrpc.Options{})
	res, err := rt.Hello(ctxT(t), helloParams("", workspace))
	if err != nil {
		t.Fatalf("hello: %v", err)
	}
	if !res.Success || res.Server.Name != "supex-runtime" || res.Message != "Client identified" {
		t.Fatalf("hello answered %+v", res)
	}
	return conn, rt
}

// ctxT is a context bounded by wait and the test.
func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return ctx
}

// call runs a tool and decodes its result into out.
func call(t *testing.T, rt supex.Runtime, name supex.ToolName, args any, out any) error {
	t.Helper()
	p := &supex.ToolsCallParams{Name: name}
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &p.Arguments); err != nil {
			t.Fatal(err)
		}
	}
	res, err := rt.ToolsCall(ctxT(t), p)
	if err != nil {
		return err
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: decoding %s: %v", name, b, err)
		}
	}
	return nil
}

// wantCode checks that err is a JSON-RPC error with code, matching sentinel.
func wantCode(t *testing.T, err error, sentinel *jsonrpc.Error) *jsonrpc.Error {
	t.Helper()
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || !errors.Is(err, sentinel) {
		t.Fatalf("got error %v, want code %d", err, sentinel.Code)
	}
	switch sentinel.Code {
	case jsonrpc.CodeInvalidRequest, supex.CodeRuby, supex.CodeAuthenticationFailed, supex.CodePathAccessDenied:
		var data supex.ErrorData
		if err := json.Unmarshal(rpcErr.Data, &data); err != nil || data.Success {
			t.Errorf("error data %s: want {success: false}", rpcErr.Data)
		}
	}
	return rpcErr
}

// runDriver runs the driver example and returns its exit code, stdout and
// stderr.
func runDriver(t *testing.T, stdin string, env []string, args ...string) (int, string, string) {
	t.Helper()
	return runBin(t, bin.driver, stdin, env, args...)
}

// runBin runs an example binary with stdin and env added to the test's
// environment, and returns its exit code, stdout and stderr.
func runBin(t *testing.T, path, stdin string, env []string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = environ(env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running driver: %v", err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}
