package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rpcgen/rpcgen/examples/reginald/internal/loglevel"
	"github.com/rpcgen/rpcgen/generated/reginald"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

const version = "1.0.0"

// plugin implements reginald.Plugin for the dotfiles plugin.
type plugin struct {
	reginald.UnimplementedPlugin
	name string

	mu       sync.Mutex
	dryRun   bool
	logging  reginald.LoggingConfig
	cmdArgs  map[string][]string // positional arguments from setupCommand
	verbose  bool
	shutdown bool

	exitOnce sync.Once
	exited   chan struct{}
}

func newPlugin(name string) *plugin {
	return &plugin{
		name:    name,
		logging: reginald.LoggingConfig{Enabled: true, Level: reginald.LogLevelInfo},
		cmdArgs: map[string][]string{},
		exited:  make(chan struct{}),
	}
}

func ptr[T any](v T) *T { return &v }

func raw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// Config entries and their defaults, as announced in the handshake.
var (
	pluginConfigs = []reginald.ConfigEntry{{
		Key: "dry-run", Value: raw(false), Type: reginald.ValueTypeBool,
		Flag: &reginald.Flag{Shorthand: ptr("n"), Usage: ptr("Only report what the plugin would change.")},
	}}
	statusConfigs = []reginald.ConfigEntry{{
		Key: "verbose", Value: raw(false), Type: reginald.ValueTypeBool,
		Flag: &reginald.Flag{Shorthand: ptr("v"), Usage: ptr("Also log the paths that are present.")},
	}}
	linkConfigs = []reginald.KeyValue{
		{Key: "src", Value: raw(""), Type: reginald.ValueTypeString},
		{Key: "dst", Value: raw(""), Type: reginald.ValueTypeString},
		{Key: "force", Value: raw(false), Type: reginald.ValueTypeBool},
	}
)

// Handshake announces the plugin's identity, command and task.
func (p *plugin) Handshake(_ context.Context, params *reginald.HandshakeParams) (*reginald.HandshakeResult, error) {
	return &reginald.HandshakeResult{
		Protocol:        params.Protocol,
		ProtocolVersion: params.ProtocolVersion,
		Name:            p.name,
		Version:         version,
		Configs:         pluginConfigs,
		Commands:        []reginald.CommandInfo{{Name: "status", Usage: "status PATH...", Configs: statusConfigs}},
		Tasks:           []reginald.TaskInfo{{Type: "link", Configs: linkConfigs}},
	}, nil
}

// Initialize takes the plugin-wide config and the logging settings.
func (p *plugin) Initialize(ctx context.Context, params *reginald.InitializeParams) (*reginald.InitializeResult, error) {
	values, err := configValues(entriesToKV(params.Config), kvToMap(entriesToKV(pluginConfigs)))
	if err != nil {
		return nil, invalidParams(err)
	}
	if _, ok := loglevel.Value(params.Logging.Level); !ok {
		return nil, invalidParams(fmt.Errorf("logging.level: %q is not a level such as INFO or INFO+2", jsonrpc.Truncate(string(params.Logging.Level))))
	}
	p.mu.Lock()
	p.dryRun = values["dry-run"].(bool)
	p.logging = params.Logging
	p.mu.Unlock()
	p.log(ctx, reginald.LogLevelDebug, "initialized", map[string]any{"dry-run": p.dryRun})
	return &reginald.InitializeResult{}, nil
}

// SetupCommand records a command's arguments and config.
func (p *plugin) SetupCommand(_ context.Context, params *reginald.SetupCommandParams) (*reginald.SetupCommandResult, error) {
	if params.Name != "status" {
		return nil, invalidParams(fmt.Errorf("unknown command %q", jsonrpc.Truncate(params.Name)))
	}
	values, err := configValues(entriesToKV(params.Config), kvToMap(entriesToKV(statusConfigs)))
	if err != nil {
		return nil, invalidParams(err)
	}
	if len(params.Args) == 0 {
		return nil, invalidParams(errors.New("status needs at least one path"))
	}
	p.mu.Lock()
	p.cmdArgs[params.Name] = params.Args
	p.verbose = values["verbose"].(bool)
	p.mu.Unlock()
	return &reginald.SetupCommandResult{}, nil
}

// RunCommand runs "status" with the arguments from SetupCommand.
func (p *plugin) RunCommand(ctx context.Context, params *reginald.RunCommandParams) (*reginald.RunCommandResult, error) {
	p.mu.Lock()
	args, ok := p.cmdArgs[params.Name]
	verbose := p.verbose
	p.mu.Unlock()
	if !ok {
		return nil, invalidParams(fmt.Errorf("command %q was not set up", jsonrpc.Truncate(params.Name)))
	}
	var missing []string
	for _, path := range args {
		fi, err := os.Lstat(path)
		switch {
		case err != nil:
			missing = append(missing, path)
			p.log(ctx, reginald.LogLevelWarn, "missing", map[string]any{"path": path})
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			if verbose {
				p.log(ctx, reginald.LogLevelInfo, "link", map[string]any{"path": path, "target": target})
			}
		case verbose:
			p.log(ctx, reginald.LogLevelInfo, "present", map[string]any{"path": path})
		}
	}
	if len(missing) > 0 {
		return nil, reginald.NewCommandFailedError("missing: " + strings.Join(missing, ", "))
	}
	return &reginald.RunCommandResult{}, nil
}

// ValidateTask checks a link task's config: known keys of the right types,
// and src and dst given together.
func (p *plugin) ValidateTask(_ context.Context, params *reginald.ValidateTaskParams) (*reginald.ValidateTaskResult, error) {
	if params.Type != "link" {
		return nil, invalidParams(fmt.Errorf("unknown task type %q", jsonrpc.Truncate(params.Type)))
	}
	values, err := configValues(params.Config, kvToMap(linkConfigs))
	if err != nil {
		return nil, jsonrpc.NewError(reginald.CodeInvalidConfig, err.Error(), nil)
	}
	if (values["src"] == "") != (values["dst"] == "") {
		return nil, jsonrpc.NewError(reginald.CodeInvalidConfig, "link: src and dst go together", nil)
	}
	return &reginald.ValidateTaskResult{}, nil
}

// RunTask makes dst a symbolic link to src, both relative to the run's
// directory. An existing link to src is left alone; anything else at dst is
// replaced only with force.
func (p *plugin) RunTask(ctx context.Context, params *reginald.RunTaskParams) (*reginald.RunTaskResult, error) {
	if params.Type != "link" {
		return nil, invalidParams(fmt.Errorf("unknown task type %q", jsonrpc.Truncate(params.Type)))
	}
	values, err := configValues(params.Config, kvToMap(linkConfigs))
	if err != nil {
		return nil, invalidParams(err)
	}
	src, dst, force := values["src"].(string), values["dst"].(string), values["force"].(bool)
	if src == "" || dst == "" {
		return nil, taskFailed(errors.New("link: src and dst are required"))
	}
	src, dst = resolve(params.Dir, src), resolve(params.Dir, dst)
	fields := map[string]any{"src": src, "dst": dst}
	if target, err := os.Readlink(dst); err == nil && target == src {
		p.log(ctx, reginald.LogLevelInfo, "already linked", fields)
		return &reginald.RunTaskResult{}, nil
	}
	p.mu.Lock()
	dryRun := p.dryRun
	p.mu.Unlock()
	if dryRun {
		p.log(ctx, reginald.LogLevelInfo, "would link", fields)
		return &reginald.RunTaskResult{}, nil
	}
	if _, err := os.Lstat(dst); err == nil {
		if !force {
			return nil, taskFailed(fmt.Errorf("link: %s exists; set force to replace it", dst))
		}
		if err := os.Remove(dst); err != nil {
			return nil, taskFailed(fmt.Errorf("link: replace %s: %w", dst, err))
		}
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return nil, taskFailed(fmt.Errorf("link: %w", err))
	}
	if err := os.Symlink(src, dst); err != nil {
		return nil, taskFailed(fmt.Errorf("link: %w", err))
	}
	p.log(ctx, reginald.LogLevelInfo, "linked", fields)
	return &reginald.RunTaskResult{}, nil
}

// Shutdown makes the plugin refuse further requests until exit.
func (p *plugin) Shutdown(ctx context.Context) (*bool, error) {
	p.mu.Lock()
	p.shutdown = true
	p.mu.Unlock()
	p.log(ctx, reginald.LogLevelDebug, "shutting down", nil)
	return ptr(true), nil
}

// Exit lets main return.
func (p *plugin) Exit(context.Context) error {
	p.exitOnce.Do(func() { close(p.exited) })
	return nil
}

// shutdownGate answers every request but exit with InvalidRequest once
// shutdown has been answered.
func (p *plugin) shutdownGate(next jsonrpc.Handler) jsonrpc.Handler {
	return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		p.mu.Lock()
		down := p.shutdown
		p.mu.Unlock()
		if down && req.Method != reginald.MethodExit {
			msg := fmt.Sprintf("%s called after shutdown", req.Method)
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, msg, nil)
		}
		return next.Handle(ctx, req)
	})
}

// log sends a log notification to Reginald unless its logging settings
// would drop it.
func (p *plugin) log(ctx context.Context, level reginald.LogLevel, msg string, fields map[string]any) {
	p.mu.Lock()
	cfg := p.logging
	p.mu.Unlock()
	least, _ := loglevel.Value(cfg.Level) // read by Initialize
	if l, _ := loglevel.Value(level); !cfg.Enabled || l < least {
		return
	}
	params := &reginald.LogParams{Level: level, Msg: msg}
	if len(fields) > 0 {
		params.Fields = map[string]json.RawMessage{}
		for k, v := range fields {
			params.Fields[k] = raw(v)
		}
	}
	host := reginald.NewHostRemote(jsonrpc.ConnFromContext(ctx))
	// A failed log notification only means the connection is going away.
	_ = host.Log(ctx, params)
}

func invalidParams(err error) error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, err.Error(), nil)
}

// taskFailed reports a failed task as upstream does: InternalError with
// the reason as the message.
func taskFailed(err error) error {
	return jsonrpc.NewError(jsonrpc.CodeInternalError, err.Error(), nil)
}

func resolve(dir, path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(dir, path)
}
