// Command agent is a deterministic, scripted stand-in for `autohand --mode rpc`:
// it speaks the Autohand RPC protocol on its stdin and stdout exactly as the
// real agent does, without a model. Every prompt runs the same observable
// script (streamed reply, a tool run behind a permission prompt, a previewed
// change batch), so IDE integrations and SDKs can be developed and tested
// against it. Logs go to stderr; stdout carries only the protocol.
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

const usage = `usage: agent [--mode rpc] [flags]

A scripted Autohand agent speaking the Autohand RPC protocol (newline-delimited
JSON-RPC 2.0) on stdin and stdout, as "autohand --mode rpc" does. Start it from
an IDE or SDK in place of autohand: it takes the options the SDKs pass and
ignores those it has no use for. Signed out (-account ""), the general profile
refuses to start as autohand does: one AuthenticationRequired error with id
null, then exit status 1.

Every autohand.prompt runs this script: hook.prePrompt, turnStart,
messageStart, streamed messageUpdate deltas, then a write_file tool run
(hook.preTool, toolStart) behind a permissionRequest; once allowed, toolUpdate
output and a change batch (changesBatchStart/Update/End) decided by
changesDecision, then toolEnd, hook.postTool, messageEnd, hook.postResponse,
hook.stop and turnEnd. Files live in memory only. Special prompts:

  /exit        end the session (agentEnd) and exit
  /mcp TOOL    call an editor MCP tool registered with mcp.setVscodeTools
  /showcase    send one of every other event the agent can emit

Flags:
`

type config struct {
	workspace       string
	model           string
	account         string
	profile         string
	inference       string
	delay           time.Duration
	ackTimeout      time.Duration
	responseTimeout time.Duration
	keepalive       time.Duration
	latency         time.Duration
	noGoals         bool
	verbose         bool
}

func main() {
	var cfg config
	wd, _ := os.Getwd()
	flag.StringVar(&cfg.workspace, "workspace", wd, "workspace root reported to the client")
	flag.StringVar(&cfg.model, "model", "fantail", "model name reported to the client")
	flag.StringVar(&cfg.account, "account", "dev@example.com", "account e-mail reported by getAccountInfo; empty means signed out (answer-only: authentication required)")
	flag.StringVar(&cfg.profile, "profile", "general", "RPC profile: general, answer-only or setup-only (Blueprint restricted profiles)")
	flag.StringVar(&cfg.inference, "inference", "in_process", "where the answer-only profile's model runs: in_process, or hosted (blocked by policy)")
	flag.DurationVar(&cfg.delay, "delay", 20*time.Millisecond, "pause between streamed chunks and auto-mode iterations")
	flag.DurationVar(&cfg.ackTimeout, "ack-timeout", 30*time.Second, "how long a permission or directory request waits for its acknowledgement")
	flag.DurationVar(&cfg.responseTimeout, "response-timeout", time.Hour, "how long an acknowledged request waits for its answer")
	flag.DurationVar(&cfg.keepalive, "keepalive", 15*time.Second, "interval of autohand.ping while a turn runs")
	flag.DurationVar(&cfg.latency, "latency", 0, "delay before answering every request (to test client timeouts)")
	flag.BoolVar(&cfg.noGoals, "no-goals", false, "turn the goal feature off (goal requests answer ok: false)")
	flag.BoolVar(&cfg.verbose, "v", false, "log every message to stderr")
	m := mode("rpc")
	sdkFlags(flag.CommandLine, &m, &cfg)
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), usage)
		flag.PrintDefaults()
	}
	_ = flag.CommandLine.Parse(joinFork(os.Args[1:])) // exits on error
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
}

func run(cfg config) error {
	switch cfg.profile {
	case profileGeneral, profileAnswerOnly, profileSetupOnly:
	default:
		return fmt.Errorf("unknown profile %q", cfg.profile)
	}
	if cfg.inference != "in_process" && cfg.inference != "hosted" {
		return fmt.Errorf("unknown inference destination %q", cfg.inference)
	}
	level := slog.LevelInfo
	if cfg.verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	if cfg.profile == profileGeneral && cfg.account == "" {
		return refuseSignedOut(logger)
	}
	a := newAgent(cfg, logger)
	conn, client := autohand.ConnectAgent(transport.Stdio(), a, jsonrpc.Options{
		Logger:     logger,
		Middleware: []jsonrpc.Middleware{a.gate},
	})
	a.start(client)

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	select {
	case <-conn.Done():
	case s := <-sig:
		logger.Info("stopping", "signal", s.String())
		a.end(autohand.AgentEndParamsReasonAborted, autohand.HookSessionEndParamsReasonExit)
		_ = conn.Close()
	}
	a.stop()
	if err := conn.Wait(); err != nil && !isClosed(err) {
		return fmt.Errorf("connection: %w", err)
	}
	return nil
}
