package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"time"

	"github.com/rpcgen/rpcgen/generated/hermes"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// The versions the host reports in initialize.
const (
	hermesVersion = "1.0.0"
	apiVersion    = "1.0"
)

// session runs the extension cmd from start to shutdown.
func session(ctx context.Context, cfg *config, ed *editor, cmd *exec.Cmd) error {
	proc, err := transport.Spawn(cmd, transport.SpawnOptions{Logger: ed.log.With("extension", cmd.Path), Grace: cfg.shutdownTimeout})
	if err != nil {
		return fmt.Errorf("starting the extension: %w", err)
	}
	opts := jsonrpc.Options{Logger: ed.log, Timeout: timeouts(cfg)}
	conn, ext := hermes.ConnectHost(proc, ed, opts)
	ed.ext = ext
	defer func() { _ = conn.Close() }()

	info, err := ext.Initialize(ctx, &hermes.InitializeParams{HermesVersion: hermesVersion, APIVersion: apiVersion, DataDirectory: cfg.dataDir})
	if err != nil {
		// The extension is marked failed: stop it, register nothing.
		_ = proc.Kill()
		return fmt.Errorf("extension failed: initialize: %w", err)
	}
	subscribed := register(ed, info)
	ed.log.Info("extension ready", "name", jsonrpc.Truncate(info.Name), "version", jsonrpc.Truncate(info.Version),
		"commands", jsonrpc.Truncate(fmt.Sprint(info.Capabilities.Commands)), "buttons", len(info.ToolbarButtons))
	if subscribed[hermes.EventNameMessageOpened] {
		p := &hermes.MessageOpenedParams{IsNew: ed.filePath == ""}
		if !p.IsNew {
			p.FilePath = ed.filePath
		}
		if err := ext.MessageOpened(ctx, p); err != nil {
			return fmt.Errorf("sending message/opened: %w", err)
		}
	}

	for _, name := range cfg.run {
		if !slices.Contains(info.Capabilities.Commands, name) {
			ed.log.Error("not running an unknown command", "command", name, "error", hermes.NewCommandNotFoundError())
			continue
		}
		if err := execute(ctx, conn, ed, ext, name, cfg.idle); err != nil {
			return err
		}
	}

	if cfg.out != "" && ed.msg != nil {
		if err := os.WriteFile(cfg.out, []byte(ed.msg.hl7()), 0o644); err != nil {
			return fmt.Errorf("saving the message: %w", err)
		}
		ed.log.Info("message saved", "path", cfg.out)
		if subscribed[hermes.EventNameMessageSaved] {
			if err := ext.MessageSaved(ctx, &hermes.MessageSavedParams{FilePath: cfg.out, SaveAs: cfg.out != cfg.in}); err != nil {
				return fmt.Errorf("sending message/saved: %w", err)
			}
		}
	}

	ed.closeAll(ctx)
	res, err := ext.Shutdown(ctx, &hermes.ShutdownParams{Reason: hermes.ShutdownReasonClosing})
	if err != nil {
		if errors.Is(err, jsonrpc.ErrTimeout) {
			// The runtime has killed the process (SIGKILL) already.
			<-proc.Done()
			return fmt.Errorf("extension killed: no answer to shutdown within %v", cfg.shutdownTimeout)
		}
		return fmt.Errorf("shutdown: %w", err)
	}
	if !res.Success {
		ed.log.Warn("the extension did not stop cleanly")
	}
	// Closing the connection closes the extension's stdin; it exits, or is
	// killed after the grace period.
	if err := conn.Close(); err != nil {
		return fmt.Errorf("stopping the extension: %w", err)
	}
	if err := proc.ExitErr(); err != nil {
		return fmt.Errorf("extension exited: %w", err)
	}
	ed.log.Info("extension stopped")
	return nil
}

// timeouts are the protocol's timeouts with -init-timeout and
// -shutdown-timeout applied, keeping their actions.
func timeouts(cfg *config) func(string) jsonrpc.Timeout {
	defaults := hermes.Options().Timeout
	return func(method string) jsonrpc.Timeout {
		t := defaults(method)
		switch method {
		case hermes.MethodInitialize:
			t.After = cfg.initTimeout
		case hermes.MethodShutdown:
			t.After = cfg.shutdownTimeout
		}
		return t
	}
}

// register takes in what initialize returned and lets the extension make
// requests; it returns the events the extension subscribed to.
func register(ed *editor, info *hermes.InitializeResult) map[hermes.EventName]bool {
	if info.Capabilities == nil {
		// Absent capabilities are empty ones: nothing to register.
		info.Capabilities = &hermes.Capabilities{}
	}
	subscribed := map[hermes.EventName]bool{}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	for i, sub := range info.Capabilities.Events {
		subscribed[sub.Name] = true
		if sub.Name == hermes.EventNameMessageChanged {
			ed.changed = &info.Capabilities.Events[i]
		}
	}
	if info.Schema != nil {
		for _, key := range applyOverrides(ed.log, ed.schema, info.Schema) {
			ed.log.Info("field definition", append([]any{"path", jsonrpc.Truncate(key.String())}, ed.schema[key].attrs()...)...)
		}
	}
	ed.ready = true
	return subscribed
}

// execute triggers one command and waits until the extension has been
// idle for idle: no request running and none for that long.
func execute(ctx context.Context, conn *jsonrpc.Conn, ed *editor, ext hermes.Extension, name string, idle time.Duration) error {
	ed.log.Info("running command", "command", name)
	sent := time.Now()
	if err := ext.CommandExecute(ctx, &hermes.CommandExecuteParams{Command: name}); err != nil {
		return fmt.Errorf("command %s: %w", name, err)
	}
	tick := time.NewTicker(idle / 10)
	defer tick.Stop()
	for {
		select {
		case <-conn.Done():
			return fmt.Errorf("command %s: the extension went away: %w", name, conn.Err())
		case <-tick.C:
		}
		quiet, last := ed.idleSince()
		if last.Before(sent) {
			last = sent
		}
		if quiet && time.Since(last) >= idle {
			return nil
		}
	}
}
