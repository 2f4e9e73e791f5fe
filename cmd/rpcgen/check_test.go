package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGenerateCheck checks that generate -check writes nothing, exits 1
// with a diff when the output is stale, missing or has an extra file, and
// exits 0 when it is fresh.
func TestGenerateCheck(t *testing.T) {
	dir := t.TempDir()
	status, out, errOut := runCLI(t, "generate", "-check", "-out", dir, fullIDL)
	if status != 1 || !strings.Contains(errOut, "missing: "+filepath.Join(dir, "types.go")) || !strings.Contains(out, "+++ "+filepath.Join(dir, "types.go")) {
		t.Errorf("check of an empty directory = %d\nstderr %.300q\nstdout %.300q", status, errOut, out)
	}
	if files := snapshot(t, dir); len(files) != 0 {
		t.Fatalf("generate -check wrote %d files", len(files))
	}
	if status, _, errOut := runCLI(t, "generate", "-out", dir, fullIDL); status != 0 {
		t.Fatalf("generate = %d: %s", status, errOut)
	}
	if status, out, errOut := runCLI(t, "generate", "-check", "-out", dir, fullIDL); status != 0 || out != "" {
		t.Errorf("check of fresh output = %d\nstdout %q\nstderr %q", status, out, errOut)
	}
	// Edit one line of a generated file, and add a file rpcgen wrote but
	// no longer writes.
	types := filepath.Join(dir, "types.go")
	b, _ := os.ReadFile(types)
	edited := strings.Replace(string(b), "\npackage full\n", "\npackage full // edited\n", 1)
	os.WriteFile(types, []byte(edited), 0o644)
	gone := filepath.Join(dir, "schema", "Gone.json")
	os.WriteFile(gone, []byte("{\n  \"$id\": \"https://rpcgen.dev/schemas/full/Gone.json\"\n}\n"), 0o644)
	manifest := filepath.Join(dir, ".rpcgen-manifest")
	m, _ := os.ReadFile(manifest)
	os.WriteFile(manifest, append(m, "schema/Gone.json\n"...), 0o644)
	before := snapshot(t, dir)

	status, out, errOut = runCLI(t, "generate", "-check", "-out", dir, fullIDL)
	// The hunk: three lines of context either side of the edited line.
	line := strings.Count(edited[:strings.Index(edited, "// edited")], "\n") + 1
	first, n := max(1, line-3), min(line, 4)+3
	wantDiff := fmt.Sprintf("--- %s\n+++ %s\n@@ -%d,%d +%d,%d @@\n", types, types, first, n, first, n)
	if status != 1 || !strings.Contains(out, wantDiff) || !strings.Contains(out, "\n-package full // edited\n+package full\n") {
		t.Errorf("check of an edited file = %d; stdout lacks %q:\n%.800s", status, wantDiff, out)
	}
	for _, want := range []string{"stale: " + types, "extra: " + gone, "stale: " + manifest} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, "--- "+gone+"\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-{\n") {
		t.Errorf("no removal diff for %s:\n%s", gone, out)
	}
	after := snapshot(t, dir)
	if len(after) != len(before) {
		t.Errorf("generate -check changed the directory: %d files, then %d", len(before), len(after))
	}
	for name, content := range before {
		if string(after[name]) != string(content) {
			t.Errorf("generate -check rewrote %s", name)
		}
	}
}

// TestGenerateSelectsOutputs checks -go, -schema and -docs, alone and
// together, and that a later run of one output keeps the others' files.
func TestGenerateSelectsOutputs(t *testing.T) {
	kinds := func(files map[string][]byte) string {
		var k []string
		seen := map[string]bool{}
		for name := range files {
			kind := "docs"
			switch {
			case strings.HasSuffix(name, ".go"):
				kind = "go"
			case strings.HasPrefix(name, "schema/"):
				kind = "schema"
			case name == ".rpcgen-manifest":
				continue
			}
			if !seen[kind] {
				seen[kind] = true
				k = append(k, kind)
			}
		}
		slices.Sort(k)
		return strings.Join(k, ",")
	}
	for _, tt := range []struct {
		flags []string
		want  string
	}{
		{[]string{"-go"}, "go"},
		{[]string{"-schema"}, "schema"},
		{[]string{"-docs"}, "docs"},
		{[]string{"-go", "-docs"}, "docs,go"},
		{nil, "docs,go,schema"},
	} {
		dir := t.TempDir()
		args := append(append([]string{"generate", "-out", dir}, tt.flags...), fullIDL)
		if status, _, errOut := runCLI(t, args...); status != 0 {
			t.Fatalf("%q = %d: %s", args, status, errOut)
		}
		if got := kinds(snapshot(t, dir)); got != tt.want {
			t.Errorf("%q wrote %s, want %s", args, got, tt.want)
		}
	}
	dir := t.TempDir()
	runCLI(t, "generate", "-out", dir, fullIDL)
	all := snapshot(t, dir)
	if status, _, errOut := runCLI(t, "generate", "-go", "-out", dir, fullIDL); status != 0 {
		t.Fatalf("generate -go = %d: %s", status, errOut)
	}
	if after := snapshot(t, dir); len(after) != len(all) || string(after[".rpcgen-manifest"]) != string(all[".rpcgen-manifest"]) {
		t.Errorf("generate -go after a full run changed the file set or the manifest")
	}
	if status, out, errOut := runCLI(t, "generate", "-check", "-schema", "-out", dir, fullIDL); status != 0 {
		t.Errorf("generate -check -schema = %d:\n%s%s", status, errOut, out)
	}
}
