package vscode_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/internal/exampletest"
)

// wait bounds every wait of these tests.
const wait = 10 * time.Second

// The example binaries, built by TestMain.
var (
	hermesHost      string
	hermesExtension string
	reginaldHost    string
	reginaldPlugin  string
)

// peersDir holds the Node peers; nodeModules is where npm ci installs
// vscode-jsonrpc.
var peersDir, nodeModules string

func TestMain(m *testing.M) {
	if err := setup(); err != nil {
		fmt.Fprintln(os.Stderr, "interop/vscode:", err)
		os.Exit(1)
	}
	exampletest.Main(m, map[string]*string{
		"../../examples/hermes/host":      &hermesHost,
		"../../examples/hermes/extension": &hermesExtension,
		"../../examples/reginald/host":    &reginaldHost,
		"../../examples/reginald/plugin":  &reginaldPlugin,
	})
}

// setup finds node and the installed npm packages; a missing one is a
// failure, never a skip.
func setup() error {
	here, err := filepath.Abs(".")
	if err != nil {
		return err
	}
	peersDir = filepath.Join(here, "peers")
	nodeModules = filepath.Join(here, "node_modules")
	if _, err := exec.LookPath("node"); err != nil {
		return fmt.Errorf("node is not installed (Node 20 or later is needed): %w", err)
	}
	if _, err := os.Stat(filepath.Join(nodeModules, "vscode-jsonrpc", "package.json")); err != nil {
		return fmt.Errorf("vscode-jsonrpc is not installed: run npm ci in %s (%v)", here, err)
	}
	return nil
}

// peerRun describes one exchange with a Node peer: its name (for
// failures), where the peer writes its report and its raw traffic, and
// what the processes wrote to stderr.
type peerRun struct {
	peer    string
	report  string
	traffic string
	stderr  bytes.Buffer
	stdout  bytes.Buffer
}

// newRun prepares files for one exchange and, when the test fails, logs
// the peer's name, the raw bytes exchanged and the processes' stderr.
func newRun(t *testing.T, peer string) *peerRun {
	t.Helper()
	dir := t.TempDir()
	r := &peerRun{peer: peer, report: filepath.Join(dir, "report.json"), traffic: filepath.Join(dir, "traffic.jsonl")}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("peer: %s\n--- raw traffic as the Node peer saw it (in = received from our side, out = sent by vscode-jsonrpc) ---\n%s--- stdout ---\n%s--- stderr ---\n%s",
				peer, r.dump(), r.stdout.String(), r.stderr.String())
		}
	})
	return r
}

// run runs name with args, bounded by wait, with the run's files in
// its environment; it returns the command's error.
func (r *peerRun) run(t *testing.T, name string, args ...string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "VSCODE_REPORT="+r.report, "VSCODE_TRAFFIC="+r.traffic)
	cmd.Stdout, cmd.Stderr = &r.stdout, &r.stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Errorf("%s: %s did not finish within %v", r.peer, filepath.Base(name), wait)
	}
	return err
}

// chunk is one read or write of the Node peer, as recorded by peers/lib.js.
type chunk struct {
	Dir string `json:"dir"`
	B64 string `json:"b64"`
}

func (r *peerRun) chunks() ([]chunk, []byte, []byte, error) {
	data, err := os.ReadFile(r.traffic)
	if err != nil {
		return nil, nil, nil, err
	}
	var cs []chunk
	var in, out []byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var c chunk
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, nil, nil, fmt.Errorf("traffic file: %w", err)
		}
		b, err := base64.StdEncoding.DecodeString(c.B64)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("traffic file: %w", err)
		}
		c.B64 = string(b)
		cs = append(cs, c)
		if c.Dir == "in" {
			in = append(in, b...)
		} else {
			out = append(out, b...)
		}
	}
	return cs, in, out, sc.Err()
}

// dump renders the raw traffic, chunk by chunk, with CR and LF visible.
func (r *peerRun) dump() string {
	cs, _, _, err := r.chunks()
	if err != nil {
		return fmt.Sprintf("(no traffic recorded: %v)\n", err)
	}
	var b strings.Builder
	for _, c := range cs {
		s := strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(c.B64)
		fmt.Fprintf(&b, "%-3s %s\n", c.Dir, s)
	}
	return b.String()
}

// frame is one Content-Length framed message.
type frame struct {
	length int
	body   []byte
}

// parseFrames splits a Content-Length framed stream independently of
// both implementations, checking that every header counts the body's
// bytes and that every body is a JSON-RPC 2.0 object in valid UTF-8.
func parseFrames(stream []byte) ([]frame, error) {
	var frames []frame
	for len(stream) > 0 {
		end := bytes.Index(stream, []byte("\r\n\r\n"))
		if end < 0 {
			return frames, fmt.Errorf("message %d: no end of header section in %q", len(frames)+1, stream)
		}
		length := -1
		for line := range strings.SplitSeq(string(stream[:end]), "\r\n") {
			name, value, ok := strings.Cut(line, ":")
			if !ok {
				return frames, fmt.Errorf("message %d: malformed header line %q", len(frames)+1, line)
			}
			if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
				n, err := strconv.Atoi(strings.TrimSpace(value))
				if err != nil {
					return frames, fmt.Errorf("message %d: Content-Length %q: %v", len(frames)+1, value, err)
				}
				length = n
			}
		}
		if length < 0 {
			return frames, fmt.Errorf("message %d: no Content-Length in %q", len(frames)+1, stream[:end])
		}
		rest := stream[end+4:]
		if len(rest) < length {
			return frames, fmt.Errorf("message %d: Content-Length %d but only %d bytes follow: %q", len(frames)+1, length, len(rest), rest)
		}
		body := rest[:length]
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if !utf8.Valid(body) {
			return frames, fmt.Errorf("message %d: body is not valid UTF-8: %q", len(frames)+1, body)
		}
		if err := json.Unmarshal(body, &msg); err != nil || msg.JSONRPC != "2.0" {
			return frames, fmt.Errorf("message %d: Content-Length %d does not delimit one JSON-RPC 2.0 message (%v): %q", len(frames)+1, length, err, body)
		}
		frames = append(frames, frame{length: length, body: body})
		stream = rest[length:]
	}
	return frames, nil
}

// checkFraming parses both directions of the recorded traffic and checks
// that some message to the Node peer carries toNode and some message from
// it carries fromNode, non-ASCII texts: their Content-Length counted bytes
// rather than characters.
func (r *peerRun) checkFraming(t *testing.T, toNode, fromNode string) {
	t.Helper()
	_, in, out, err := r.chunks()
	if err != nil {
		t.Fatalf("%s: reading the traffic: %v", r.peer, err)
	}
	for _, d := range []struct {
		name   string
		text   string
		stream []byte
	}{{"from our side to vscode-jsonrpc", toNode, in}, {"from vscode-jsonrpc to our side", fromNode, out}} {
		frames, err := parseFrames(d.stream)
		if err != nil {
			t.Errorf("%s: framing %s: %v", r.peer, d.name, err)
			continue
		}
		found := false
		for _, f := range frames {
			if bytes.Contains(f.body, []byte(d.text)) && f.length > utf8.RuneCount(f.body) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no message %s carries %q (%d messages)", r.peer, d.name, d.text, len(frames))
		}
	}
}

// step is one step of a Node peer's report.
type step struct {
	Name  string          `json:"name"`
	OK    bool            `json:"ok"`
	Got   json.RawMessage `json:"got"`
	Error string          `json:"error"`
}

// steps reads the report and fails the test for every failed step and
// every one of want that is missing; it returns the steps by name (the
// last of each name) and all of them in order.
func (r *peerRun) steps(t *testing.T, want ...string) (map[string]step, []step) {
	t.Helper()
	data, err := os.ReadFile(r.report)
	if err != nil {
		t.Fatalf("%s: no report: %v", r.peer, err)
	}
	var rep struct {
		Steps []step `json:"steps"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("%s: report: %v", r.peer, err)
	}
	byName := map[string]step{}
	for _, s := range rep.Steps {
		if !s.OK {
			t.Errorf("%s: step %q failed: %s", r.peer, s.Name, s.Error)
		}
		byName[s.Name] = s
	}
	for _, name := range want {
		if _, ok := byName[name]; !ok {
			t.Errorf("%s: step %q did not happen", r.peer, name)
		}
	}
	return byName, rep.Steps
}

// node returns the path of a Node peer script.
func node(script string) string {
	return filepath.Join(peersDir, script)
}
