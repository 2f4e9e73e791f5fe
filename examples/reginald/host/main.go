// Command host plays Reginald's side of the Reginald plugin protocol v0:
// it reads a plugin's manifest.json, starts the plugin's executable, runs
// the handshake, runs tasks and a command of the plugin, and shuts it
// down. The plugin's log notifications are written to stderr with the
// host's own diagnostics; stdout gets one line per finished task or
// command.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"

	"github.com/rpcgen/rpcgen/examples/reginald/internal/loglevel"
	"github.com/rpcgen/rpcgen/generated/reginald"
)

// setFlag collects key=value pairs.
type setFlag map[string]string

func (s setFlag) String() string {
	var parts []string
	for k, v := range s {
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, ",")
}

func (s setFlag) Set(v string) error {
	key, val, ok := strings.Cut(v, "=")
	if !ok || key == "" {
		return fmt.Errorf("want key=value, got %q", v)
	}
	s[key] = val
	return nil
}

func main() {
	os.Exit(mainErr(os.Args[1:]))
}

// mainErr runs the host with args and returns the exit status: 0 done,
// 1 failed, 2 usage error.
func mainErr(args []string) int {
	fs := flag.NewFlagSet("host", flag.ContinueOnError)
	sets := setFlag{}
	fs.Var(sets, "set", "set a plugin-wide or command config value, as `key=value` (repeatable; lists are comma-separated)")
	tasksFile := fs.String("tasks", "", "JSON `file` listing tasks to run: [{\"type\": \"DOMAIN/TYPE\", \"config\": {...}}]")
	dir := fs.String("dir", ".", "base `directory` against which path values are resolved")
	level := fs.String("log-level", "info", "least severe `level` logged: trace, debug, info, warn or error (any case), with an optional offset such as info+2")
	quiet := fs.Bool("quiet", false, "drop the plugin's log records")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: host [flags] PLUGIN [COMMAND]

Runs a Reginald plugin over the Reginald plugin protocol v0. PLUGIN is a
plugin directory holding manifest.json. The host runs the handshake, then
the tasks of -tasks, then COMMAND (a command of the manifest; a subcommand
as parent.child), and finally shuts the plugin down.

flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		fs.Usage()
		return 2
	}
	slogLevel, ok := loglevel.Value(reginald.LogLevel(*level))
	if !ok {
		fmt.Fprintf(os.Stderr, "host: unknown log level %q\n", *level)
		return 2
	}
	o := options{plugin: fs.Arg(0), command: fs.Arg(1), sets: sets, dir: *dir, quiet: *quiet}
	if *tasksFile != "" {
		data, err := os.ReadFile(*tasksFile)
		if err != nil {
			fmt.Fprintf(os.Stderr, "host: %v\n", err)
			return 1
		}
		if err := json.Unmarshal(data, &o.tasks); err != nil {
			fmt.Fprintf(os.Stderr, "host: tasks file %s: %v\n", *tasksFile, err)
			return 1
		}
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slogLevel}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, o, os.Stdout, logger); err != nil {
		fmt.Fprintf(os.Stderr, "host: %v\n", err)
		return 1
	}
	return 0
}
