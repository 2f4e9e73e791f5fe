package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const corpus = "../../idl/breaking/testdata/"

func TestBreakingExitStatuses(t *testing.T) {
	invalid := filepath.Join(t.TempDir(), "invalid.yaml")
	if err := os.WriteFile(invalid, []byte("protocol:\n  name: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pair := func(c string) []string { return []string{corpus + c + "/old.yaml", corpus + c + "/new.yaml"} }
	tests := []struct {
		name   string
		args   []string
		status int
		stdout string
		stderr string
	}{
		{"nothing breaks", pair("none_optional_member_added"), 0, "", ""},
		{"wire", pair("field_removed"), 1, "old.yaml:68:9: wire: FIELD_REMOVED: member \"version\" of InitializeResult was removed\n", "1 breaking change: 1 on the wire, 0 in Go only"},
		{"go only", pair("type_renamed"), 1, "new.yaml:23:3: go: TYPE_RENAMED:", "1 breaking change: 0 on the wire, 1 in Go only"},
		{"go only, -wire-only", append([]string{"-wire-only"}, pair("type_renamed")...), 0, "", ""},
		{"wire, -wire-only", append([]string{"-wire-only"}, pair("method_removed")...), 1, "METHOD_REMOVED", ""},
		{"flags after the files", append(pair("type_renamed"), "-wire-only"), 0, "", ""},
		{"invalid new", []string{corpus + "field_removed/old.yaml", invalid}, 3, "", "invalid.yaml:"},
		{"invalid old", []string{invalid, corpus + "field_removed/new.yaml"}, 3, "", "invalid.yaml:"},
		{"missing file", []string{"no-such.yaml", corpus + "field_removed/new.yaml"}, 3, "", "no-such.yaml"},
		{"one file", []string{corpus + "field_removed/new.yaml"}, 2, "", "want 2 protocol files, got 1 arguments"},
		{"three files", append(pair("field_removed"), "x.yaml"), 2, "", "want 2 protocol files, got 3"},
		{"-against and two files", append([]string{"-against", "HEAD"}, pair("field_removed")...), 2, "", "want 1 protocol files, got 2"},
		{"unknown flag", []string{"-nope"}, 2, "", "flag provided but not defined: -nope"},
	}
	for _, tt := range tests {
		status, out, errOut := runCLI(t, append([]string{"breaking"}, tt.args...)...)
		if status != tt.status || !strings.Contains(out, tt.stdout) || tt.stdout == "" && out != "" || !strings.Contains(errOut, tt.stderr) {
			t.Errorf("%s: rpcgen breaking %q = %d\nstdout %q\nstderr %q\nwant %d, stdout ~ %q, stderr ~ %q", tt.name, tt.args, status, out, errOut, tt.status, tt.stdout, tt.stderr)
		}
	}
}

func TestBreakingHelp(t *testing.T) {
	status, out, _ := runCLI(t, "breaking", "-h")
	for _, want := range []string{"-against", "-wire-only", "-json", "Exit status: 0 when nothing breaks, 1 when something does", "3 when a\nprotocol cannot be read"} {
		if status != 0 || !strings.Contains(out, want) {
			t.Errorf("rpcgen breaking -h = %d, lacks %q:\n%s", status, want, out)
		}
	}
}

func TestBreakingJSON(t *testing.T) {
	status, out, _ := runCLI(t, "breaking", "-json", corpus+"field_optionality_changed/old.yaml", corpus+"field_optionality_changed/new.yaml")
	if status != 1 {
		t.Fatalf("status %d, want 1", status)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 JSON lines, got %q", out)
	}
	var f finding
	if err := json.Unmarshal([]byte(lines[0]), &f); err != nil {
		t.Fatal(err)
	}
	want := finding{Rule: "FIELD_OPTIONALITY_CHANGED", Class: "wire", File: corpus + "field_optionality_changed/new.yaml", Line: 63, Col: 9, Message: `member "name" of InitializeParams became optional`}
	if f != want {
		t.Errorf("got %+v\nwant %+v", f, want)
	}
}

// gitRepo makes a git repository in a temporary directory and returns a
// function running git in it.
func gitRepo(t *testing.T) (string, func(args ...string)) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("rpcgen breaking -against needs git: %v", err)
	}
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	return dir, run
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const (
	againstProto = `protocol:
  name: demo
  roles: {client: The caller., server: The callee.}
  framing: ndjson
include: [shared/common.yaml]
methods:
  ping:
    from: client
    kind: request
    params: Ping
    result: {fields: {ok: boolean}}
`
	againstCommon = `types:
  Ping:
    fields:
      seq: integer
      note?: string
`
)

// TestBreakingAgainst compares a file, and the file it includes, with
// their versions at git revisions.
func TestBreakingAgainst(t *testing.T) {
	dir, git := gitRepo(t)
	proto := filepath.Join(dir, "protocols", "demo.yaml")
	writeFile(t, proto, againstProto)
	writeFile(t, filepath.Join(dir, "protocols", "shared", "common.yaml"), againstCommon)
	git("add", ".")
	git("commit", "-q", "-m", "first")

	// Nothing changed.
	if status, out, errOut := runCLI(t, "breaking", "-against", "HEAD", proto); status != 0 || out != "" {
		t.Errorf("unchanged: %d\n%s%s", status, out, errOut)
	}

	// The included file loses a member; the root file turns a result
	// member optional. The old position is written REV:file:line:col.
	writeFile(t, filepath.Join(dir, "protocols", "shared", "common.yaml"), strings.Replace(againstCommon, "      note?: string\n", "", 1))
	writeFile(t, proto, strings.Replace(againstProto, "{ok: boolean}", "{ok?: boolean}", 1))
	status, out, errOut := runCLI(t, "breaking", "-against", "HEAD", proto)
	want := proto + ":11:23: wire: FIELD_OPTIONALITY_CHANGED: member \"ok\" of PingResult became optional\n" +
		"HEAD:" + filepath.Join(dir, "protocols", "shared", "common.yaml") + ":5:7: wire: FIELD_REMOVED: member \"note\" of Ping was removed\n"
	if status != 1 || out != want {
		t.Errorf("changed: %d\n%s%s\nwant\n%s", status, out, errOut, want)
	}

	// A relative path, from the file's directory, and the JSON form
	// naming the revision.
	t.Chdir(filepath.Join(dir, "protocols"))
	status, out, _ = runCLI(t, "breaking", "-json", "-wire-only", "-against", "HEAD", "demo.yaml")
	if status != 1 || !strings.Contains(out, `"file":"shared/common.yaml","line":5,"col":7,"old":true,"revision":"HEAD"`) {
		t.Errorf("relative, JSON: %d\n%s", status, out)
	}

	// Committed, the change is found against the first commit only.
	git("commit", "-q", "-am", "second")
	if status, out, _ := runCLI(t, "breaking", "-against", "HEAD", "demo.yaml"); status != 0 || out != "" {
		t.Errorf("against HEAD after the commit: %d\n%s", status, out)
	}
	if status, out, _ := runCLI(t, "breaking", "demo.yaml", "-against", "HEAD~1"); status != 1 || !strings.Contains(out, "HEAD~1:shared/common.yaml:5:7: wire: FIELD_REMOVED") {
		t.Errorf("against HEAD~1, the flag after the file: %d\n%s", status, out)
	}
}

func TestBreakingAgainstFailures(t *testing.T) {
	dir, git := gitRepo(t)
	proto := filepath.Join(dir, "demo.yaml")
	alone := strings.Replace(againstProto, "include: [shared/common.yaml]\n", "", 1) + "types:\n  Ping: {fields: {seq: integer}}\n"
	writeFile(t, proto, alone)
	// A file committed without the file it includes.
	partial := filepath.Join(dir, "partial.yaml")
	writeFile(t, partial, againstProto)
	writeFile(t, filepath.Join(dir, "shared", "common.yaml"), againstCommon)
	git("add", "demo.yaml", "partial.yaml")
	git("commit", "-q", "-m", "first")
	added := filepath.Join(dir, "added.yaml")
	writeFile(t, added, alone)
	outside := filepath.Join(t.TempDir(), "demo.yaml")
	writeFile(t, outside, alone)
	tests := []struct {
		name, rev, file, stderr string
	}{
		{"unknown revision", "no-such-branch", proto, "-against no-such-branch: no such revision"},
		{"file not at the revision", "HEAD", added, "reading " + added},
		{"not in a repository", "HEAD", outside, "is not in a git repository"},
		{"included file not at the revision", "HEAD", partial, `partial.yaml:5:11: included file "shared/common.yaml" does not exist`},
	}
	for _, tt := range tests {
		status, out, errOut := runCLI(t, "breaking", "-against", tt.rev, tt.file)
		if status != 3 || out != "" || !strings.Contains(errOut, tt.stderr) {
			t.Errorf("%s: %d\nstdout %q\nstderr %q\nwant 3, stderr ~ %q", tt.name, status, out, errOut, tt.stderr)
		}
	}
}
