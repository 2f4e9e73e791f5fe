package reginald_test

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
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/exampletest"
)

// wait bounds every wait of these tests.
const wait = 10 * time.Second

// bin holds the example binaries built by TestMain.
var bin struct{ host, plugin string }

// replayEnv names the recorded answers the test binary replays when a
// host starts it as a scripted plugin (see scriptedPlugin).
const replayEnv = "REGINALD_REPLAY_ANSWERS"

func TestMain(m *testing.M) {
	if file := os.Getenv(replayEnv); file != "" {
		os.Exit(scriptedPlugin(file, os.Stdin, os.Stdout))
	}
	exampletest.Main(m, map[string]*string{"./host": &bin.host, "./plugin": &bin.plugin})
}

// readFrame reads one Content-Length framed message, as Reginald reads
// them: header lines up to an empty one, Content-Length required.
func readFrame(r *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if name, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(name, "Content-Length") {
			if n, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return nil, fmt.Errorf("bad Content-Length %q", v)
			}
		}
	}
	if n <= 0 || n > 1<<20 {
		return nil, fmt.Errorf("bad Content-Length %d", n)
	}
	body := make([]byte, n)
	_, err := io.ReadFull(r, body)
	return body, err
}

// frame frames body as Reginald writes it.
func frame(body []byte) []byte {
	return append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))), body...)
}

// recorded reads the bodies of a file of testdata/upstream, with the
// recorded run directory replaced by dir.
func recorded(t *testing.T, name, dir string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "upstream", name))
	if err != nil {
		t.Fatal(err)
	}
	bodies, err := splitFrames(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for i := range bodies {
		bodies[i] = bytes.ReplaceAll(bodies[i], []byte("/home/user/dotfiles"), []byte(dir))
	}
	return bodies
}

func splitFrames(data []byte) ([][]byte, error) {
	r := bufio.NewReader(bytes.NewReader(data))
	var bodies [][]byte
	for {
		body, err := readFrame(r)
		if errors.Is(err, io.EOF) {
			return bodies, nil
		}
		if err != nil {
			return nil, err
		}
		bodies = append(bodies, body)
	}
}

// envelope is a message as Reginald decodes it: these members only.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	Method  string          `json:"method,omitempty"`
	ID      json.RawMessage `json:"id,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
}

// strict decodes body as Reginald does, refusing unknown members.
func strict(body []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// scriptedPlugin plays a recorded plugin: for each request it reads it
// writes the recorded frames up to the answer with the request's id (log
// notifications included); it exits on the exit notification. A request
// the recording does not answer ends it with status 3.
func scriptedPlugin(file string, in io.Reader, out io.Writer) int {
	data, err := os.ReadFile(file)
	if err == nil {
		var bodies [][]byte
		if bodies, err = splitFrames(data); err == nil {
			err = replayAnswers(bodies, bufio.NewReader(in), out)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scripted plugin:", err)
		return 3
	}
	return 0
}

func replayAnswers(bodies [][]byte, in *bufio.Reader, out io.Writer) error {
	for {
		body, err := readFrame(in)
		if err != nil {
			return err
		}
		var req envelope
		if err := json.Unmarshal(body, &req); err != nil {
			return err
		}
		if req.Method == "exit" {
			return nil
		}
		for {
			if len(bodies) == 0 {
				return fmt.Errorf("no recorded answer to %s", body)
			}
			next := bodies[0]
			bodies = bodies[1:]
			if _, err := out.Write(frame(next)); err != nil {
				return err
			}
			var msg envelope
			if json.Unmarshal(next, &msg) == nil && msg.Method == "" && bytes.Equal(msg.ID, req.ID) {
				break
			}
		}
	}
}

// pluginDir installs a plugin directory: exe (copied as "plugin") and the
// manifest our plugin prints for name.
func pluginDir(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest, err := exec.Command(bin.plugin, "-manifest", "-name", name, "-executable", "plugin").Output()
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.ReadFile(bin.plugin)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "plugin"), exe, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "manifest.json"), manifest, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// scriptedDir installs a plugin directory whose executable is this test
// binary replaying answers (a file of testdata/upstream), with manifest.
func scriptedDir(t *testing.T, answers string, manifest []byte) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", "upstream", answers))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(replayEnv, abs)
	dir := t.TempDir()
	script := "#!/bin/sh\nexec " + strconv.Quote(os.Args[0]) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "scripted"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runHost runs the host binary and returns its stdout and stderr.
func runHost(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(bin.host, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = wait
	err := cmd.Run()
	return out.String(), errOut.String(), err
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
