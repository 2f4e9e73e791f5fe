package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// applyDiff applies the unified diff d to a and returns the result.
func applyDiff(t *testing.T, a, d string) string {
	t.Helper()
	src := splitKeepEOL(a)
	var out []string
	next := 0 // lines of src consumed
	hunk := regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@\n$`)
	lines := splitKeepEOL(d)
	for i := 2; i < len(lines); i++ {
		m := hunk.FindStringSubmatch(lines[i])
		if m == nil {
			t.Fatalf("line %d of the diff is not a hunk header: %q", i+1, lines[i])
		}
		start, _ := strconv.Atoi(m[1])
		if m[2] != "0" {
			start-- // 1-based, but for an empty side
		}
		out = append(out, src[next:start]...)
		next = start
		for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "@@") {
			i++
			l := lines[i]
			if l == "\\ No newline at end of file\n" {
				out[len(out)-1] = strings.TrimSuffix(out[len(out)-1], "\n")
				continue
			}
			switch l[0] {
			case ' ':
				if src[next] != l[1:] && src[next] != strings.TrimSuffix(l[1:], "\n") {
					t.Fatalf("context %q does not match %q", l[1:], src[next])
				}
				out = append(out, src[next])
				next++
			case '-':
				next++
				if i+1 < len(lines) && lines[i+1] == "\\ No newline at end of file\n" {
					i++
				}
			case '+':
				out = append(out, l[1:])
			}
		}
	}
	return strings.Join(append(out, src[next:]...), "")
}

// TestUnifiedDiffApplies checks, on random edits of random files, that
// applying the diff to the old text gives the new one.
func TestUnifiedDiffApplies(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	text := func(n, alphabet int) string {
		var b strings.Builder
		for range n {
			fmt.Fprintf(&b, "line %d\n", r.IntN(alphabet))
		}
		return b.String()
	}
	cases := [][2]string{
		{"", "a\n"}, {"a\n", ""}, {"a\nb\n", "a\nc\n"}, {"a", "a\n"}, {"a\n", "a"}, {"x\ny", "x\nz"},
		// More edits than maxEdits: removed, then added.
		{text(3000, 1e9), text(3000, 1e9)},
	}
	for range 300 {
		cases = append(cases, [2]string{text(r.IntN(40), 6), text(r.IntN(40), 6)})
	}
	for _, c := range cases {
		d := unifiedDiff("a", "b", []byte(c[0]), []byte(c[1]))
		if c[0] == c[1] {
			if d != "" {
				t.Errorf("diff of equal texts: %q", d)
			}
			continue
		}
		if !strings.HasPrefix(d, "--- a\n+++ b\n@@ ") {
			t.Fatalf("diff does not start with its labels and a hunk:\n%s", d)
		}
		if got := applyDiff(t, c[0], d); got != c[1] {
			t.Fatalf("applying the diff of %q to %q gives %q\n%s", c[0], c[1], got, d)
		}
	}
}

// TestEveryGeneratedFileLooksGenerated checks that generate recognises
// every file it writes as its own, so that it can remove them once they
// are no longer generated.
func TestEveryGeneratedFileLooksGenerated(t *testing.T) {
	dir := t.TempDir()
	if status, _, errOut := runCLI(t, "generate", "-out", dir, fullIDL); status != 0 {
		t.Fatalf("generate = %d: %s", status, errOut)
	}
	for name := range snapshot(t, dir) {
		if name != manifestName && !ours(filepath.Join(dir, filepath.FromSlash(name))) {
			t.Errorf("%s does not look generated: a later run could not remove it", name)
		}
	}
}

// TestRepositoryProjectFile checks this repository's own rpcgen.yaml,
// which make generate runs: every protocol, each to generated/<name>, and
// the benchmark's protocol.
func TestRepositoryProjectFile(t *testing.T) {
	jobs, err := loadConfig(filepath.Join("..", "..", configName))
	if err != nil {
		t.Fatal(err)
	}
	protocols, _ := filepath.Glob(filepath.Join("..", "..", "protocols", "*.yaml"))
	if len(jobs) != len(protocols)+1 {
		t.Errorf("rpcgen.yaml lists %d protocols, want the %d of protocols/ and bench.yaml", len(jobs), len(protocols))
	}
	for _, j := range jobs {
		name := strings.TrimSuffix(filepath.Base(j.idl), ".yaml")
		want := filepath.Join("..", "..", "generated", name)
		if name == "bench" {
			want = filepath.Join("..", "..", "bench", "benchproto")
		}
		if j.out != want || j.outs != allOutputs {
			t.Errorf("%s: out %s, outputs %+v; want %s and all", j.idl, j.out, j.outs, want)
		}
	}
}
