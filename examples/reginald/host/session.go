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
	"strconv"

	"github.com/rpcgen/rpcgen/examples/reginald/internal/loglevel"
	"github.com/rpcgen/rpcgen/generated/reginald"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// options is what one run of the host does.
type options struct {
	plugin  string            // plugin directory or executable
	command string            // command to run, if any
	args    []string          // its positional arguments
	sets    map[string]string // config values from -set
	tasks   []taskSpec        // tasks to run, from -tasks
	dir     string            // base directory of the tasks
	list    bool              // print the handshake result and stop
	level   reginald.LogLevel // least severe level logged
	quiet   bool              // plugin logging disabled
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

// Log writes one record from the plugin, with its fields in key order. A
// level it cannot read is logged as INFO, with the level as the plugin
// sent it.
func (h *host) Log(ctx context.Context, p *reginald.LogParams) error {
	if h.quiet {
		return nil
	}
	keys := make([]string, 0, len(p.Fields))
	for k := range p.Fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	attrs := make([]any, 0, 2*len(keys))
	for _, k := range keys {
		var v any
		if err := json.Unmarshal(p.Fields[k], &v); err != nil {
			v = string(p.Fields[k])
		}
		attrs = append(attrs, k, v)
	}
	level, ok := loglevel.Value(p.Level)
	if !ok {
		level, attrs = slog.LevelInfo, append(attrs, "plugin_level", string(p.Level))
	}
	h.logger.Log(ctx, level, p.Msg, attrs...)
	return nil
}

// run starts the plugin, drives it through the protocol and shuts it down.
// Results go to out, diagnostics to logger.
func run(ctx context.Context, o options, out io.Writer, logger *slog.Logger) (err error) {
	argv, name, err := pluginCommand(o.plugin)
	if err != nil {
		return err
	}
	plog := logger.With("plugin", o.plugin)
	proc, err := transport.Spawn(exec.Command(argv[0], argv[1:]...), transport.SpawnOptions{Logger: plog})
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

	hs, err := plugin.Handshake(ctx, &reginald.HandshakeParams{Protocol: "rpp", ProtocolVersion: 0})
	if err != nil {
		return fmt.Errorf("handshake: %w", err)
	}
	switch {
	case hs.Protocol != "rpp" || hs.ProtocolVersion != 0:
		return fmt.Errorf("handshake: plugin speaks %s version %d, want rpp version 0", hs.Protocol, hs.ProtocolVersion)
	case name != "" && hs.Name != name:
		return fmt.Errorf("handshake: plugin calls itself %q, its manifest %q", hs.Name, name)
	}
	plog.Debug("handshake done", "name", hs.Name, "version", hs.Version)

	work := func() error {
		if o.list {
			enc := json.NewEncoder(out)
			enc.SetIndent("", "  ")
			return enc.Encode(hs)
		}
		return drive(ctx, plugin, hs, o, out)
	}
	werr := work()
	if serr := shutdown(ctx, plugin); serr != nil && werr == nil {
		werr = serr
	}
	return werr
}

// drive initializes the plugin and runs the requested tasks and command.
func drive(ctx context.Context, plugin reginald.Plugin, hs *reginald.HandshakeResult, o options, out io.Writer) error {
	known := map[string]bool{}
	pluginCfg, err := applySets(hs.Configs, o.sets, known)
	if err != nil {
		return err
	}
	var cmd *reginald.CommandInfo
	if o.command != "" {
		i := slices.IndexFunc(hs.Commands, func(c reginald.CommandInfo) bool { return c.Name == o.command })
		if i < 0 {
			return fmt.Errorf("plugin %s has no command %q", hs.Name, o.command)
		}
		cmd = &hs.Commands[i]
	}
	var cmdCfg []reginald.ConfigEntry
	if cmd != nil {
		if cmdCfg, err = applySets(cmd.Configs, o.sets, known); err != nil {
			return err
		}
	}
	for k := range o.sets {
		if !known[k] {
			return fmt.Errorf("unknown config key %q", k)
		}
	}

	logging := reginald.LoggingConfig{Enabled: !o.quiet, Level: o.level}
	if _, err := plugin.Initialize(ctx, &reginald.InitializeParams{Config: pluginCfg, Logging: logging}); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}

	if err := runTasks(ctx, plugin, hs, o, out); err != nil {
		return err
	}

	if cmd != nil {
		setup := &reginald.SetupCommandParams{Name: cmd.Name, Args: o.args, Config: cmdCfg}
		if setup.Args == nil {
			setup.Args = []string{}
		}
		if _, err := plugin.SetupCommand(ctx, setup); err != nil {
			return fmt.Errorf("command %s: setup: %w", cmd.Name, err)
		}
		if _, err := plugin.RunCommand(ctx, &reginald.RunCommandParams{Name: cmd.Name}); err != nil {
			return fmt.Errorf("command %s: %w", cmd.Name, err)
		}
		fmt.Fprintf(out, "command %s: done\n", cmd.Name)
	}
	return nil
}

// runTasks validates every task type's defaults and every task's config,
// then runs the tasks in order.
func runTasks(ctx context.Context, plugin reginald.Plugin, hs *reginald.HandshakeResult, o options, out io.Writer) error {
	if len(o.tasks) == 0 {
		return nil
	}
	for _, t := range hs.Tasks {
		if _, err := plugin.ValidateTask(ctx, &reginald.ValidateTaskParams{Type: t.Type, Config: t.Configs}); err != nil {
			return fmt.Errorf("task type %s: defaults: %w", t.Type, err)
		}
	}
	params := make([]reginald.RunTaskParams, len(o.tasks))
	for i, spec := range o.tasks {
		j := slices.IndexFunc(hs.Tasks, func(t reginald.TaskInfo) bool { return t.Type == spec.Type })
		if j < 0 {
			return fmt.Errorf("task %d: plugin %s has no task type %q", i+1, hs.Name, spec.Type)
		}
		cfg, err := taskConfig(hs.Tasks[j].Configs, spec.Config)
		if err != nil {
			return fmt.Errorf("task %d: %w", i+1, err)
		}
		if _, err := plugin.ValidateTask(ctx, &reginald.ValidateTaskParams{Type: spec.Type, Config: cfg}); err != nil {
			return fmt.Errorf("task %d (%s): %w", i+1, spec.Type, err)
		}
		params[i] = reginald.RunTaskParams{Type: spec.Type, Dir: o.dir, Config: cfg}
	}
	for i := range params {
		if _, err := plugin.RunTask(ctx, &params[i]); err != nil {
			return fmt.Errorf("task %d (%s): %w", i+1, params[i].Type, err)
		}
		fmt.Fprintf(out, "task %d (%s): done\n", i+1, params[i].Type)
	}
	return nil
}

// shutdown asks the plugin to shut down and then to exit.
func shutdown(ctx context.Context, plugin reginald.Plugin) error {
	ok, err := plugin.Shutdown(ctx)
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if ok != nil && !*ok {
		return errors.New("shutdown: plugin answered false")
	}
	if err := plugin.Exit(ctx); err != nil {
		return fmt.Errorf("exit: %w", err)
	}
	return nil
}

// applySets returns entries with the values of sets whose keys they
// declare, converted to the entries' types, and marks those keys known.
func applySets(entries []reginald.ConfigEntry, sets map[string]string, known map[string]bool) ([]reginald.ConfigEntry, error) {
	out := slices.Clone(entries)
	for i, e := range out {
		s, ok := sets[e.Key]
		if !ok {
			continue
		}
		known[e.Key] = true
		var v any
		var err error
		switch e.Type {
		case reginald.ValueTypeBool:
			v, err = strconv.ParseBool(s)
		case reginald.ValueTypeInt:
			v, err = strconv.ParseInt(s, 10, 64)
		default:
			v = s
		}
		if err != nil {
			return nil, fmt.Errorf("config %s: %w", e.Key, err)
		}
		b, _ := json.Marshal(v)
		out[i].Value = b
	}
	return out, nil
}

// taskConfig turns a task's config from the tasks file into key-values,
// typed as the task type declares; undeclared keys are passed on typed by
// their JSON kind, for the plugin to judge.
func taskConfig(defaults []reginald.KeyValue, cfg map[string]any) ([]reginald.KeyValue, error) {
	keys := make([]string, 0, len(cfg))
	for k := range cfg {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	kvs := make([]reginald.KeyValue, 0, len(keys))
	for _, k := range keys {
		b, err := json.Marshal(cfg[k])
		if err != nil {
			return nil, fmt.Errorf("config %s: %w", k, err)
		}
		kv := reginald.KeyValue{Key: k, Value: b, Type: reginald.ValueTypeString}
		if i := slices.IndexFunc(defaults, func(d reginald.KeyValue) bool { return d.Key == k }); i >= 0 {
			kv.Type = defaults[i].Type
		} else {
			switch cfg[k].(type) {
			case bool:
				kv.Type = reginald.ValueTypeBool
			case float64:
				kv.Type = reginald.ValueTypeInt
			}
		}
		kvs = append(kvs, kv)
	}
	return kvs, nil
}
