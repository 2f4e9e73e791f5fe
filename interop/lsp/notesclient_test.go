package lsp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// clientSteps are the steps client.js reports, in order, when a notes
// server behaves as README.md says.
var clientSteps = []string{
	"initialize", "client/registerCapability", "workspace/configuration",
	"publishDiagnostics", "hover 2:4", "hover 1:7", "hover 0:4", "completion",
	"publishDiagnostics after didChange", "notes.count", "definition",
	"cancelled notes.wait", "publishDiagnostics after didClose", "shutdown", "exit",
}

// transcript is what client.js prints.
type transcript struct {
	Steps []struct {
		Name  string          `json:"name"`
		OK    bool            `json:"ok"`
		Got   json.RawMessage `json:"got"`
		Error string          `json:"error"`
	} `json:"steps"`
	Sent     json.RawMessage `json:"sent"`
	Received json.RawMessage `json:"received"`
}

// runNotesClient runs client.js against the server command line and
// returns its transcript, its stderr and its error.
func runNotesClient(t *testing.T, env []string, server ...string) (*transcript, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*wait)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{"client.js"}, server...)...)
	cmd.Dir = here
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("client.js did not finish within %v\n--- stderr ---\n%s", 4*wait, stderr.String())
	}
	var tr transcript
	if jerr := json.Unmarshal(stdout.Bytes(), &tr); jerr != nil {
		t.Fatalf("client.js printed no transcript (%v): %q\n--- stderr ---\n%s", jerr, stdout.String(), stderr.String())
	}
	return &tr, stderr.String(), err
}

// checkNotesRun fails the test unless every step of clientSteps passed,
// in order, and client.js exited 0.
func checkNotesRun(t *testing.T, tr *transcript, stderr string, err error) {
	t.Helper()
	var names []string
	for _, s := range tr.Steps {
		names = append(names, s.Name)
		if !s.OK {
			t.Errorf("step %s failed: %s", s.Name, s.Error)
		}
	}
	if strings.Join(names, ", ") != strings.Join(clientSteps, ", ") {
		t.Errorf("steps %q, want %q", names, clientSteps)
	}
	if err != nil {
		t.Errorf("client.js: %v\n--- stderr ---\n%s", err, stderr)
	}
	if t.Failed() {
		t.Logf("--- sent ---\n%s\n--- received ---\n%s", tr.Sent, tr.Received)
	}
}

// The reference notes server passes every check of client.js: the
// client and README.md agree.
func TestNotesClientAgainstReferenceServer(t *testing.T) {
	tr, stderr, err := runNotesClient(t, nil, "node", "reference-server.js")
	checkNotesRun(t, tr, stderr, err)
}

// The notes server of examples/lsp/server, on the generated server role,
// passes every check of client.js, and logs no warning or error on its
// stderr (which client.js passes through).
func TestNotesClientDrivesNotesServer(t *testing.T) {
	tr, stderr, err := runNotesClient(t, nil, notesServer)
	checkNotesRun(t, tr, stderr, err)
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
			t.Errorf("the server logged: %s", line)
		}
	}
}

// client.js catches a server that breaks README.md, and names the step.
func TestNotesClientCatchesFaults(t *testing.T) {
	for _, c := range []struct{ fault, step, says string }{
		{"bytes", "publishDiagnostics", `"character":10`},
		{"shutdown", "shutdown", "result: got {}, want null"},
		{"progress", "unexpected progress", "no window/workDoneProgress/create announced"},
	} {
		t.Run(c.fault, func(t *testing.T) {
			t.Parallel()
			tr, stderr, err := runNotesClient(t, []string{"NOTES_FAULT=" + c.fault}, "node", "reference-server.js")
			if err == nil {
				t.Fatalf("client.js passed a server with fault %s", c.fault)
			}
			last := tr.Steps[len(tr.Steps)-1]
			if last.OK || last.Name != c.step || !strings.Contains(last.Error, c.says) || !strings.Contains(stderr, "step "+c.step+": ") {
				t.Errorf("last step %+v, stderr %q: want step %s failing with %q", last, stderr, c.step, c.says)
			}
		})
	}
}
