package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/generated/reginald"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// The protocol this plugin speaks.
const (
	protocolName    = "reginald"
	protocolVersion = 0
)

// plugin implements reginald.Plugin for the dotfiles plugin.
type plugin struct {
	reginald.UnimplementedPlugin
	name string

	mu       sync.Mutex
	shutdown bool

	exitOnce sync.Once
	exited   chan struct{}
}

func newPlugin(name string) *plugin {
	return &plugin{name: name, exited: make(chan struct{})}
}

// Handshake checks the protocol and names the plugin. Like Reginald's own
// plugins, it answers another protocol or version with HandshakeFailed.
func (p *plugin) Handshake(_ context.Context, params *reginald.HandshakeParams) (*reginald.HandshakeResult, error) {
	if params.Protocol != protocolName || params.ProtocolVersion != protocolVersion {
		why := fmt.Sprintf("expected protocol %q version %d, got %q version %d",
			protocolName, protocolVersion, jsonrpc.Truncate(params.Protocol), params.ProtocolVersion)
		return nil, reginald.NewHandshakeFailedError(raw(why))
	}
	return &reginald.HandshakeResult{Name: p.name, Protocol: protocolName, ProtocolVersion: protocolVersion}, nil
}

// RunCommand runs "status": it checks the paths of its config.
func (p *plugin) RunCommand(ctx context.Context, params *reginald.RunCommandParams) (*reginald.RunCommandResult, error) {
	if params.Cmd != "status" {
		return nil, reginald.NewInvalidCommandError(raw(jsonrpc.Truncate(params.Cmd)))
	}
	values, err := configValues(params.Config, entryDefaults(statusConfigs))
	if err != nil {
		return nil, invalidParams(err)
	}
	pvalues, err := configValues(params.PluginConfig, entryDefaults(pluginConfigs))
	if err != nil {
		return nil, invalidParams(fmt.Errorf("pluginConfig: %w", err))
	}
	paths := values["paths"].([]string)
	verbose := values["verbose"].(bool) && !pvalues["quiet"].(bool)
	var missing []string
	for _, path := range paths {
		fi, err := os.Lstat(path)
		switch {
		case err != nil:
			missing = append(missing, path)
			p.log(ctx, reginald.LogLevelWarn, "missing", "path", path)
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			if verbose {
				p.log(ctx, reginald.LogLevelInfo, "link", "path", path, "target", target)
			}
		case verbose:
			p.log(ctx, reginald.LogLevelInfo, "present", "path", path)
		}
	}
	if len(missing) > 0 {
		return nil, reginald.NewCommandFailedError(raw(jsonrpc.Truncate("missing: " + strings.Join(missing, ", "))))
	}
	return &reginald.RunCommandResult{}, nil
}

// RunTask runs a "symlink" task: it makes dst a symbolic link to src.
// Reginald resolves both paths before it sends them; a relative one is
// taken from the plugin's working directory. An existing link to src is
// left alone; anything else at dst is replaced only with force.
func (p *plugin) RunTask(ctx context.Context, params *reginald.RunTaskParams) (*reginald.RunTaskResult, error) {
	if params.TaskType != taskSymlink {
		return nil, invalidParams(fmt.Errorf("unknown task type %q", jsonrpc.Truncate(params.TaskType)))
	}
	values, err := configValues(params.Config, valueDefaults(symlinkConfigs))
	if err != nil {
		return nil, invalidParams(err)
	}
	src, dst, force := values["src"].(string), values["dst"].(string), values["force"].(bool)
	if src == "" || dst == "" {
		return nil, taskFailed(fmt.Errorf("%s: src and dst are required", taskSymlink))
	}
	src, dst = resolve(src), resolve(dst)
	if target, err := os.Readlink(dst); err == nil && target == src {
		p.log(ctx, reginald.LogLevelInfo, "already linked", "src", src, "dst", dst)
		return &reginald.RunTaskResult{}, nil
	}
	if _, err := os.Lstat(dst); err == nil {
		if !force {
			return nil, taskFailed(fmt.Errorf("%s: %s exists; set force to replace it", taskSymlink, jsonrpc.Truncate(dst)))
		}
		if err := os.Remove(dst); err != nil {
			return nil, taskFailed(fmt.Errorf("%s: replace %s: %w", taskSymlink, jsonrpc.Truncate(dst), err))
		}
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return nil, taskFailed(fmt.Errorf("%s: %s", taskSymlink, jsonrpc.Truncate(err.Error())))
	}
	if err := os.Symlink(src, dst); err != nil {
		return nil, taskFailed(fmt.Errorf("%s: %s", taskSymlink, jsonrpc.Truncate(err.Error())))
	}
	p.log(ctx, reginald.LogLevelInfo, "linked", "src", src, "dst", dst)
	return &reginald.RunTaskResult{}, nil
}

// Shutdown makes the plugin refuse further requests until exit.
func (p *plugin) Shutdown(ctx context.Context) (bool, error) {
	p.mu.Lock()
	p.shutdown = true
	p.mu.Unlock()
	p.log(ctx, reginald.LogLevelDebug, "shutting down")
	return true, nil
}

// Exit lets main return.
func (p *plugin) Exit(context.Context) error {
	p.exitOnce.Do(func() { close(p.exited) })
	return nil
}

// shutdownGate answers every request but exit with MethodNotFound once
// shutdown has been answered, as Reginald's example plugin does.
func (p *plugin) shutdownGate(next jsonrpc.Handler) jsonrpc.Handler {
	return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		p.mu.Lock()
		down := p.shutdown
		p.mu.Unlock()
		if down && req.Method != reginald.MethodExit {
			msg := fmt.Sprintf("%s is not available after shutdown", jsonrpc.Truncate(req.Method))
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, msg, nil)
		}
		return next.Handle(ctx, req)
	})
}

// log sends a log notification to Reginald, which filters by level.
// kvs are attribute keys and values in turn.
func (p *plugin) log(ctx context.Context, level reginald.LogLevel, msg string, kvs ...any) {
	params := &reginald.LogParams{Time: time.Now().UTC().Format(time.RFC3339Nano), Msg: msg, Level: level}
	for i := 0; i+1 < len(kvs); i += 2 {
		params.Attrs = append(params.Attrs, reginald.LogAttr{Key: fmt.Sprint(kvs[i]), Value: raw(kvs[i+1])})
	}
	host := reginald.NewHostRemote(jsonrpc.ConnFromContext(ctx))
	// A failed log notification only means the connection is going away.
	_ = host.Log(ctx, params)
}

func invalidParams(err error) error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, err.Error(), nil)
}

// taskFailed reports a failed task. The protocol has no code for it
// (Reginald reports any error the same way); this plugin sends
// InternalError with the reason as the message.
func taskFailed(err error) error {
	return jsonrpc.NewError(jsonrpc.CodeInternalError, err.Error(), nil)
}

// resolve expands a leading ~/ and makes path absolute.
func resolve(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}
