package autohand_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The Autohand CLI's behaviour that the client example must cope with,
// replayed by this test binary run as the agent: with replayEnv set, it
// speaks as autohandai/code-cli 0.8.2 (at d24c4e6) does, from
// src/modes/rpc/index.ts (the signed-out startup error) and
// src/modes/rpc/adapter.ts (a prompt's change batch: changesBatchEnd is
// written in the turn's finally block, just before messageEnd and turnEnd,
// and an accepted change is written to disk only when changesDecision
// applies it; a batch without changes leaves preview mode at once, so a
// decision on it is answered "not found or expired").
const (
	replayEnv    = "AUTOHAND_REPLAY"     // the script to play
	replayLogEnv = "AUTOHAND_REPLAY_LOG" // where to record the methods received
)

// replayScripts are the lines written in answer to the prompt, %[1]s
// standing for its id.
var replayScripts = map[string]string{
	"one-change": `{"jsonrpc":"2.0","id":%[1]s,"result":{"success":true}}
{"jsonrpc":"2.0","method":"autohand.turnStart","params":{"turnId":"turn_1","timestamp":"2026-03-01T10:00:00.000Z"}}
{"jsonrpc":"2.0","method":"autohand.changesBatchStart","params":{"batchId":"changes_1","turnId":"turn_1","timestamp":"2026-03-01T10:00:00.001Z"}}
{"jsonrpc":"2.0","method":"autohand.changesBatchUpdate","params":{"batchId":"changes_1","change":{"id":"change_1","filePath":"hello.txt","changeType":"create","originalContent":"","proposedContent":"hello\n","description":"Create hello.txt","toolId":"tool_1","toolName":"write_file"},"timestamp":"2026-03-01T10:00:00.002Z"}}
{"jsonrpc":"2.0","method":"autohand.changesBatchEnd","params":{"batchId":"changes_1","changeCount":1,"timestamp":"2026-03-01T10:00:00.003Z"}}
{"jsonrpc":"2.0","method":"autohand.messageEnd","params":{"messageId":"msg_1","content":"Created hello.txt.","timestamp":"2026-03-01T10:00:00.004Z"}}
{"jsonrpc":"2.0","method":"autohand.turnEnd","params":{"turnId":"turn_1","timestamp":"2026-03-01T10:00:00.005Z","contextPercent":1,"tokensUsed":120,"tokensUsageStatus":"actual","durationMs":5,"reason":"completed"}}
`,
	"no-change": `{"jsonrpc":"2.0","id":%[1]s,"result":{"success":true}}
{"jsonrpc":"2.0","method":"autohand.turnStart","params":{"turnId":"turn_1","timestamp":"2026-03-01T10:00:00.000Z"}}
{"jsonrpc":"2.0","method":"autohand.changesBatchStart","params":{"batchId":"changes_1","turnId":"turn_1","timestamp":"2026-03-01T10:00:00.001Z"}}
{"jsonrpc":"2.0","method":"autohand.changesBatchEnd","params":{"batchId":"changes_1","changeCount":0,"timestamp":"2026-03-01T10:00:00.003Z"}}
{"jsonrpc":"2.0","method":"autohand.messageEnd","params":{"messageId":"msg_1","content":"Nothing to change.","timestamp":"2026-03-01T10:00:00.004Z"}}
{"jsonrpc":"2.0","method":"autohand.turnEnd","params":{"turnId":"turn_1","timestamp":"2026-03-01T10:00:00.005Z","contextPercent":1,"tokensUsed":80,"tokensUsageStatus":"actual","durationMs":5,"reason":"completed"}}
`,
}

// signedOut is the one line the CLI writes when started signed out, before
// it exits with status 1 without reading its input.
const signedOut = `{"jsonrpc":"2.0","error":{"code":-32011,"message":"Authentication required. Run ` + "`autohand login`" + ` first.","data":{"kind":"authentication_required","stage":"startup","retryable":true,"providerId":"openrouter"}},"id":null}`

// replayCLI plays script on stdin and stdout and returns the exit status.
func replayCLI(script string) int {
	if script == "signed-out" {
		fmt.Println(signedOut)
		return 1
	}
	log, err := os.Create(os.Getenv(replayLogEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer log.Close()
	in := bufio.NewReader(os.Stdin)
	applied := false
	for {
		line, err := in.ReadBytes('\n')
		if err == io.EOF {
			return 0
		} else if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				BatchID string `json:"batchId"`
				Action  string `json:"action"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &req) != nil || req.ID == nil {
			continue
		}
		fmt.Fprintln(log, strings.TrimSpace(req.Method+" "+req.Params.Action))
		var reply string
		switch {
		case req.Method == "autohand.prompt":
			reply = fmt.Sprintf(replayScripts[script], req.ID)
		case req.Method == "autohand.changesDecision" && script == "one-change" && req.Params.BatchID == "changes_1" && !applied:
			applied = req.Params.Action == "accept_all"
			reply = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"success":true,"appliedCount":%d,"skippedCount":%d}}`+"\n", req.ID, b2i(applied), 1-b2i(applied))
		case req.Method == "autohand.changesDecision":
			reply = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"success":false,"appliedCount":0,"skippedCount":0,"errors":[{"changeId":"unknown","error":"Batch %s not found or expired"}]}}`+"\n", req.ID, req.Params.BatchID)
		default:
			reply = fmt.Sprintf(`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found: %s"},"id":%s}`+"\n", req.Method, req.ID)
		}
		os.Stdout.WriteString(reply)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// runReplay runs the client example against this binary replaying script,
// and returns the client's stdout and stderr, the methods (with the change
// decision's action) the replay received, and the client's error.
func runReplay(t *testing.T, script string, args ...string) (stdout, stderr string, received []string, err error) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "received")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(clientBin, append(args, "--", self)...)
	cmd.Env = append(os.Environ(), replayEnv+"="+script, replayLogEnv+"="+logPath)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if b, rerr := os.ReadFile(logPath); rerr == nil {
		received = strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	return out.String(), errOut.String(), received, err
}

// TestClientWaitsForChangesDecision: the CLI ends the turn right after the
// batch; the client must still send its decision and wait for the answer
// (the file is written then) before it closes the agent's input.
func TestClientWaitsForChangesDecision(t *testing.T) {
	out, stderr, received, err := runReplay(t, "one-change", "-prompt", "Create hello.txt", "-changes", "accept")
	if err != nil {
		t.Fatalf("client: %v\n%s%s", err, out, stderr)
	}
	if want := []string{"autohand.prompt", "autohand.changesDecision accept_all"}; strings.Join(received, "|") != strings.Join(want, "|") {
		t.Errorf("the CLI received %q, want %q", received, want)
	}
	if !strings.Contains(out, "[client] changes_1: 1 applied, 0 skipped") {
		t.Errorf("the client did not wait for the decision's answer:\n%s%s", out, stderr)
	}
}

// TestClientSkipsEmptyBatch: a batch of no changes is not decided.
func TestClientSkipsEmptyBatch(t *testing.T) {
	out, stderr, received, err := runReplay(t, "no-change", "-prompt", "Nothing", "-changes", "accept")
	if err != nil {
		t.Fatalf("client: %v\n%s%s", err, out, stderr)
	}
	if want := []string{"autohand.prompt"}; strings.Join(received, "|") != strings.Join(want, "|") {
		t.Errorf("the CLI received %q, want %q", received, want)
	}
	if !strings.Contains(out, "[client] changes_1: no changes") || strings.Contains(out, "not found") {
		t.Errorf("output:\n%s%s", out, stderr)
	}
}

// TestClientReportsStartupError: the CLI started signed out writes its
// error with id null and exits; the client says why it stopped.
func TestClientReportsStartupError(t *testing.T) {
	out, stderr, _, err := runReplay(t, "signed-out", "-prompt", "Hello")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("client: %v\n%s%s", err, out, stderr)
	}
	want := "client: the agent reported error -32011: Authentication required. Run `autohand login` first. (authentication_required)"
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}
