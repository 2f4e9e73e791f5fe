package autohand_test

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// TestAgentTakesSDKCommandLines starts the agent example with the command
// lines the SDKs build (autohandai/code-agent-sdk-go transport.go
// buildCLIArgs at d0fdad7, code-agent-sdk-typescript
// src/transport/transport.ts buildCliArgs at 8f6b558): `--mode rpc`, then
// the session's options, --fork being a switch for one and taking a value
// for the other.
func TestAgentTakesSDKCommandLines(t *testing.T) {
	for name, args := range map[string][]string{
		"go sdk": {"--mode", "rpc", "--unrestricted", "--auto-mode", "-c", "--no-idle-logout", "--persist-session",
			"--session-id", "s_1", "--continue", "--fork", "--session-path", "/tmp/s", "--max-tokens", "4096",
			"--skills", "a,b", "--display-language", "en", "--model", "gpt-x", "--temperature", "0.2",
			"--yolo", "allow:read", "--yolo-timeout", "60", "--add-dir", "/work/lib", "--add-dir", "/work/doc"},
		"typescript sdk": {"--mode", "rpc", "--bare", "--context-compact", "--resume", "--fork", "sess_1",
			"--agents-md-path", "AGENTS.md", "--max-iterations", "5", "--model", "gpt-x", "--add-dir", "/work/lib"},
		"mode=rpc": {"--mode=rpc", "--model", "gpt-x"},
	} {
		t.Run(name, func(t *testing.T) {
			s := start(t, jsonrpc.Options{}, args...)
			st, err := s.agent.GetState(s.ctx)
			ok(t, err)
			if st.Model != "gpt-x" || st.Workspace != "/work/app" {
				t.Errorf("state = %+v", st)
			}
		})
	}
	for _, args := range [][]string{{"--mode", "acp"}, {"--mode", "rpc", "stray"}, {"--no-such-option"}} {
		cmd := exec.Command(agentBin, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		var exit *exec.ExitError
		if err := cmd.Run(); !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Errorf("agent %q: %v, want exit status 2\n%s", args, err, stderr.String())
		}
	}
}

// TestAgentSignedOutRefusesToStart: signed out, the agent example does as
// autohand does (src/modes/rpc/index.ts at d24c4e6): one -32011 error with
// id null, data.kind authentication_required and data.stage startup, then
// exit status 1. A client's pending call fails with that error, and the
// client example reports it.
func TestAgentSignedOutRefusesToStart(t *testing.T) {
	proc, err := transport.Spawn(exec.Command(agentBin, "--mode", "rpc", "-account", ""), transport.SpawnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reported := make(chan *jsonrpc.Error, 1)
	conn, agent := autohand.ConnectClient(proc, autohand.UnimplementedClient{}, jsonrpc.Options{OnPeerError: func(e *jsonrpc.Error) { reported <- e }})
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, err = agent.GetState(ctx)
	var pe *jsonrpc.PeerError
	if !errors.As(err, &pe) || pe.Err.Code != autohand.CodeAuthenticationRequired || !errors.Is(err, jsonrpc.ErrClosed) {
		t.Fatalf("getState: %v; want the agent's -32011", err)
	}
	var data autohand.ProfileErrorData
	ok(t, data.UnmarshalJSON(pe.Err.Data))
	if data.Kind != autohand.ProfileErrorDataKindAuthenticationRequired || data.Stage != "startup" || !data.Retryable {
		t.Errorf("data = %+v", data)
	}
	if e := <-reported; e.Code != autohand.CodeAuthenticationRequired {
		t.Errorf("OnPeerError got %v", e)
	}
	var exit *exec.ExitError
	if err := proc.Shutdown(ctx); !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("agent exit: %v, want status 1", err)
	}

	cmd := exec.Command(clientBin, "-prompt", "Hello", "--", agentBin, "--mode", "rpc", "-account", "")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); !errors.As(err, &exit) || exit.ExitCode() != 1 ||
		!strings.Contains(stderr.String(), "client: the agent reported error -32011: Authentication required: sign in, then start the agent again. (authentication_required)") {
		t.Errorf("client: %v\n%s", err, stderr.String())
	}
}
