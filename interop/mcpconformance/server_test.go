package mcpconformance_test

import (
	"context"
	"flag"
	"regexp"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the results table of README.md from this run")

// mustSucceed are checks the suite reports as INFO, not as a failure, when
// a server does not do what they test; ours must pass them.
var mustSucceed = map[string]string{
	// test_reconnection ends its event stream before answering, so the
	// answer must come on the stream resumed with Last-Event-ID.
	"server-sse-disconnect-resume": "server-sse-polling",
}

// TestServerScenarios runs every server scenario of the suite, the pending
// ones included (--suite all), against examples/mcp/conformance over
// Streamable HTTP. Each must pass every check: no FAILURE, no WARNING, at
// least one SUCCESS, and the checks of mustSucceed SUCCESS. With -update
// it rewrites the results table of README.md; without, it fails when the
// table differs from this run.
func TestServerScenarios(t *testing.T) {
	s := needSuite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	listed := s.listScenarios(t, ctx, "--server")

	url := startServer(t, serverBin)
	out := t.TempDir()
	start := time.Now()
	log, err := s.run(t, ctx, "server", "--url", url, "--suite", "all", "-o", out)
	t.Logf("the suite ran %d scenarios in %v", len(listed), time.Since(start).Round(time.Millisecond))
	if ctx.Err() != nil {
		t.Fatalf("the suite did not finish: %v\n%s", err, log)
	}
	results := readResults(t, out)

	var failed []string
	seen := map[string]bool{}
	for _, r := range results {
		seen[r.Scenario] = true
		if _, ok := listed[r.Scenario]; !ok {
			failed = append(failed, r.Scenario+": a result for a scenario `conformance list --server` does not list")
		}
		failed = append(failed, r.failures()...)
		if r.count("SUCCESS") == 0 && len(r.failures()) == 0 {
			failed = append(failed, r.Scenario+": no check passed (only INFO or SKIPPED)")
		}
		for _, c := range r.Checks {
			if mustSucceed[c.ID] == r.Scenario && c.Status != "SUCCESS" {
				failed = append(failed, r.Scenario+": "+c.Status+" ["+c.ID+"] "+c.Description+", must be SUCCESS: "+c.ErrorMessage)
			}
		}
	}
	for name := range listed {
		if !seen[name] {
			failed = append(failed, name+": listed, but the suite wrote no results for it")
		}
	}
	if len(failed) > 0 {
		t.Errorf("%d problems:\n%s\n\nthe suite's output:\n%s", len(failed), strings.Join(failed, "\n"), log)
	}
	if err != nil && len(failed) == 0 {
		t.Errorf("the suite exited with %v although every check passed:\n%s", err, log)
	}
	if !t.Failed() {
		checkReport(t, results, listed, *update)
	}
}

// listLine is a scenario in the output of `conformance list`:
// "  - NAME [VERSION,...]".
var listLine = regexp.MustCompile(`(?m)^\s+- (\S+) \[([^\]]*)\]$`)

// listScenarios returns the scenarios `conformance list` prints with the
// flag (--server or --client), mapped to the spec versions they test.
func (s suite) listScenarios(t *testing.T, ctx context.Context, flag string) map[string]string {
	t.Helper()
	out, err := s.run(t, ctx, "list", flag)
	if err != nil {
		t.Fatalf("conformance list %s: %v\n%s", flag, err, out)
	}
	listed := map[string]string{}
	for _, m := range listLine.FindAllStringSubmatch(string(out), -1) {
		listed[m[1]] = strings.ReplaceAll(m[2], ",", ", ")
	}
	if len(listed) == 0 {
		t.Fatalf("conformance list %s printed no scenarios:\n%s", flag, out)
	}
	return listed
}
