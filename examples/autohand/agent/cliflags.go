package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// The SDKs start the agent as `autohand --mode rpc` followed by the
// session's options (buildCLIArgs in autohandai/code-agent-sdk-go
// transport.go, buildCliArgs in code-agent-sdk-typescript
// src/transport/transport.ts). This agent takes that command line: --mode
// must be rpc, and the options it has no use for are accepted and ignored.

// sdkSwitches are the options the SDKs pass without a value.
var sdkSwitches = []string{
	"bare", "unrestricted", "restricted", "auto-mode", "auto-skill", "c", "auto-commit",
	"no-idle-logout", "context-compact", "no-context-compact",
	"persist-session", "resume", "continue", "no-agents-md", "agents-md",
	"agents-md-create", "agents-md-auto-update", "install-missing-skills",
	"offline", "d", "debug",
}

// sdkValues are the options the SDKs pass with a value (--model and
// --path are the agent's own -model and -workspace).
var sdkValues = []string{
	"session-id", "session-path", "auto-save-interval", "agents-md-path",
	"max-tokens", "compression-threshold", "summarization-threshold",
	"skills", "skill-sources", "max-iterations", "max-runtime", "max-cost",
	"display-language", "sys-prompt", "system-prompt-file",
	"append-sys-prompt", "append-system-prompt-file", "mcp-config", "agents",
	"plugin-dir", "temperature", "yolo", "yolo-timeout", "add-dir",
	"client-context", "config",
}

// mode is the --mode option: only rpc is spoken here.
type mode string

func (m *mode) String() string { return string(*m) }

func (m *mode) Set(v string) error {
	if v != "rpc" {
		return fmt.Errorf("mode %q is not supported: this agent speaks only rpc", v)
	}
	*m = mode(v)
	return nil
}

// ignored is an SDK option this agent accepts and has no use for.
type ignored struct{ isBool bool }

func (ignored) String() string     { return "" }
func (ignored) Set(string) error   { return nil }
func (i ignored) IsBoolFlag() bool { return i.isBool }

// sdkFlags declares --mode, and the SDKs' other options as ignored ones,
// on fs. --fork is a switch in the Go SDK and takes a value in the
// TypeScript one: it is accepted as a switch, so a value after it is
// refused as an extra argument.
func sdkFlags(fs *flag.FlagSet, m *mode, cfg *config) {
	fs.Var(m, "mode", "run mode; only rpc, the default, is supported (as the SDKs pass it: --mode rpc)")
	fs.StringVar(&cfg.workspace, "path", cfg.workspace, "same as -workspace")
	for _, name := range sdkSwitches {
		fs.Var(ignored{isBool: true}, name, "accepted from the SDKs and ignored")
	}
	fs.Var(ignored{isBool: true}, "fork", "accepted from the SDKs and ignored")
	for _, name := range sdkValues {
		fs.Var(ignored{}, name, "accepted from the SDKs and ignored")
	}
}

// joinFork rewrites "--fork VALUE", as the TypeScript SDK passes it, to
// "--fork=VALUE", which the switch accepts; "--fork" alone, as the Go SDK
// passes it, stays as it is.
func joinFork(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if (a == "--fork" || a == "-fork") && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			a, i = a+"="+args[i+1], i+1
		}
		if a == "--" {
			return append(out, args[i:]...)
		}
		out = append(out, a)
	}
	return out
}

// errSignedOut is why the agent refused to start.
var errSignedOut = errors.New("not signed in (-account is empty)")

// refuseSignedOut tells the client, as autohand does when started signed
// out, that it cannot serve: one AuthenticationRequired error with id
// null, leaving every request unanswered. The connection then closes and
// the agent exits with status 1.
func refuseSignedOut(logger *slog.Logger) error {
	conn, _ := autohand.ConnectAgent(transport.Stdio(), autohand.UnimplementedAgent{}, jsonrpc.Options{
		Logger:     logger,
		Middleware: []jsonrpc.Middleware{unanswered},
	})
	data := autohand.ProfileErrorData{
		Kind: autohand.ProfileErrorDataKindAuthenticationRequired, Stage: "startup",
		Retryable: true, ProviderID: "scripted",
	}
	err := autohand.NewAuthenticationRequiredError(&data)
	err.Message = "Authentication required: sign in, then start the agent again."
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if serr := conn.SendError(ctx, err); serr != nil {
		return fmt.Errorf("report %w: %w", errSignedOut, serr)
	}
	_ = conn.Close() // writes what is queued first
	return errSignedOut
}

// unanswered holds every request until the connection closes.
func unanswered(jsonrpc.Handler) jsonrpc.Handler {
	return jsonrpc.HandlerFunc(func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
}
