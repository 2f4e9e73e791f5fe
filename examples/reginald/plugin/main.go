// Command plugin is a Reginald plugin speaking the Reginald plugin protocol
// v0 on its standard input and output. It manages dotfiles under the
// domain "dotfiles":
//
//   - the command "status" reports whether each path of its "paths" config
//     exists (and where a symbolic link points), failing when one is
//     missing;
//   - the task type "symlink" (written "dotfiles/symlink" in Reginald's
//     config file) makes dst a symbolic link to src.
//
// It reports its progress through the protocol's log notifications, and
// writes its own diagnostics to stderr. Reginald (or
// examples/reginald/host) starts it from a plugin directory holding the
// manifest that -manifest prints; run by hand, it waits for messages on
// stdin.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/generated/reginald"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// delays maps a method name to how long the plugin waits before answering
// it; it implements flag.Value as a list of method=duration pairs.
type delays map[string]time.Duration

func (d delays) String() string {
	var parts []string
	for m, t := range d {
		parts = append(parts, m+"="+t.String())
	}
	return strings.Join(parts, ",")
}

func (d delays) Set(s string) error {
	method, dur, ok := strings.Cut(s, "=")
	if !ok {
		return fmt.Errorf("want method=duration, got %q", s)
	}
	t, err := time.ParseDuration(dur)
	if err != nil {
		return fmt.Errorf("delay of %s: %w", method, err)
	}
	d[method] = t
	return nil
}

func main() {
	fs := flag.NewFlagSet("plugin", flag.ContinueOnError)
	name := fs.String("name", defaultName, "plugin `name` reported in the handshake (must match the manifest)")
	printManifest := fs.Bool("manifest", false, "print the plugin's manifest.json and exit")
	executable := fs.String("executable", "plugin", "the executable `file` named in the manifest that -manifest prints")
	verbose := fs.Bool("v", false, "log protocol diagnostics to stderr")
	slow := delays{}
	fs.Var(slow, "delay", "wait this long before answering a method, as `method=duration` (repeatable)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: plugin [flags]

A Reginald plugin (protocol "reginald" version 0: Content-Length framed
JSON-RPC on stdin/stdout). It provides, under the domain "dotfiles", the
command "status" (config: paths, verbose) and the task type "symlink"
(config: src, dst, force). Install it as a directory holding this
executable and the manifest.json that -manifest prints. Reginald starts it;
it exits on the "exit" notification or when stdin ends.

flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(2)
	}
	if fs.NArg() > 0 {
		fs.Usage()
		os.Exit(2)
	}
	if *printManifest {
		if err := writeManifest(os.Stdout, *name, *executable); err != nil {
			fmt.Fprintf(os.Stderr, "plugin: %v\n", err)
			os.Exit(1)
		}
		return
	}

	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	if err := serve(*name, slow, logger); err != nil {
		logger.Error("plugin failed", "err", err)
		os.Exit(1)
	}
}

// serve runs the plugin on stdio until the exit notification or the end of
// stdin.
func serve(name string, slow delays, logger *slog.Logger) error {
	p := newPlugin(name)
	opts := jsonrpc.Options{
		Logger:     logger,
		Middleware: []jsonrpc.Middleware{delayMiddleware(slow), p.shutdownGate},
	}
	conn, _ := reginald.ConnectPlugin(transport.Stdio(), p, opts)
	select {
	case <-p.exited:
		logger.Debug("exit notification received")
	case <-conn.Done():
		logger.Debug("connection ended without exit", "err", conn.Err())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := conn.Shutdown(ctx); err != nil && !errors.Is(err, jsonrpc.ErrClosed) {
		return fmt.Errorf("closing the connection: %w", err)
	}
	return nil
}

// delayMiddleware holds back the answer to the methods in slow.
func delayMiddleware(slow delays) jsonrpc.Middleware {
	return func(next jsonrpc.Handler) jsonrpc.Handler {
		return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if d, ok := slow[req.Method]; ok {
				t := time.NewTimer(d)
				select {
				case <-t.C:
				case <-ctx.Done():
					t.Stop()
					return nil, fmt.Errorf("delayed %s: %w", req.Method, ctx.Err())
				}
			}
			return next.Handle(ctx, req)
		})
	}
}
