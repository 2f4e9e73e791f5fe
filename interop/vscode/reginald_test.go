package vscode_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// pluginDir writes a plugin directory whose manifest.json runs the
// vscode-jsonrpc plugin under node, through a small executable script
// (Reginald runs the manifest's executable with no arguments).
func pluginDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vscode-plugin")
	manifest, err := json.Marshal(map[string]any{
		"name": "vscode-plugin", "domain": "vscode", "executable": "run",
		"config": []any{map[string]any{"key": "who", "value": nonASCII, "type": "string"}},
		"commands": []any{
			map[string]any{"name": "greet", "usage": "greet", "description": "Greets.",
				"config": []any{map[string]any{"key": "names", "value": []string{}, "type": "stringList"}}},
			map[string]any{"name": "fail", "usage": "fail", "description": "Fails."},
		},
		"tasks": []any{map[string]any{"taskType": "echo", "description": "Echoes.",
			"config": []any{map[string]any{"key": "text", "value": "", "type": "string"}}}},
	})
	script := "#!/bin/sh\nexec " + strconv.Quote(nodeBin()) + " " + strconv.Quote(node("reginald-plugin.js")) + "\n"
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "manifest.json"), manifest, 0o644)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "run"), []byte(script), 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// nodeBin is the node executable from PATH.
func nodeBin() string {
	if p, err := exec.LookPath("node"); err == nil {
		return p
	}
	return "node"
}

// writeTasks writes a -tasks file.
func writeTasks(t *testing.T, tasks string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "tasks.json")
	if err := os.WriteFile(f, []byte(tasks), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// exitCode is the exit status in err, 0 for nil, -1 for other errors.
func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	return -1
}

// Our examples/reginald/host runs a Reginald plugin written on
// vscode-jsonrpc (found through its manifest.json): handshake, runTask of
// a task, runCommand with its config and the plugin's (non-ASCII values),
// the plugin's log notifications (written by our host's logger, one at a
// level with an offset: INFO+2), shutdown and the exit notification; then
// the errors CommandFailed (-32003 with data) and a failed task (-32603)
// sent by vscode-jsonrpc, which our host reports.
func TestReginaldHostRunsVSCodePlugin(t *testing.T) {
	plugin := pluginDir(t)
	t.Run("tasks and command", func(t *testing.T) {
		r := newRun(t, "vscode-jsonrpc Reginald plugin run by examples/reginald/host")
		tasks := writeTasks(t, `[{"type": "vscode/echo", "config": {"text": "`+nonASCII+`"}}]`)
		if err := r.run(t, reginaldHost, "-tasks", tasks, "-set", "names="+nonASCII+",Ω", plugin, "greet"); err != nil {
			t.Fatalf("%s: host failed: %v", r.peer, err)
		}
		steps, _ := r.steps(t, "received handshake", "received runTask", "received runCommand", "received shutdown", "received exit")
		var cmd struct {
			Cmd    string `json:"cmd"`
			Config []struct {
				Key   string   `json:"key"`
				Value []string `json:"value"`
			} `json:"config"`
		}
		if err := json.Unmarshal(steps["received runCommand"].Got, &cmd); err != nil || cmd.Cmd != "greet" || len(cmd.Config) != 1 || strings.Join(cmd.Config[0].Value, "|") != nonASCII+"|Ω" {
			t.Errorf("%s: runCommand params: %s", r.peer, steps["received runCommand"].Got)
		}
		if got, want := r.stdout.String(), "task 1 (echo): done\ncommand greet: done\n"; got != want {
			t.Errorf("%s: host output %q, want %q", r.peer, got, want)
		}
		for _, want := range []string{
			`level=WARN msg=echo plugin=vscode-plugin text="` + nonASCII + `"`,
			`msg="hello ` + nonASCII + ` Ω" plugin=vscode-plugin count=2 who="` + nonASCII + `"`,
			`level=INFO+2 msg=greeted plugin=vscode-plugin`,
		} {
			if !strings.Contains(r.stderr.String(), want) {
				t.Errorf("%s: the host did not log the plugin's record %s", r.peer, want)
			}
		}
		r.checkFraming(t, nonASCII, nonASCII)
	})
	t.Run("CommandFailed", func(t *testing.T) {
		r := newRun(t, "vscode-jsonrpc Reginald plugin run by examples/reginald/host")
		err := r.run(t, reginaldHost, plugin, "fail")
		want := `host: command fail: jsonrpc error -32003: command error (data: "told to fail: ` + nonASCII + `")`
		if exitCode(err) != 1 || !strings.Contains(r.stderr.String(), want) {
			t.Errorf("%s: host exit %v, want status 1 and %s", r.peer, err, want)
		}
		r.steps(t, "received runCommand", "received shutdown")
	})
	t.Run("task failed", func(t *testing.T) {
		r := newRun(t, "vscode-jsonrpc Reginald plugin run by examples/reginald/host")
		tasks := writeTasks(t, `[{"type": "vscode/echo", "config": {"text": "bad"}}]`)
		err := r.run(t, reginaldHost, "-tasks", tasks, plugin)
		want := `host: task 1 (echo): jsonrpc error -32603: echo: text "bad" is bad`
		if exitCode(err) != 1 || !strings.Contains(r.stderr.String(), want) {
			t.Errorf("%s: host exit %v, want status 1 and %s", r.peer, err, want)
		}
		r.steps(t, "received runTask", "received shutdown")
	})
}

// A Reginald host written on vscode-jsonrpc runs our
// examples/reginald/plugin: handshake, HandshakeFailed (-32000), an unknown
// method (-32601), InvalidCommand (-32001), 50 concurrent runTask calls
// (half failing with -32603), a runTask linking non-ASCII paths (our
// plugin's log notifications), a runCommand failing with CommandFailed
// whose data names a non-ASCII path, shutdown with params null,
// MethodNotFound after shutdown, and the exit notification, on which the
// plugin exits with its stdin still open.
func TestVSCodeReginaldHostRunsPlugin(t *testing.T) {
	r := newRun(t, "vscode-jsonrpc Reginald host running examples/reginald/plugin")
	work := t.TempDir()
	if err := r.run(t, "node", node("reginald-host.js"), r.report, r.traffic, work, reginaldPlugin); err != nil {
		t.Fatalf("%s: node failed: %v", r.peer, err)
	}
	r.steps(t,
		"handshake",
		"a handshake naming another protocol fails with HandshakeFailed",
		"an unknown method fails with MethodNotFound",
		"runCommand of an unknown command fails with InvalidCommand",
		"50 concurrent runTask calls",
		"runTask links non-ASCII paths",
		"runCommand status fails with CommandFailed naming a non-ASCII path",
		"shutdown",
		"a request after shutdown fails with MethodNotFound",
		"the exit notification ends the plugin",
	)
	if target, err := os.Readlink(filepath.Join(work, "link "+nonASCII)); err != nil || target != filepath.Join(work, "source "+nonASCII) {
		t.Errorf("%s: our plugin did not create the non-ASCII link: %q, %v", r.peer, target, err)
	}
	r.checkFraming(t, nonASCII, nonASCII)
}
