package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"slices"
	"strings"

	"github.com/rpcgen/rpcgen/examples/reginald/internal/loglevel"
	"github.com/rpcgen/rpcgen/generated/reginald"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// The protocol the host speaks.
const (
	protocolName    = "reginald"
	protocolVersion = 0
)

// options is what one run of the host does.
type options struct {
	plugin  string            // plugin directory
	command string            // command to run, if any
	sets    map[string]string // config values from -set
	tasks   []taskSpec        // tasks to run, from -tasks
	dir     string            // base directory of path values
	quiet   bool              // plugin logging dropped
}

// taskSpec is one task of a -tasks file.
type taskSpec struct {
	Type   string         `json:"type"`
	Config map[string]any `json:"config"`
}

// host implements reginald.Host: it writes the plugin's log records
// through its own logger.
type host struct {
	reginald.UnimplementedHost
	logger *slog.Logger
	quiet  bool
}

// Log writes one record from the plugin with its attributes in order. A
// level it cannot read is logged as INFO, with the level as the plugin
// sent it (Reginald would end the session).
func (h *host) Log(ctx context.Context, p *reginald.LogParams) error {
	if h.quiet {
		return nil
	}
	attrs := make([]any, 0, 2*len(p.Attrs)+2)
	for _, a := range p.Attrs {
		var v any
		if err := json.Unmarshal(a.Value, &v); err != nil {
			v = string(a.Value)
		}
		attrs = append(attrs, a.Key, v)
	}
	level, ok := loglevel.Value(p.Level)
	if !ok {
		level, attrs = slog.LevelInfo, append(attrs, "plugin_level", jsonrpc.Truncate(string(p.Level)))
	}
	h.logger.Log(ctx, level, p.Msg, attrs...)
	return nil
}

// run reads the plugin's manifest, checks what is asked of it, starts it,
// drives it through the protocol and shuts it down. Results go to out,
// diagnostics to logger.
func run(ctx context.Context, o options, out io.Writer, logger *slog.Logger) (err error) {
	m, err := readManifest(o.plugin)
	if err != nil {
		return err
	}
	calls, err := plan(m, o)
	if err != nil {
		return err
	}
	plog := logger.With("plugin", m.Name)
	cmd := exec.Command(m.Executable)
	proc, err := transport.Spawn(cmd, transport.SpawnOptions{Logger: plog})
	if err != nil {
		return fmt.Errorf("starting the plugin: %w", err)
	}
	conn, plugin := reginald.ConnectHost(proc, &host{logger: plog, quiet: o.quiet}, jsonrpc.Options{Logger: logger})
	defer func() {
		if cerr := conn.Close(); cerr != nil && err == nil && !errors.Is(cerr, jsonrpc.ErrClosed) {
			err = fmt.Errorf("closing the plugin: %w", cerr)
		}
		if xerr := proc.ExitErr(); xerr != nil && err == nil {
			err = fmt.Errorf("plugin exit: %w", xerr)
		}
	}()

	hs, err := plugin.Handshake(ctx, &reginald.HandshakeParams{Protocol: protocolName, ProtocolVersion: protocolVersion})
	if err != nil {
		return fmt.Errorf("handshake: %w", err)
	}
	switch {
	case hs.Protocol != protocolName || hs.ProtocolVersion != protocolVersion:
		return fmt.Errorf("handshake: plugin speaks %q version %d, want %q version %d",
			jsonrpc.Truncate(hs.Protocol), hs.ProtocolVersion, protocolName, protocolVersion)
	case hs.Name != m.Name:
		return fmt.Errorf("handshake: plugin calls itself %q, its manifest %q", jsonrpc.Truncate(hs.Name), m.Name)
	}
	plog.Debug("handshake done")

	werr := calls.do(ctx, plugin, out)
	if serr := shutdown(ctx, plugin); serr != nil && werr == nil {
		werr = serr
	}
	if werr == nil {
		select {
		case <-proc.Done():
		case <-ctx.Done():
			werr = fmt.Errorf("waiting for the plugin to exit: %w", ctx.Err())
		}
	}
	return werr
}

// calls is what the host asks of the plugin after the handshake.
type calls struct {
	tasks   []reginald.RunTaskParams
	command *reginald.RunCommandParams
}

// do runs the tasks in order, then the command.
func (c *calls) do(ctx context.Context, plugin reginald.Plugin, out io.Writer) error {
	for i := range c.tasks {
		if _, err := plugin.RunTask(ctx, &c.tasks[i]); err != nil {
			return fmt.Errorf("task %d (%s): %w", i+1, c.tasks[i].TaskType, err)
		}
		fmt.Fprintf(out, "task %d (%s): done\n", i+1, c.tasks[i].TaskType)
	}
	if c.command != nil {
		if _, err := plugin.RunCommand(ctx, c.command); err != nil {
			return fmt.Errorf("command %s: %w", c.command.Cmd, err)
		}
		fmt.Fprintf(out, "command %s: done\n", c.command.Cmd)
	}
	return nil
}

// plan builds the params of every call from the manifest, the -set values
// and the tasks file, before the plugin starts, as Reginald resolves its
// config first.
func plan(m *reginald.Manifest, o options) (*calls, error) {
	c := &calls{}
	known := map[string]bool{}
	if o.command != "" {
		names := strings.Split(o.command, ".")
		cmd := findCommand(m, names)
		if cmd == nil {
			return nil, fmt.Errorf("plugin %s has no command %q", m.Name, o.command)
		}
		cfg, err := entryValues(cmd.Config, o, known)
		if err != nil {
			return nil, fmt.Errorf("command %s: %w", o.command, err)
		}
		pluginCfg, err := pluginValues(m, o, known)
		if err != nil {
			return nil, err
		}
		c.command = &reginald.RunCommandParams{Cmd: o.command, Config: cfg, PluginConfig: pluginCfg}
	}
	for k := range o.sets {
		if !known[k] {
			return nil, fmt.Errorf("unknown config key %q", k)
		}
	}
	for i, spec := range o.tasks {
		typ, ok := strings.CutPrefix(spec.Type, m.Domain+"/")
		j := slices.IndexFunc(m.Tasks, func(t reginald.Task) bool { return t.TaskType == typ })
		if !ok || j < 0 {
			return nil, fmt.Errorf("task %d: plugin %s has no task type %q", i+1, m.Name, spec.Type)
		}
		cfg, err := taskValues(m.Tasks[j].Config, spec.Config, o.dir)
		if err != nil {
			return nil, fmt.Errorf("task %d (%s): %w", i+1, spec.Type, err)
		}
		c.tasks = append(c.tasks, reginald.RunTaskParams{TaskType: typ, Config: cfg})
	}
	return c, nil
}

// pluginValues is what Reginald sends as pluginConfig: the config of each
// command of the plugin, as a "configs" value named after it, then the
// plugin-wide values.
func pluginValues(m *reginald.Manifest, o options, known map[string]bool) ([]reginald.KeyValue, error) {
	kvs := []reginald.KeyValue{}
	for _, cmd := range m.Commands {
		cfg, err := entryValues(cmd.Config, o, known)
		if err != nil {
			return nil, fmt.Errorf("command %s: %w", cmd.Name, err)
		}
		kvs = append(kvs, reginald.KeyValue{Key: cmd.Name, Value: jsonValue(cfg), Type: reginald.ValueTypeConfigs})
	}
	cfg, err := entryValues(m.Config, o, known)
	if err != nil {
		return nil, err
	}
	return append(kvs, cfg...), nil
}

// shutdown asks the plugin to shut down and then to exit.
func shutdown(ctx context.Context, plugin reginald.Plugin) error {
	ok, err := plugin.Shutdown(ctx)
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if !ok {
		return errors.New("shutdown: plugin answered false")
	}
	if err := plugin.Exit(ctx); err != nil {
		return fmt.Errorf("exit: %w", err)
	}
	return nil
}
