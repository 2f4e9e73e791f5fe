package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
	read   *mcp.ReadResourceResult
	prompt *mcp.GetPromptResult
	stderr string
}

// execClient runs the client example against the server example.
func execClient(args ...string) (stdout, stderr *bytes.Buffer, err error) {
	return execClientArgs(append(args, "--", *bin["server"])...)
}

// execClientArgs runs the client example with args, for at most wait.
func execClientArgs(args ...string) (stdout, stderr *bytes.Buffer, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cmd := exec.CommandContext(ctx, *bin["client"], args...)
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	return stdout, stderr, cmd.Run()
}

// runClient runs the client example, which must succeed, and decodes what
// it printed.
func runClient(t *testing.T, args ...string) clientRun {
	t.Helper()
	stdout, stderr, err := execClient(args...)
	return decodeRun(t, args, stdout, stderr, err)
}

// decodeRun decodes what a successful run of the client example printed.
func decodeRun(t *testing.T, args []string, stdout, stderr *bytes.Buffer, err error) clientRun {
	t.Helper()
	if err != nil {
		t.Fatalf("client %v: %v\n%s", args, err, stderr)
	}
	run := clientRun{stderr: stderr.String()}
	dec := json.NewDecoder(stdout)
	for dec.More() {
		var line struct {
			Initialize *mcp.InitializeResult
			List       map[string]json.RawMessage
			Call       *mcp.CallToolResult
			Read       *mcp.ReadResourceResult
			Prompt     *mcp.GetPromptResult
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
		if line.Read != nil {
			run.read = line.Read
		}
		if line.Prompt != nil {
			run.prompt = line.Prompt
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

func TestClientExampleReadsAndPrompts(t *testing.T) {
	run := runClient(t, "-list=false", "-read", "greeting://Bob", "-prompt", "review", "-prompt-args", `{"code":"x := 1"}`)
	if run.read == nil || len(run.read.Contents) != 1 || run.read.Contents[0].TextResourceContents == nil ||
		run.read.Contents[0].TextResourceContents.Text != "Hello, Bob!" {
		t.Errorf("read %+v", run.read)
	}
	if run.prompt == nil || len(run.prompt.Messages) == 0 || run.prompt.Messages[0].Content.Text == nil ||
		!strings.Contains(run.prompt.Messages[0].Content.Text.Text, "x := 1") {
		t.Errorf("prompt %+v", run.prompt)
	}
	_, stderr, err := execClient("-list=false", "-read", "example://missing")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(stderr.String(), "-32002") {
		t.Errorf("reading a missing resource: %v\n%s", err, stderr)
	}
}

// clientCase is a run of the client example that calls a tool.
type clientCase struct {
	name  string
	args  []string
	want  string
	error bool
}

// clientCases are the calls the client example makes in the tests; dir is
// offered as a root.
func clientCases(dir string) []clientCase {
	return []clientCase{
		{name: "echo", args: []string{"-call", "echo", "-args", `{"text":"hi"}`}, want: "hi"},
		{name: "sampling", args: []string{"-call", "sample", "-args", `{"prompt":"hi"}`}, want: "echo: hi [model echo]"},
		{name: "sampling task", args: []string{"-call", "sample", "-args", `{"prompt":"hi","asTask":true}`},
			want: "(task) echo: hi [model echo]"},
		{name: "sampling task cancelled", args: []string{"-sampling-delay", "1m", "-call", "sample", "-args", `{"prompt":"hi","asTask":true,"cancelTask":true}`},
			want: "sampling task cancelled"},
		{name: "sampling task done before cancel", args: []string{"-call", "sample", "-args", `{"prompt":"hi","asTask":true,"cancelTask":true,"awaitDone":true}`},
			want: "is already completed", error: true},
		{name: "sampling rejected", args: []string{"-sampling", "reject", "-call", "sample", "-args", `{"prompt":"hi"}`},
			want: "the user rejected the sampling request", error: true},
		{name: "roots", args: []string{"-root", dir, "-call", "roots"}, want: "file://" + filepath.ToSlash(dir)},
		{name: "elicitation", args: []string{"-elicit", "accept", "-call", "ask", "-args", `{"question":"ok?"}`},
			want: `answer: "yes", confident: true`},
		{name: "url elicitation", args: []string{"-elicit", "accept", "-call", "connect"}, want: "connected"},
		{name: "task", args: []string{"-call", "slow", "-task", "-args", `{"steps":2,"delayMs":1}`}, want: "done after 2 steps"},
		// These tasks go input_required: only tasks/result brings the
		// client the server's request, so a client that polls tasks/get
		// until the task is final waits until it is killed.
		{name: "task needing elicitation", args: []string{"-elicit", "accept", "-task", "-call", "ask", "-args", `{"question":"ok?"}`},
			want: `answer: "yes", confident: true`},
		{name: "task needing sampling", args: []string{"-task", "-call", "sample", "-args", `{"prompt":"hi"}`}, want: "echo: hi [model echo]"},
		{name: "task needing roots", args: []string{"-root", dir, "-task", "-call", "roots"}, want: "file://" + filepath.ToSlash(dir)},
		{name: "ping", args: []string{"-call", "ping_client"}, want: "pong"},
	}
}

func TestClientExampleCalls(t *testing.T) {
	for _, tc := range clientCases(t.TempDir()) {
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
		out, err := exec.Command(*bin[role], "-h").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Usage:") {
			t.Errorf("%s -h: %v\n%s", role, err, out)
		}
	}
}
