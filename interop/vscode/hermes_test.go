package vscode_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nonASCII is the payload whose bytes outnumber its characters.
const nonASCII = "Zoë ✓"

// Our examples/hermes/host spawns a Hermes extension written on
// vscode-jsonrpc and runs its self-test command: 50 concurrent
// editor/getMessage calls, a non-ASCII patch read back, IDL errors
// (InvalidPath with data, InvalidParams), an unknown method (-32601 from
// our host), dialogues, and the host's notifications (message/opened,
// command/execute, message/changed, message/saved).
func TestHermesHostSpawnsVSCodeExtension(t *testing.T) {
	r := newRun(t, "vscode-jsonrpc Hermes extension spawned by examples/hermes/host")
	out := filepath.Join(t.TempDir(), "out.hl7")
	// -idle: the host takes the command as finished after this long
	// without a request; 2 s leaves room on a loaded machine.
	if err := r.run(t, hermesHost, "-idle", "2s", "-run", "vscode/selftest", "-out", out, "--", "node", node("hermes-extension.js")); err != nil {
		t.Fatalf("%s: host failed: %v", r.peer, err)
	}
	steps, _ := r.steps(t,
		"received initialize",
		"received message/opened",
		"received command/execute",
		"50 concurrent editor/getMessage",
		"editor/patchMessage with a non-ASCII value",
		"editor/getMessage reads the non-ASCII value back",
		"editor/patchMessage with a malformed path fails with InvalidPath",
		"editor/getMessage in yaml and toml",
		"editor/getMessage in a format the protocol lacks fails with InvalidParams",
		"an unknown method fails with MethodNotFound",
		"ui/showConfirm",
		"ui/showMessage with non-ASCII text",
		"received message/changed",
		"received message/saved",
		"received shutdown",
	)
	var changed struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(steps["received message/changed"].Got, &changed); err != nil || !strings.Contains(changed.Message, "doe^"+nonASCII+"^q") {
		t.Errorf("%s: message/changed should carry the patched name %q: %s", r.peer, nonASCII, steps["received message/changed"].Got)
	}
	saved, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("%s: the host saved nothing: %v", r.peer, err)
	}
	if !strings.Contains(string(saved), "PID|1||12345678^^^GENHOSP^MR||doe^"+nonASCII+"^q||19800101|F") {
		t.Errorf("%s: the saved message lacks the patched name:\n%q", r.peer, saved)
	}
	if !strings.Contains(r.stderr.String(), `message="Patient is `+nonASCII+`"`) {
		t.Errorf("%s: the host did not show the non-ASCII dialogue text", r.peer)
	}
	r.checkFraming(t, nonASCII, nonASCII)
}

// A Hermes host written on vscode-jsonrpc spawns our
// examples/hermes/extension: initialize, an unknown method (-32601 from
// our extension), message/opened, command/execute whose editor/getMessage
// and editor/patchMessage carry non-ASCII names both ways, the same
// command with editor/getMessage answered by the IDL error NoMessageOpen
// (-32003, which our extension reports back through ui/showMessage),
// shutdown and exit.
func TestVSCodeHermesHostSpawnsExtension(t *testing.T) {
	r := newRun(t, "vscode-jsonrpc Hermes host spawning examples/hermes/extension")
	if err := r.run(t, "node", node("hermes-host.js"), r.report, r.traffic, hermesExtension); err != nil {
		t.Fatalf("%s: node failed: %v", r.peer, err)
	}
	r.steps(t,
		"initialize",
		"an unknown method fails with MethodNotFound",
		"message/opened notification",
		"command/execute normaliseName patches non-ASCII names",
		"command/execute with editor/getMessage answered by NoMessageOpen",
		"shutdown",
		"the extension exits when its stdin ends",
	)
	r.checkFraming(t, "ÜNÏCÖDÉ ✓", "ünïcödé ✓")
}
