package reginald_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/generated/reginald"
	"github.com/rpcgen/rpcgen/internal/exampletest"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// wait bounds every wait of these tests.
const wait = 10 * time.Second

// bin holds the example binaries built by TestMain.
var bin struct{ host, plugin string }

func TestMain(m *testing.M) {
	exampletest.Main(m, map[string]*string{"./host": &bin.host, "./plugin": &bin.plugin})
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

// session is the test acting as Reginald, with a spawned plugin.
type session struct {
	conn   *jsonrpc.Conn
	plugin reginald.Plugin
	proc   *transport.Process
	logs   chan *reginald.LogParams
}

// start spawns the plugin binary with args and connects to it; timeout,
// when not nil, replaces the generated default timeouts.
func start(t *testing.T, timeout func(string) jsonrpc.Timeout, args ...string) *session {
	t.Helper()
	proc, err := transport.Spawn(exec.Command(bin.plugin, args...), transport.SpawnOptions{Grace: wait})
	if err != nil {
		t.Fatal(err)
	}
	s := &session{proc: proc, logs: make(chan *reginald.LogParams, 64)}
	s.conn, s.plugin = reginald.ConnectHost(proc, &testHost{logs: s.logs}, jsonrpc.Options{Timeout: timeout})
	t.Cleanup(func() { _ = s.conn.Close() })
	return s
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return c
}

// handshake runs the handshake and checks the plugin's announcement.
func (s *session) handshake(t *testing.T) *reginald.HandshakeResult {
	t.Helper()
	hs, err := s.plugin.Handshake(context.Background(), &reginald.HandshakeParams{Protocol: "rpp"})
	if err != nil {
		t.Fatalf("handshake: %v", err)
	}
	if hs.Protocol != "rpp" || hs.ProtocolVersion != 0 || hs.Name != "dotfiles" || hs.Version == "" {
		t.Fatalf("handshake result %+v", hs)
	}
	return hs
}

func (s *session) initialize(t *testing.T, level reginald.LogLevel, cfg ...reginald.ConfigEntry) {
	t.Helper()
	_, err := s.plugin.Initialize(ctx(t), &reginald.InitializeParams{
		Config: cfg, Logging: reginald.LoggingConfig{Enabled: true, Level: level},
	})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
}

// nextLog returns the next log record the plugin sent.
func (s *session) nextLog(t *testing.T) *reginald.LogParams {
	t.Helper()
	select {
	case p := <-s.logs:
		return p
	case <-time.After(wait):
		t.Fatal("no log notification")
		return nil
	}
}

// field decodes a log record's field.
func field(t *testing.T, p *reginald.LogParams, key string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(p.Fields[key], &v); err != nil {
		t.Fatalf("field %s of %+v: %v", key, p, err)
	}
	return v
}

func raw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func kv(key string, value any, typ reginald.ValueType) reginald.KeyValue {
	return reginald.KeyValue{Key: key, Value: raw(value), Type: typ}
}

// exited waits for the plugin process to end.
func (s *session) exited(t *testing.T) {
	t.Helper()
	select {
	case <-s.proc.Done():
	case <-time.After(wait):
		t.Fatal("plugin process still running")
	}
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

func TestTimeoutsMatchIDL(t *testing.T) {
	opts := reginald.Options()
	want := map[string]jsonrpc.Timeout{
		reginald.MethodHandshake:    {After: 5 * time.Second, Action: jsonrpc.TimeoutKill},
		reginald.MethodInitialize:   {After: 5 * time.Second, Action: jsonrpc.TimeoutFail},
		reginald.MethodSetupCommand: {After: 5 * time.Second, Action: jsonrpc.TimeoutFail},
		reginald.MethodValidateTask: {After: 5 * time.Second, Action: jsonrpc.TimeoutFail},
		reginald.MethodRunCommand:   {},
		reginald.MethodRunTask:      {},
		reginald.MethodShutdown:     {After: 15 * time.Second, Action: jsonrpc.TimeoutKill},
	}
	for m, w := range want {
		if got := opts.Timeout(m); got != w {
			t.Errorf("timeout of %s = %+v, want %+v", m, got, w)
		}
	}
}

// TestSession drives every method in order, as Reginald does, and checks
// the plugin's effects and log notifications.
func TestSession(t *testing.T) {
	s := start(t, nil)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "vimrc"), nil, 0o644); err != nil {
		t.Fatal(err)
	}

	hs := s.handshake(t)
	if len(hs.Commands) != 1 || hs.Commands[0].Name != "status" || len(hs.Tasks) != 1 || hs.Tasks[0].Type != "link" {
		t.Fatalf("commands %+v, tasks %+v", hs.Commands, hs.Tasks)
	}
	if len(hs.Configs) != 1 || hs.Configs[0].Key != "dry-run" || hs.Configs[0].Flag == nil {
		t.Fatalf("plugin configs %+v", hs.Configs)
	}

	s.initialize(t, reginald.LogLevelDebug, reginald.ConfigEntry{Key: "dry-run", Value: raw(false), Type: reginald.ValueTypeBool})
	if p := s.nextLog(t); p.Msg != "initialized" || p.Level != reginald.LogLevelDebug || field(t, p, "dry-run") != false {
		t.Errorf("initialize log %+v", p)
	}

	// Tasks: defaults, then a real config, then the run.
	if _, err := s.plugin.ValidateTask(ctx(t), &reginald.ValidateTaskParams{Type: "link", Config: hs.Tasks[0].Configs}); err != nil {
		t.Fatalf("validate defaults: %v", err)
	}
	cfg := []reginald.KeyValue{kv("src", "vimrc", reginald.ValueTypeString), kv("dst", "home/.vimrc", reginald.ValueTypeString)}
	if _, err := s.plugin.ValidateTask(ctx(t), &reginald.ValidateTaskParams{Type: "link", Config: cfg}); err != nil {
		t.Fatalf("validate: %v", err)
	}
	if _, err := s.plugin.RunTask(ctx(t), &reginald.RunTaskParams{Type: "link", Dir: dir, Config: cfg}); err != nil {
		t.Fatalf("run task: %v", err)
	}
	if p := s.nextLog(t); p.Msg != "linked" || field(t, p, "dst") != filepath.Join(dir, "home/.vimrc") {
		t.Errorf("task log %+v", p)
	}
	if target, err := os.Readlink(filepath.Join(dir, "home/.vimrc")); err != nil || target != filepath.Join(dir, "vimrc") {
		t.Errorf("link: %q, %v", target, err)
	}

	// The command, with its flag-bound config set.
	_, err := s.plugin.SetupCommand(ctx(t), &reginald.SetupCommandParams{
		Name:   "status",
		Args:   []string{filepath.Join(dir, "vimrc"), filepath.Join(dir, "home/.vimrc")},
		Config: []reginald.ConfigEntry{{Key: "verbose", Value: raw(true), Type: reginald.ValueTypeBool}},
	})
	if err != nil {
		t.Fatalf("setup command: %v", err)
	}
	if _, err := s.plugin.RunCommand(ctx(t), &reginald.RunCommandParams{Name: "status"}); err != nil {
		t.Fatalf("run command: %v", err)
	}
	if p := s.nextLog(t); p.Msg != "present" || p.Level != reginald.LogLevelInfo {
		t.Errorf("first status log %+v", p)
	}
	if p := s.nextLog(t); p.Msg != "link" || field(t, p, "target") != filepath.Join(dir, "vimrc") {
		t.Errorf("second status log %+v", p)
	}

	// Shutdown, then every request is refused until exit.
	ok, err := s.plugin.Shutdown(ctx(t))
	if err != nil || ok == nil || !*ok {
		t.Fatalf("shutdown: %v, %v", ok, err)
	}
	_, err = s.plugin.RunCommand(ctx(t), &reginald.RunCommandParams{Name: "status"})
	if !errors.Is(err, jsonrpc.ErrInvalidRequest) {
		t.Errorf("call after shutdown: %v, want InvalidRequest", err)
	}
	if err := s.plugin.Exit(ctx(t)); err != nil {
		t.Fatal(err)
	}
	s.exited(t)
	if err := s.proc.ExitErr(); err != nil {
		t.Errorf("plugin exit: %v", err)
	}
}

// TestErrors provokes every error code the protocol declares.
func TestErrors(t *testing.T) {
	s := start(t, nil)
	dir := t.TempDir()
	s.handshake(t)

	// Wrong protocol version on the wire: the params do not decode.
	var res json.RawMessage
	err := s.conn.Call(ctx(t), reginald.MethodHandshake, map[string]any{"protocol": "rpp", "protocolVersion": 1}, &res)
	wantCode(t, err, jsonrpc.CodeInvalidParams)
	err = s.conn.Call(ctx(t), "installRuntime", nil, &res)
	wantCode(t, err, jsonrpc.CodeMethodNotFound)

	_, err = s.plugin.Initialize(ctx(t), &reginald.InitializeParams{
		Config:  []reginald.ConfigEntry{{Key: "colour", Value: raw(true), Type: reginald.ValueTypeBool}},
		Logging: reginald.LoggingConfig{Enabled: true, Level: reginald.LogLevelInfo},
	})
	if e := wantCode(t, err, jsonrpc.CodeInvalidParams); !strings.Contains(e.Message, "colour") {
		t.Errorf("initialize error %v", e)
	}
	s.initialize(t, reginald.LogLevelWarn)

	_, err = s.plugin.SetupCommand(ctx(t), &reginald.SetupCommandParams{Name: "frobnicate", Args: []string{}})
	wantCode(t, err, jsonrpc.CodeInvalidParams)
	_, err = s.plugin.RunCommand(ctx(t), &reginald.RunCommandParams{Name: "status"})
	wantCode(t, err, jsonrpc.CodeInvalidParams) // not set up

	// CommandFailed with its data; the warn level filters the info record
	// of the present path out, so the first record is the missing one.
	present, missing := filepath.Join(dir, "present"), filepath.Join(dir, "missing")
	if err := os.WriteFile(present, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = s.plugin.SetupCommand(ctx(t), &reginald.SetupCommandParams{
		Name: "status", Args: []string{present, missing},
		Config: []reginald.ConfigEntry{{Key: "verbose", Value: raw(true), Type: reginald.ValueTypeBool}},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.plugin.RunCommand(ctx(t), &reginald.RunCommandParams{Name: "status"})
	if !errors.Is(err, reginald.ErrCommandFailed) {
		t.Fatalf("run command: %v, want CommandFailed", err)
	}
	if e := wantCode(t, err, reginald.CodeCommandFailed); string(e.Data) != `"missing: `+missing+`"` {
		t.Errorf("command failed data %s", e.Data)
	}
	if p := s.nextLog(t); p.Msg != "missing" || p.Level != reginald.LogLevelWarn || field(t, p, "path") != missing {
		t.Errorf("log %+v", p)
	}

	// InvalidConfig from validateTask, InvalidParams for an unknown type.
	for _, cfg := range [][]reginald.KeyValue{
		{kv("force", "yes", reginald.ValueTypeString)},
		{kv("src", "a", reginald.ValueTypeString)},
		{kv("mode", 644, reginald.ValueTypeInt)},
	} {
		_, err = s.plugin.ValidateTask(ctx(t), &reginald.ValidateTaskParams{Type: "link", Config: cfg})
		if !errors.Is(err, reginald.ErrInvalidConfig) {
			t.Errorf("validate %s: %v, want InvalidConfig", raw(cfg), err)
		}
	}
	_, err = s.plugin.ValidateTask(ctx(t), &reginald.ValidateTaskParams{Type: "copy"})
	wantCode(t, err, jsonrpc.CodeInvalidParams)

	// A failing task is InternalError with the reason as the message.
	cfg := []reginald.KeyValue{kv("src", "present", reginald.ValueTypeString), kv("dst", "present", reginald.ValueTypeString)}
	_, err = s.plugin.RunTask(ctx(t), &reginald.RunTaskParams{Type: "link", Dir: dir, Config: cfg})
	if e := wantCode(t, err, jsonrpc.CodeInternalError); !strings.Contains(e.Message, "exists") {
		t.Errorf("run task error %v", e)
	}

	// Shutdown twice: the second is refused with InvalidRequest.
	if _, err := s.plugin.Shutdown(ctx(t)); err != nil {
		t.Fatal(err)
	}
	_, err = s.plugin.Shutdown(ctx(t))
	wantCode(t, err, jsonrpc.CodeInvalidRequest)
	if err := s.plugin.Exit(ctx(t)); err != nil {
		t.Fatal(err)
	}
	s.exited(t)
}

// scaled keeps the IDL's timeout actions but waits only d for the methods
// named, which the test makes the plugin delay; every other method keeps
// its generous default, so that a loaded machine cannot time out the
// handshake that precedes the call under test.
func scaled(d time.Duration, methods ...string) func(string) jsonrpc.Timeout {
	return func(method string) jsonrpc.Timeout {
		to := reginald.Options().Timeout(method)
		if to.After > 0 && slices.Contains(methods, method) {
			to.After = d
		}
		return to
	}
}

// TestTimeoutKillsPlugin: a plugin that does not answer the handshake, or
// shutdown, is killed.
func TestTimeoutKillsPlugin(t *testing.T) {
	for _, method := range []string{reginald.MethodHandshake, reginald.MethodShutdown} {
		t.Run(method, func(t *testing.T) {
			s := start(t, scaled(200*time.Millisecond, method), "-delay", method+"=1h")
			var err error
			if method == reginald.MethodHandshake {
				_, err = s.plugin.Handshake(context.Background(), &reginald.HandshakeParams{})
			} else {
				s.handshake(t)
				_, err = s.plugin.Shutdown(context.Background())
			}
			var te *jsonrpc.TimeoutError
			if !errors.As(err, &te) || te.Method != method || te.Timeout != 200*time.Millisecond {
				t.Fatalf("%s: %v, want a 200ms timeout", method, err)
			}
			s.exited(t)
			if s.proc.ExitErr() == nil {
				t.Error("plugin exited cleanly; want it killed")
			}
		})
	}
}

// TestTimeoutReportsError: the quick configuration calls time out with an
// error and leave the plugin running.
func TestTimeoutReportsError(t *testing.T) {
	s := start(t, scaled(100*time.Millisecond, reginald.MethodInitialize, reginald.MethodSetupCommand, reginald.MethodValidateTask),
		"-delay", "initialize=1h", "-delay", "setupCommand=1h", "-delay", "validateTask=1h")
	s.handshake(t)
	calls := map[string]func() error{
		reginald.MethodInitialize: func() error {
			_, err := s.plugin.Initialize(context.Background(), &reginald.InitializeParams{Logging: reginald.LoggingConfig{Level: reginald.LogLevelInfo}})
			return err
		},
		reginald.MethodSetupCommand: func() error {
			_, err := s.plugin.SetupCommand(context.Background(), &reginald.SetupCommandParams{Name: "status", Args: []string{"x"}})
			return err
		},
		reginald.MethodValidateTask: func() error {
			_, err := s.plugin.ValidateTask(context.Background(), &reginald.ValidateTaskParams{Type: "link"})
			return err
		},
	}
	for method, call := range calls {
		if err := call(); !errors.Is(err, jsonrpc.ErrTimeout) {
			t.Errorf("%s: %v, want a timeout", method, err)
		}
	}
	select {
	case <-s.proc.Done():
		t.Fatal("plugin ended after an error-action timeout")
	default:
	}
	// The connection still works: runTask has no timeout and answers.
	_, err := s.plugin.RunTask(ctx(t), &reginald.RunTaskParams{Type: "link", Dir: t.TempDir()})
	wantCode(t, err, jsonrpc.CodeInternalError) // src and dst are required
	if _, err := s.plugin.Shutdown(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := s.plugin.Exit(ctx(t)); err != nil {
		t.Fatal(err)
	}
	s.exited(t)
}

// runHost runs the host binary and returns its stdout, stderr and error.
func runHost(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx(t), bin.host, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// pluginDir installs the plugin binary in a plugin directory with a
// manifest naming it name and giving entrypoint.
func pluginDir(t *testing.T, name string, entrypoint any) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(bin.plugin)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "dotfiles"), data, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "reginald-plugin.json"), raw(map[string]any{"name": name, "entrypoint": entrypoint}), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestHostAndPluginBinaries runs the two example programs together.
func TestHostAndPluginBinaries(t *testing.T) {
	plugin := pluginDir(t, "dotfiles", nil)
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "gitconfig"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tasks := filepath.Join(work, "tasks.json")
	spec := `[{"type": "link", "config": {"src": "gitconfig", "dst": "home/.gitconfig"}}]`
	if err := os.WriteFile(tasks, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}

	out, errOut, err := runHost(t, "-log-level", "debug", "-tasks", tasks, "-dir", work, "-set", "verbose=true", plugin, "status", filepath.Join(work, "gitconfig"))
	if err != nil {
		t.Fatalf("host: %v\n%s", err, errOut)
	}
	if out != "task 1 (link): done\ncommand status: done\n" {
		t.Errorf("stdout %q", out)
	}
	if !strings.Contains(errOut, "msg=initialized") || !strings.Contains(errOut, "msg=linked") || !strings.Contains(errOut, "msg=present") {
		t.Errorf("plugin logs missing from stderr:\n%s", errOut)
	}
	if _, err := os.Readlink(filepath.Join(work, "home/.gitconfig")); err != nil {
		t.Error(err)
	}

	out, _, err = runHost(t, "-list", plugin)
	var hs reginald.HandshakeResult
	if err != nil || json.Unmarshal([]byte(out), &hs) != nil || hs.Name != "dotfiles" {
		t.Errorf("-list: %v, %q", err, out)
	}

	// A failing command and a manifest naming another plugin fail the run.
	_, errOut, err = runHost(t, plugin, "status", filepath.Join(work, "nothing"))
	if code := exitCode(err); code != 1 || !strings.Contains(errOut, "Command failed") {
		t.Errorf("failing command: exit %d\n%s", code, errOut)
	}
	other := pluginDir(t, "other", map[string]any{"command": []string{"./dotfiles", "-name", "dotfiles"}})
	_, errOut, err = runHost(t, other)
	if code := exitCode(err); code != 1 || !strings.Contains(errOut, "manifest") {
		t.Errorf("name mismatch: exit %d\n%s", code, errOut)
	}
	if _, _, err := runHost(t, "-h"); err != nil {
		t.Errorf("-h: %v", err)
	}
	if _, _, err := runHost(t); exitCode(err) != 2 {
		t.Errorf("no arguments: %v, want exit 2", err)
	}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// The plugin ends on the exit notification alone, while Reginald still
// holds its stdin open, and exits cleanly.
func TestExitWithStdinStillOpen(t *testing.T) {
	s := start(t, nil)
	s.handshake(t)
	if err := s.plugin.Exit(ctx(t)); err != nil {
		t.Fatal(err)
	}
	s.exited(t) // nothing on our side closed the pipe
	if err := s.proc.ExitErr(); err != nil {
		t.Errorf("plugin exit: %v, want status 0", err)
	}
}
