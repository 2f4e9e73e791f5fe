package mcpconformance_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// clientBin is examples/mcp/conformance/client, built by TestMain.
var clientBin string

func init() {
	bins["../../examples/mcp/conformance/client"] = &clientBin
}

// clientMustFail are the scenarios in which the client is right to give
// up (the suite allows it an error exit there), with the error it must
// give up with.
var clientMustFail = map[string]string{
	// The server refuses every token with 403 insufficient_scope for a
	// scope the client already asked for: one authorization, then stop.
	"auth/scope-retry-limit": "HTTP 403",
	// The protected resource metadata names another server: never
	// authorize for it.
	"auth/resource-mismatch": "protected resource metadata is for",
}

// clientNotYet lists client scenarios that do not pass yet, each with the
// reason. It is empty: every scenario passes. A scenario listed here that
// passes fails the test until it is removed from the list.
var clientNotYet = map[string]string{}

// clientResult is one client scenario's checks and what the client wrote
// to stderr.
type clientResult struct {
	scenarioResult
	stderr string
	log    []byte // the suite's output
}

// passed reports whether the scenario passed: every check passed (no
// FAILURE or WARNING, at least one SUCCESS) and the client finished the
// scenario, or gave up with the error clientMustFail expects.
func (r clientResult) problems() []string {
	out := r.failures()
	if r.count("SUCCESS") == 0 {
		out = append(out, r.Scenario+": no check passed (only INFO or SKIPPED)")
	}
	done := strings.Contains(r.stderr, `msg="scenario done"`)
	if want, ok := clientMustFail[r.Scenario]; ok {
		if done || !strings.Contains(r.stderr, want) {
			out = append(out, fmt.Sprintf("%s: the client must give up with an error containing %q; its stderr:\n%s", r.Scenario, want, r.stderr))
		}
	} else if !done {
		out = append(out, fmt.Sprintf("%s: the client did not finish the scenario; its stderr:\n%s", r.Scenario, r.stderr))
	}
	return out
}

// TestClientScenarios runs examples/mcp/conformance/client through every
// client scenario `conformance list --client` prints, the auth/ ones
// included. Every scenario must pass every check, the client must finish
// it (or give up as clientMustFail says), and only the scenarios of
// clientNotYet may fail. It logs the counts per group and keeps the
// "client" results block of README.md fresh (-update rewrites it).
func TestClientScenarios(t *testing.T) {
	s := needSuite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	listed := s.listScenarios(t, ctx, "--client")
	names := make([]string, 0, len(listed))
	for name := range listed {
		names = append(names, name)
	}
	slices.Sort(names)

	// Two scenarios at a time: sse-retry measures the client's reconnection
	// delay, which a loaded machine would stretch.
	results := make([]clientResult, len(names))
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = runClientScenario(t, ctx, s, name)
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatalf("the scenarios did not finish: %v", ctx.Err())
	}

	var failed []string
	passed := map[bool][2]int{} // auth? -> {passed, total}
	for _, r := range results {
		problems := r.problems()
		auth := strings.HasPrefix(r.Scenario, "auth/")
		c := passed[auth]
		c[1]++
		if len(problems) == 0 {
			c[0]++
		}
		passed[auth] = c
		reason, notYet := clientNotYet[r.Scenario]
		switch {
		case notYet && len(problems) == 0:
			failed = append(failed, r.Scenario+": passes now; remove it from clientNotYet")
		case notYet:
			t.Logf("%s fails, as clientNotYet says (%s):\n%s", r.Scenario, reason, strings.Join(problems, "\n"))
		case len(problems) > 0:
			failed = append(failed, fmt.Sprintf("%s\nthe suite's output:\n%s", strings.Join(problems, "\n"), r.log))
		}
	}
	for name := range clientNotYet {
		if _, ok := listed[name]; !ok {
			failed = append(failed, name+": in clientNotYet, but the suite does not list it")
		}
	}
	t.Logf("client scenarios passed: %d/%d without authorization, %d/%d auth/",
		passed[false][0], passed[false][1], passed[true][0], passed[true][1])
	if len(failed) > 0 {
		t.Errorf("%d problems:\n%s", len(failed), strings.Join(failed, "\n\n"))
	}
	if !t.Failed() {
		checkClientReport(t, results, listed, *update)
	}
}

// runClientScenario runs `conformance client` for one scenario with the
// client program and returns what the suite recorded.
func runClientScenario(t *testing.T, ctx context.Context, s suite, name string) clientResult {
	dir, err := os.MkdirTemp(t.TempDir(), "client")
	if err != nil {
		t.Error(err)
		return clientResult{scenarioResult: scenarioResult{Scenario: name}}
	}
	// The suite exits non-zero when the scenario failed; the checks it
	// wrote say why.
	log, _ := s.run(t, ctx, "client", "--command", clientBin, "--scenario", name, "-o", dir)
	r := clientResult{log: log}
	found := readResults(t, dir)
	if len(found) != 1 || found[0].Scenario != name {
		t.Errorf("%s: the suite wrote results for %v:\n%s", name, found, log)
		r.Scenario = name
		return r
	}
	r.scenarioResult = found[0]
	matches, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(name)+"-*", "stderr.txt"))
	if len(matches) == 1 {
		b, err := os.ReadFile(matches[0])
		if err != nil {
			t.Error(err)
		}
		r.stderr = string(b)
	}
	return r
}

// checkClientReport renders the client results as the "client" block of
// README.md.
func checkClientReport(t *testing.T, results []clientResult, listed map[string]string, write bool) {
	t.Helper()
	checkBlock(t, "client", write, func(date string) string {
		var b strings.Builder
		count := map[bool][2]int{}
		for _, r := range results {
			auth := strings.HasPrefix(r.Scenario, "auth/")
			c := count[auth]
			c[1]++
			if len(r.problems()) == 0 {
				c[0]++
			}
			count[auth] = c
		}
		fmt.Fprintf(&b, "%d of %d scenarios without authorization and %d of %d `auth/` scenarios pass "+
			"(suite %s on Node.js %s, %s).\n\n",
			count[false][0], count[false][1], count[true][0], count[true][1], suiteVersion, nodeVersion, date)
		b.WriteString("| scenario | spec versions | checks passed | result | suite | date |\n|---|---|---|---|---|---|\n")
		for _, r := range results {
			result := "pass"
			if _, ok := clientMustFail[r.Scenario]; ok {
				result = "pass (the client gives up, as it must)"
			}
			if len(r.problems()) > 0 {
				result = "**fail**: " + clientNotYet[r.Scenario]
			}
			n := r.count("SUCCESS")
			fmt.Fprintf(&b, "| `%s` | %s | %d/%d | %s | %s | %s |\n",
				r.Scenario, listed[r.Scenario], n, n+r.count("FAILURE")+r.count("WARNING"), result, suiteVersion, date)
		}
		return b.String()
	})
}
