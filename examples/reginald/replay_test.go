package reginald_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// replayPlugin starts the plugin binary, as Reginald does from the
// manifest (no arguments), and feeds it bodies framed as Reginald frames
// them, waiting for the answer to each request before the next, as
// Reginald's calls do. It returns every message the plugin sent, then
// waits for the plugin to exit with its stdin still open, as Reginald
// waits after exit.
func replayPlugin(t *testing.T, bodies [][]byte) []envelope {
	t.Helper()
	cmd := exec.Command(bin.plugin)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	got := make(chan []envelope, 1)
	go func() {
		r := bufio.NewReader(stdout)
		var msgs []envelope
		defer func() { got <- msgs }()
		for _, body := range bodies {
			var req envelope
			if err := json.Unmarshal(body, &req); err != nil {
				done <- err
				return
			}
			if _, err := stdin.Write(frame(body)); err != nil {
				done <- err
				return
			}
			for len(req.ID) > 0 {
				msg, err := readFrame(r)
				if err != nil {
					done <- err
					return
				}
				var e envelope
				if err := strict(msg, &e); err != nil {
					t.Errorf("Reginald would refuse %s: %v", msg, err)
				}
				msgs = append(msgs, e)
				if e.Method == "" && bytes.Equal(e.ID, req.ID) {
					break
				}
			}
		}
		_, err := io.Copy(io.Discard, r)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("replay: %v", err)
		}
	case <-time.After(wait):
		_ = cmd.Process.Kill()
		<-done
		t.Fatal("the plugin did not exit after the exit notification")
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("plugin exit: %v", err)
	}
	return <-got
}

// upstreamLog is a log notification's params as Reginald decodes them
// (its level with log/slog's reader).
type upstreamLog struct {
	Time   time.Time `json:"time"`
	Msg    string    `json:"msg"`
	Source *struct {
		Function string `json:"function"`
		File     string `json:"file"`
		Line     int    `json:"line"`
	} `json:"source"`
	Attrs []struct {
		Key   string          `json:"key"`
		Value json.RawMessage `json:"value"`
	} `json:"attrs"`
	Level slog.Level `json:"level"`
}

// results checks that msgs answer ids 1.. with want (JSON), in order, and
// returns the log notifications decoded as Reginald decodes them.
func results(t *testing.T, msgs []envelope, want ...string) []upstreamLog {
	t.Helper()
	var logs []upstreamLog
	i := 0
	for _, m := range msgs {
		if m.Method == "log" {
			var l upstreamLog
			if err := json.Unmarshal(m.Params, &l); err != nil {
				t.Errorf("Reginald cannot read the log record %s: %v", m.Params, err)
			}
			logs = append(logs, l)
			continue
		}
		if m.Method != "" || m.JSONRPC != "2.0" {
			t.Errorf("unexpected message %+v", m)
			continue
		}
		if i >= len(want) || m.Error != nil || string(m.Result) != want[i] {
			t.Errorf("answer %d: result %s error %s, want %v", i+1, m.Result, m.Error, want)
		}
		i++
	}
	if i != len(want) {
		t.Errorf("%d answers, want %d", i, len(want))
	}
	return logs
}

func attrs(l upstreamLog) string {
	var parts []string
	for _, a := range l.Attrs {
		parts = append(parts, a.Key+"="+string(a.Value))
	}
	return l.Level.String() + " " + l.Msg + " " + strings.Join(parts, " ")
}

// What Reginald sent to run the task dotfiles/symlink: handshake, runTask
// with resolved paths, shutdown with params null, exit with params null.
func TestReplayReginaldRunTask(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "vimrc"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	msgs := replayPlugin(t, recorded(t, "reginald-runtask.to-plugin.bin", dir))
	logs := results(t, msgs, `{"name":"reginald-dotfiles","protocol":"reginald","protocolVersion":0}`, `{}`, `true`)
	if target, err := os.Readlink(filepath.Join(dir, "home", ".vimrc")); err != nil || target != filepath.Join(dir, "vimrc") {
		t.Errorf("link: %q, %v", target, err)
	}
	want := `INFO linked src="` + dir + `/vimrc" dst="` + dir + `/home/.vimrc"`
	if len(logs) == 0 || attrs(logs[0]) != want {
		t.Errorf("logs %+v, want first %s", logs, want)
	}
}

// What Reginald sent for `reginald dotfiles status`: runCommand with the
// command's config and the plugin's, the latter holding a "configs" value
// per command.
func TestReplayReginaldRunCommand(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "vimrc"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "home"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "vimrc"), filepath.Join(dir, "home", ".vimrc")); err != nil {
		t.Fatal(err)
	}
	logs := results(t, replayPlugin(t, recorded(t, "reginald-runcommand.to-plugin.bin", dir)),
		`{"name":"reginald-dotfiles","protocol":"reginald","protocolVersion":0}`, `{}`, `true`)
	var got []string
	for _, l := range logs {
		got = append(got, attrs(l))
	}
	want := []string{
		`INFO present path="` + dir + `/vimrc"`,
		`INFO link path="` + dir + `/home/.vimrc" target="` + dir + `/vimrc"`,
		`DEBUG shutting down `,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("logs\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Reginald's params types are Go slices, which encode as null when nil:
// the plugin takes null lists as empty ones.
func TestReplayReginaldNullLists(t *testing.T) {
	dir := t.TempDir()
	bodies := recorded(t, "reginald-runcommand.to-plugin.bin", dir)
	bodies[1] = []byte(`{"jsonrpc":"2.0","id":2,"method":"runCommand","params":{"cmd":"status","config":null,"pluginConfig":null}}`)
	results(t, replayPlugin(t, bodies), `{"name":"reginald-dotfiles","protocol":"reginald","protocolVersion":0}`, `{}`, `true`)

	bodies = recorded(t, "reginald-runtask.to-plugin.bin", dir)
	bodies[1] = []byte(`{"jsonrpc":"2.0","id":2,"method":"runTask","params":{"taskType":"symlink","config":null}}`)
	msgs := replayPlugin(t, bodies)
	if len(msgs) < 2 || !strings.Contains(string(msgs[1].Error), `"code":-32603`) || !strings.Contains(string(msgs[1].Error), "src and dst are required") {
		t.Errorf("runTask with config null: %+v, want the task's own failure", msgs)
	}
}
