package reginald_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/generated/reginald"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// session is the test acting as Reginald, with a spawned plugin.
type session struct {
	conn   *jsonrpc.Conn
	plugin reginald.Plugin
	proc   *transport.Process
	logs   chan *reginald.LogParams
}

// testHost implements reginald.Host, handing each log record to the test.
type testHost struct {
	reginald.UnimplementedHost
	logs chan *reginald.LogParams
}

func (h *testHost) Log(_ context.Context, p *reginald.LogParams) error {
	h.logs <- p
	return nil
}

func start(t *testing.T) *session {
	t.Helper()
	proc, err := transport.Spawn(exec.Command(bin.plugin), transport.SpawnOptions{Grace: wait})
	if err != nil {
		t.Fatal(err)
	}
	s := &session{proc: proc, logs: make(chan *reginald.LogParams, 64)}
	s.conn, s.plugin = reginald.ConnectHost(proc, &testHost{logs: s.logs}, jsonrpc.Options{})
	t.Cleanup(func() { _ = s.conn.Close() })
	return s
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return c
}

// wantCode checks that err is a JSON-RPC error with code and returns it.
func wantCode(t *testing.T, err error, code int64) *jsonrpc.Error {
	t.Helper()
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("got error %v, want code %d", err, code)
	}
	return e
}

func raw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func kv(key string, value any, typ reginald.ValueType) reginald.KeyValue {
	return reginald.KeyValue{Key: key, Value: raw(value), Type: typ}
}

// The protocol has no timeouts: Reginald waits for every answer.
func TestNoTimeouts(t *testing.T) {
	opts := reginald.Options()
	if opts.Timeout == nil {
		return
	}
	for _, m := range []string{reginald.MethodHandshake, reginald.MethodRunCommand, reginald.MethodRunTask, reginald.MethodShutdown} {
		if got := opts.Timeout(m); got != (jsonrpc.Timeout{}) {
			t.Errorf("timeout of %s = %+v, want none", m, got)
		}
	}
}

// Every error the plugin answers, with the code the protocol gives it.
func TestPluginErrors(t *testing.T) {
	s := start(t)
	_, err := s.plugin.Handshake(ctx(t), &reginald.HandshakeParams{Protocol: "rpp"})
	if e := wantCode(t, err, reginald.CodeHandshakeFailed); !strings.Contains(string(e.Data), `\"rpp\"`) {
		t.Errorf("handshake error data %s", e.Data)
	}
	if _, err := s.plugin.Handshake(ctx(t), &reginald.HandshakeParams{Protocol: "reginald"}); err != nil {
		t.Fatal(err)
	}
	huge := strings.Repeat("x", 1<<20)
	_, err = s.plugin.RunCommand(ctx(t), &reginald.RunCommandParams{Cmd: huge})
	if e := wantCode(t, err, reginald.CodeInvalidCommand); len(e.Data) > 2*jsonrpc.MaxEchoBytes {
		t.Errorf("%d bytes of error data", len(e.Data))
	}
	missing := filepath.Join(t.TempDir(), "missing")
	_, err = s.plugin.RunCommand(ctx(t), &reginald.RunCommandParams{Cmd: "status",
		Config: []reginald.KeyValue{kv("paths", []string{missing}, reginald.ValueTypePathList)}})
	if e := wantCode(t, err, reginald.CodeCommandFailed); !strings.Contains(string(e.Data), missing) {
		t.Errorf("command error data %s", e.Data)
	}
	_, err = s.plugin.RunCommand(ctx(t), &reginald.RunCommandParams{Cmd: "status",
		Config: []reginald.KeyValue{kv("verbose", "yes", reginald.ValueTypeString)}})
	wantCode(t, err, jsonrpc.CodeInvalidParams)
	_, err = s.plugin.RunTask(ctx(t), &reginald.RunTaskParams{TaskType: "link"})
	if e := wantCode(t, err, jsonrpc.CodeInvalidParams); len(e.Message) > 2*jsonrpc.MaxEchoBytes {
		t.Errorf("%d bytes of error message", len(e.Message))
	}
	if ok, err := s.plugin.Shutdown(ctx(t)); err != nil || !ok {
		t.Fatalf("shutdown: %v, %v", ok, err)
	}
	_, err = s.plugin.RunTask(ctx(t), &reginald.RunTaskParams{TaskType: "symlink"})
	wantCode(t, err, jsonrpc.CodeMethodNotFound)
	if err := s.plugin.Exit(ctx(t)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.proc.Done():
	case <-time.After(wait):
		t.Fatal("plugin still running after exit")
	}
}

// The host binary runs the plugin binary from its plugin directory: a
// symlink task, then the status command with its config set by flags;
// then the errors it reports.
func TestHostAndPluginBinaries(t *testing.T) {
	plugin := pluginDir(t, "reginald-dotfiles")
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "vimrc"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tasks := filepath.Join(work, "tasks.json")
	if err := os.WriteFile(tasks, []byte(`[{"type": "dotfiles/symlink", "config": {"src": "vimrc", "dst": "home/.vimrc"}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runHost(t, "-dir", work, "-tasks", tasks, "-set", "verbose=true", "-set", "paths=vimrc,home/.vimrc", plugin, "status")
	if err != nil || out != "task 1 (symlink): done\ncommand status: done\n" {
		t.Fatalf("host: %v, %q\n%s", err, out, errOut)
	}
	for _, want := range []string{"msg=linked", "msg=present", "msg=link ", "target=" + filepath.Join(work, "vimrc")} {
		if !strings.Contains(errOut, want) {
			t.Errorf("host log lacks %q:\n%s", want, errOut)
		}
	}
	if target, err := os.Readlink(filepath.Join(work, "home", ".vimrc")); err != nil || target != filepath.Join(work, "vimrc") {
		t.Errorf("link: %q, %v", target, err)
	}

	// -set quiet=true reaches the plugin in pluginConfig.
	_, errOut, err = runHost(t, "-dir", work, "-set", "quiet=true", "-set", "verbose=true", "-set", "paths=vimrc", plugin, "status")
	if err != nil || strings.Contains(errOut, "msg=present") {
		t.Errorf("quiet: %v\n%s", err, errOut)
	}

	_, errOut, err = runHost(t, "-dir", work, "-set", "paths=nope", plugin, "status")
	if want := "host: command status: jsonrpc error -32003: command error (data: \"missing: " + filepath.Join(work, "nope") + "\")"; exitCode(err) != 1 || !strings.Contains(errOut, want) {
		t.Errorf("missing path: %v, want %s:\n%s", err, want, errOut)
	}
	if _, errOut, err = runHost(t, plugin, "frobnicate"); exitCode(err) != 1 || !strings.Contains(errOut, `has no command "frobnicate"`) {
		t.Errorf("unknown command: %v\n%s", err, errOut)
	}
	if _, errOut, err = runHost(t, "-set", "colour=red", plugin, "status"); exitCode(err) != 1 || !strings.Contains(errOut, `unknown config key "colour"`) {
		t.Errorf("unknown key: %v\n%s", err, errOut)
	}
	wrong := pluginDir(t, "other")
	if err := os.WriteFile(filepath.Join(wrong, "manifest.json"), []byte(`{"name": "renamed", "executable": "plugin", "commands": [{"name": "status"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, err = runHost(t, wrong, "status"); exitCode(err) != 1 || !strings.Contains(errOut, `plugin calls itself "reginald-dotfiles", its manifest "renamed"`) {
		t.Errorf("name mismatch: %v\n%s", err, errOut)
	}
}

// The plugin's errors quote what the host sent truncated.
func TestPluginErrorsTruncateHostValues(t *testing.T) {
	s := start(t)
	if _, err := s.plugin.Handshake(ctx(t), &reginald.HandshakeParams{Protocol: "reginald"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	long := filepath.Join(dir, strings.Repeat("x", 200), strings.Repeat("y", 200))
	_, err := s.plugin.RunCommand(ctx(t), &reginald.RunCommandParams{Cmd: "status",
		Config: []reginald.KeyValue{kv("paths", []string{long, long, long}, reginald.ValueTypePathList)}})
	if e := wantCode(t, err, reginald.CodeCommandFailed); len(e.Data) > 2*jsonrpc.MaxEchoBytes {
		t.Errorf("%d bytes of command error data", len(e.Data))
	}
	if err := os.MkdirAll(filepath.Dir(long), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(long, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// dst exists: the error names it.
	_, err = s.plugin.RunTask(ctx(t), &reginald.RunTaskParams{TaskType: "symlink", Config: []reginald.KeyValue{
		kv("src", "elsewhere", reginald.ValueTypePath), kv("dst", long, reginald.ValueTypePath)}})
	if e := wantCode(t, err, jsonrpc.CodeInternalError); len(e.Message) > 2*jsonrpc.MaxEchoBytes {
		t.Errorf("%d bytes of task error message", len(e.Message))
	}
	_, err = s.plugin.RunCommand(ctx(t), &reginald.RunCommandParams{Cmd: "status",
		Config: []reginald.KeyValue{kv("verbose", strings.Repeat("z", 1<<16), reginald.ValueTypeString)}})
	if e := wantCode(t, err, jsonrpc.CodeInvalidParams); len(e.Message) > 2*jsonrpc.MaxEchoBytes {
		t.Errorf("%d bytes of invalid params message", len(e.Message))
	}
}
