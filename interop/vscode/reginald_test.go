package vscode_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pluginDir writes a plugin directory whose manifest runs the vscode-jsonrpc
// plugin under node (a runtime entrypoint).
func pluginDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vscode-plugin")
	manifest, err := json.Marshal(map[string]any{
		"name": "vscode-plugin",
		"entrypoint": map[string]any{
			"type": "runtime", "runtime": "node", "command": []string{"$1", node("reginald-plugin.js")},
		},
	})
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "reginald-plugin.json"), manifest, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
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
// vscode-jsonrpc (found through its manifest, run by node): handshake,
// initialize, the validateTask and runTask requests of a task, setupCommand
// and runCommand with non-ASCII arguments, the plugin's log notifications
// (written by our host's logger, one at a level with an offset: info+2),
// shutdown and the exit notification; then the IDL errors CommandFailed
// (-32000 with data) and InvalidConfig (-32050) sent by vscode-jsonrpc,
// which our host reports.
func TestReginaldHostRunsVSCodePlugin(t *testing.T) {
	plugin := pluginDir(t)
	t.Run("tasks and command", func(t *testing.T) {
		r := newRun(t, "vscode-jsonrpc Reginald plugin run by examples/reginald/host")
		tasks := writeTasks(t, `[{"type": "echo", "config": {"text": "`+nonASCII+`"}}]`)
		if err := r.run(t, reginaldHost, "-tasks", tasks, plugin, "greet", nonASCII, "Ω"); err != nil {
			t.Fatalf("%s: host failed: %v", r.peer, err)
		}
		steps, _ := r.steps(t, "received handshake", "received initialize", "received validateTask", "received runTask",
			"received setupCommand", "received runCommand", "received shutdown", "received exit")
		var setup struct {
			Args []string `json:"args"`
		}
		if err := json.Unmarshal(steps["received setupCommand"].Got, &setup); err != nil || strings.Join(setup.Args, "|") != nonASCII+"|Ω" {
			t.Errorf("%s: setupCommand args: %s", r.peer, steps["received setupCommand"].Got)
		}
		if got, want := r.stdout.String(), "task 1 (echo): done\ncommand greet: done\n"; got != want {
			t.Errorf("%s: host output %q, want %q", r.peer, got, want)
		}
		for _, want := range []string{
			`msg="initialized by vscode-jsonrpc" plugin=` + plugin + ` who="` + nonASCII + `"`,
			`level=WARN msg=echo plugin=` + plugin + ` text="` + nonASCII + `"`,
			`msg="hello ` + nonASCII + ` Ω" plugin=` + plugin + ` count=2`,
			`level=INFO+2 msg=greeted plugin=` + plugin,
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
		want := `host: command fail: jsonrpc error -32000: Command failed (data: "told to fail: ` + nonASCII + `")`
		if exitCode(err) != 1 || !strings.Contains(r.stderr.String(), want) {
			t.Errorf("%s: host exit %v, want status 1 and %s", r.peer, err, want)
		}
		r.steps(t, "received runCommand", "received shutdown")
	})
	t.Run("InvalidConfig", func(t *testing.T) {
		r := newRun(t, "vscode-jsonrpc Reginald plugin run by examples/reginald/host")
		tasks := writeTasks(t, `[{"type": "echo", "config": {"text": "bad"}}]`)
		err := r.run(t, reginaldHost, "-tasks", tasks, plugin)
		want := `host: task 1 (echo): jsonrpc error -32050: echo: text "bad" is bad`
		if exitCode(err) != 1 || !strings.Contains(r.stderr.String(), want) {
			t.Errorf("%s: host exit %v, want status 1 and %s", r.peer, err, want)
		}
		r.steps(t, "received validateTask", "received shutdown")
	})
}

// A Reginald host written on vscode-jsonrpc runs our
// examples/reginald/plugin: handshake, initialize with debug logging (our
// plugin's log notifications), an unknown method (-32601), InvalidParams,
// 50 concurrent validateTask calls (half answered InvalidConfig -32050), a
// runTask linking non-ASCII paths, a runCommand failing with CommandFailed
// whose data names a non-ASCII path, shutdown, InvalidRequest after
// shutdown, and the exit notification.
func TestVSCodeReginaldHostRunsPlugin(t *testing.T) {
	r := newRun(t, "vscode-jsonrpc Reginald host running examples/reginald/plugin")
	work := t.TempDir()
	if err := r.run(t, "node", node("reginald-host.js"), r.report, r.traffic, work, reginaldPlugin); err != nil {
		t.Fatalf("%s: node failed: %v", r.peer, err)
	}
	r.steps(t,
		"handshake",
		"initialize with debug logging",
		"an unknown method fails with MethodNotFound",
		"setupCommand of an unknown command fails with InvalidParams",
		"50 concurrent validateTask calls",
		"runTask links non-ASCII paths",
		"runCommand status fails with CommandFailed naming a non-ASCII path",
		"shutdown",
		"a request after shutdown fails with InvalidRequest",
		"the exit notification ends the plugin",
	)
	if target, err := os.Readlink(filepath.Join(work, "link "+nonASCII)); err != nil || target != filepath.Join(work, "source "+nonASCII) {
		t.Errorf("%s: our plugin did not create the non-ASCII link: %q, %v", r.peer, target, err)
	}
	r.checkFraming(t, nonASCII, nonASCII)
}
