package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFiles writes name: content pairs below dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const demoIDL = "protocol:\n  name: %s\n  roles: {client: C., server: S.}\n  framing: ndjson\ntypes:\n  Item: {fields: {a: string}}\n"

// TestProjectFile generates every protocol a project file lists, with its
// defaults and per-protocol settings, from ./rpcgen.yaml and from -config,
// and checks it with -check.
func TestProjectFile(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"protocols/alpha.yaml": strings.ReplaceAll(demoIDL, "%s", "alpha"),
		"protocols/beta.yaml":  strings.ReplaceAll(demoIDL, "%s", "beta"),
		"extra/gamma.yaml":     strings.ReplaceAll(demoIDL, "%s", "gamma"),
		"rpcgen.yaml": "defaults:\n  out: gen/{name}\n  outputs: [go, docs]\nprotocols:\n" +
			"  - idl: protocols/*.yaml\n" +
			"  - idl: extra/gamma.yaml\n    out: other\n    package: gammapb\n    outputs: [schema, go]\n",
	})
	// -config FILE, from another directory: paths are relative to the file.
	config := filepath.Join(dir, "rpcgen.yaml")
	if status, out, errOut := runCLI(t, "generate", "-config", config); status != 0 {
		t.Fatalf("generate -config = %d: %s%s", status, out, errOut)
	}
	files := snapshot(t, dir)
	for _, want := range []string{"gen/alpha/types.go", "gen/alpha/README.md", "gen/beta/types.go", "other/types.go", "other/schema/Item.json"} {
		if _, ok := files[want]; !ok {
			t.Errorf("generate -config wrote no %s", want)
		}
	}
	for _, unwanted := range []string{"gen/alpha/schema/Item.json", "other/README.md"} {
		if _, ok := files[unwanted]; ok {
			t.Errorf("generate -config wrote %s, an output not selected", unwanted)
		}
	}
	if !strings.Contains(string(files["other/types.go"]), "\npackage gammapb\n") {
		t.Error("package: was not applied")
	}
	// ./rpcgen.yaml when no file is given; -check passes, then fails once
	// a file is edited.
	t.Chdir(dir)
	if status, out, errOut := runCLI(t, "generate", "-check"); status != 0 {
		t.Fatalf("generate -check = %d: %s%s", status, out, errOut)
	}
	os.WriteFile(filepath.Join(dir, "gen/beta/README.md"), []byte("edited\n"), 0o644)
	status, out, errOut := runCLI(t, "generate", "-check")
	if status != 1 || !strings.Contains(errOut, "stale: "+filepath.Join("gen", "beta", "README.md")) || !strings.Contains(out, "-edited\n") {
		t.Errorf("generate -check of an edited file = %d\nstdout %.300q\nstderr %q", status, out, errOut)
	}
	if status, _, errOut := runCLI(t, "generate", "-out", "x"); status != 2 || !strings.Contains(errOut, "-out and -package apply to one protocol file") {
		t.Errorf("generate -out with a project file = %d: %s", status, errOut)
	}
}

// TestProjectFileErrors checks that a project file's mistakes are reported
// as file:line:col.
func TestProjectFileErrors(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.yaml": strings.ReplaceAll(demoIDL, "%s", "a"), "b.yaml": strings.ReplaceAll(demoIDL, "%s", "b")})
	tests := []struct{ config, want string }{
		{"protocols:\n  - idl: a.yaml\n    outputs: [go, html]\n", ":3:19: unknown output \"html\"; known: go, schema, docs"},
		{"protocols:\n  - idl: nope/*.yaml\n", ":2:10: idl \"nope/*.yaml\" matches no file"},
		{"protocol:\n  - idl: a.yaml\n", ":1:1: unknown key \"protocol\"; a project file has defaults: and protocols:"},
		{"defaults:\n  output: x\nprotocols:\n  - idl: a.yaml\n", ":2:3: unknown key \"output\" in defaults; known: out, package, outputs"},
		{"protocols:\n  - out: x\n", ":2:5: entry has no idl: key"},
		{"protocols:\n  - idl: '*.yaml'\n    out: same\n", ":2:10: " + filepath.Join(dir, "b.yaml") + " would be written to " + filepath.Join(dir, "same") + ", as the entry at line 2 writes there; put {name} in out"},
		{"protocols:\n  - idl: a.yaml\n    package: 9lives\n", ":3:14: package \"9lives\" is not a Go package name"},
		{"protocols:\n\t- idl: a.yaml\n", ":2:1: YAML syntax error"},
	}
	for _, tt := range tests {
		config := filepath.Join(dir, "rpcgen.yaml")
		writeFiles(t, dir, map[string]string{"rpcgen.yaml": tt.config})
		status, _, errOut := runCLI(t, "generate", "-check", "-config", config)
		if status != 1 || !strings.Contains(errOut, config+tt.want) {
			t.Errorf("config %q: status %d, stderr %q; want 1 and %q", tt.config, status, errOut, config+tt.want)
		}
	}
}
