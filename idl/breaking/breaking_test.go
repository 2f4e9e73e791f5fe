package breaking

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/idl"
)

var update = flag.Bool("update", false, "rewrite the want.txt files of testdata/")

// render writes findings one a line, positions by file name alone.
func render(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s:%d:%d: %s: %s: %s\n", filepath.Base(f.Pos.File), f.Pos.Line, f.Pos.Col, f.Class, f.Rule, f.Message)
	}
	return b.String()
}

func load(t *testing.T, path string) *idl.Protocol {
	t.Helper()
	p, err := idl.Load(path)
	if err != nil {
		t.Fatalf("loading %s: %v", path, err)
	}
	return p
}

// TestCorpus compares each pair of testdata/<case>/{old,new}.yaml with
// the findings in its want.txt. Cases named none_* are changes that break
// nothing; every other case reports something, and every rule has a case.
func TestCorpus(t *testing.T) {
	dirs, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join("testdata", d.Name())
		t.Run(d.Name(), func(t *testing.T) {
			found := Compare(load(t, filepath.Join(dir, "old.yaml")), load(t, filepath.Join(dir, "new.yaml")))
			for _, f := range found {
				covered[f.Rule] = true
				if f.Class != rules[f.Rule].Class && f.Class != Go {
					t.Errorf("%s reported in class %s", f.Rule, f.Class)
				}
				if wantFile := map[bool]string{true: "old.yaml", false: "new.yaml"}[f.Old]; filepath.Base(f.Pos.File) != wantFile || !f.Pos.IsValid() {
					t.Errorf("%s at %v, want a position in %s", f.Rule, f.Pos, wantFile)
				}
			}
			got := render(found)
			none := strings.HasPrefix(d.Name(), "none_")
			switch {
			case none && got != "":
				t.Errorf("a change that breaks nothing reports:\n%s", got)
			case !none && got == "":
				t.Errorf("a breaking change reports nothing")
			}
			want := filepath.Join(dir, "want.txt")
			if *update {
				if err := os.WriteFile(want, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			data, err := os.ReadFile(want)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(data) {
				t.Errorf("findings differ from %s (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", want, got, data)
			}
		})
	}
	for _, r := range Rules {
		if !covered[r.Name] {
			t.Errorf("rule %s has no case in testdata/", r.Name)
		}
	}
}

// TestSameProtocol loads every shipped protocol twice and finds nothing
// between the two.
func TestSameProtocol(t *testing.T) {
	files, _ := filepath.Glob("../../protocols/*.yaml")
	files = append(files, "../testdata/full.yaml")
	if len(files) < 2 {
		t.Fatalf("protocols not found: %v", files)
	}
	for _, f := range files {
		if found := Compare(load(t, f), load(t, f)); len(found) > 0 {
			t.Errorf("%s against itself:\n%s", f, render(found))
		}
	}
}

func TestRules(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules {
		if seen[r.Name] || r.Doc == "" || (r.Class != Wire && r.Class != Go) || (r.GoToo && r.Class != Wire) {
			t.Errorf("rule %+v: duplicate, without doc, of no class, or GoToo outside the wire class", r)
		}
		seen[r.Name] = true
	}
}

// TestRulesREADME keeps the table of rules in README.md in step with
// Rules.
func TestRulesREADME(t *testing.T) {
	const begin, end = "-update rewrites this table -->\n", "<!-- end rules -->"
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatal("README.md has no rules table markers")
	}
	var b strings.Builder
	b.WriteString("| rule | class | what |\n|---|---|---|\n")
	for _, r := range Rules {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.Name, r.Class, strings.ReplaceAll(r.Doc, "|", `\|`))
	}
	table := b.String()
	if *update {
		s = s[:i+len(begin)] + table + s[j:]
		if err := os.WriteFile("README.md", []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got := s[i+len(begin) : j]; got != table {
		t.Errorf("the rules table of README.md is stale (go test -update rewrites it):\n%s\nwant:\n%s", got, table)
	}
}

// TestAnyPair compares every two protocols of the repository, unrelated
// ones included: every finding names a known rule and a position in the
// file it belongs to, and nothing panics.
func TestAnyPair(t *testing.T) {
	files, _ := filepath.Glob("../../protocols/*.yaml")
	valid, _ := filepath.Glob("../testdata/valid/*.yaml")
	files = append(append(files, valid...), "../testdata/full.yaml")
	ps := make([]*idl.Protocol, len(files))
	for i, f := range files {
		ps[i] = load(t, f)
	}
	for i, o := range ps {
		for j, n := range ps {
			for _, f := range Compare(o, n) {
				in := n
				if f.Old {
					in = o
				}
				if _, ok := rules[f.Rule]; !ok || !f.Pos.IsValid() || !slices.Contains(in.Files, f.Pos.File) || f.Message == "" {
					t.Errorf("%s -> %s: %+v", files[i], files[j], f)
				}
			}
		}
	}
}

// TestRuleNamesInSource checks that every rule the comparer reports is in
// Rules, whether or not a case of the corpus reaches that line.
func TestRuleNamesInSource(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range strings.Split(string(data), `c.add("`)[1:] {
			name, _, _ := strings.Cut(part, `"`)
			n++
			if _, ok := rules[name]; !ok {
				t.Errorf("%s reports %s, which Rules lacks", f, name)
			}
		}
	}
	if n < len(Rules) {
		t.Errorf("found %d calls of c.add, fewer than the %d rules", n, len(Rules))
	}
}
