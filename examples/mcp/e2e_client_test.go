package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/mcp"
)

// clientRun is what one run of the client example printed.
type clientRun struct {
	init   *mcp.InitializeResult
	list   map[string]json.RawMessage
	call   *mcp.CallToolResult
	stderr string
}

// runClient runs the client example against the server example.
func runClient(t *testing.T, args ...string) clientRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	args = append(args, "--", filepath.Join(bin, "server"))
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "client"), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("client %v: %v\n%s", args, err, stderr.String())
	}
	run := clientRun{stderr: stderr.String()}
	dec := json.NewDecoder(&stdout)
	for dec.More() {
		var line struct {
			Initialize *mcp.InitializeResult
			List       map[string]json.RawMessage
			Call       *mcp.CallToolResult
		}
		if err := dec.Decode(&line); err != nil {
			t.Fatalf("client output: %v", err)
		}
		if line.Initialize != nil {
			run.init = line.Initialize
		}
		if line.List != nil {
			run.list = line.List
		}
		if line.Call != nil {
			run.call = line.Call
		}
	}
	if run.init == nil {
		t.Fatalf("the client printed no initialize result\n%s", run.stderr)
	}
	return run
}

func TestClientExampleLists(t *testing.T) {
	run := runClient(t, "-protocol-version", "2024-11-05")
	if run.init.ProtocolVersion != "2024-11-05" {
		t.Errorf("negotiated %s", run.init.ProtocolVersion)
	}
	var tools []mcp.Tool
	if err := json.Unmarshal(run.list["tools"], &tools); err != nil || len(tools) < 10 || tools[0].Name != "echo" {
		t.Errorf("tools %s: %v", run.list["tools"], err)
	}
	for _, k := range []string{"resources", "resourceTemplates", "prompts"} {
		if len(run.list[k]) < 3 {
			t.Errorf("no %s listed", k)
		}
	}
	if run.call != nil {
		t.Error("a call without -call")
	}
}

func TestClientExampleCalls(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		args  []string
		want  string
		error bool
	}{
		{name: "echo", args: []string{"-call", "echo", "-args", `{"text":"hi"}`}, want: "hi"},
		{name: "sampling", args: []string{"-call", "sample", "-args", `{"prompt":"hi"}`}, want: "echo: hi [model echo]"},
		{name: "sampling task", args: []string{"-call", "sample", "-args", `{"prompt":"hi","asTask":true}`},
			want: "(task) echo: hi [model echo]"},
		{name: "sampling task cancelled", args: []string{"-sampling-delay", "1m", "-call", "sample", "-args", `{"prompt":"hi","asTask":true,"cancelTask":true}`},
			want: "sampling task cancelled"},
		{name: "sampling task done before cancel", args: []string{"-call", "sample", "-args", `{"prompt":"hi","asTask":true,"cancelTask":true}`},
			want: "already in terminal status 'completed'", error: true},
		{name: "sampling rejected", args: []string{"-sampling", "reject", "-call", "sample", "-args", `{"prompt":"hi"}`},
			want: "the user rejected the sampling request", error: true},
		{name: "roots", args: []string{"-root", dir, "-call", "roots"}, want: "file://" + filepath.ToSlash(dir)},
		{name: "elicitation", args: []string{"-elicit", "accept", "-call", "ask", "-args", `{"question":"ok?"}`},
			want: `answer: "yes", confident: true`},
		{name: "url elicitation", args: []string{"-elicit", "accept", "-call", "connect"}, want: "connected"},
		{name: "task", args: []string{"-call", "slow", "-task", "-args", `{"steps":2,"delayMs":1}`}, want: "done after 2 steps"},
		{name: "ping", args: []string{"-call", "ping_client"}, want: "pong"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := runClient(t, append([]string{"-list=false"}, tc.args...)...)
			if run.call == nil {
				t.Fatalf("no call result\n%s", run.stderr)
			}
			if got := textOf(run.call); !strings.Contains(got, tc.want) || isError(run.call) != tc.error {
				t.Errorf("result %q (error %t); want %q (error %t)", got, isError(run.call), tc.want, tc.error)
			}
		})
	}
}

func TestExamplesPrintUsage(t *testing.T) {
	for _, role := range []string{"server", "client"} {
		out, err := exec.Command(filepath.Join(bin, role), "-h").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Usage:") {
			t.Errorf("%s -h: %v\n%s", role, err, out)
		}
	}
}
