package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/idl"
)

// TestHelpPrintsUsageOnce checks that -h prints a command's usage once, to
// standard output, and that a bad flag prints it once, to standard error.
func TestHelpPrintsUsageOnce(t *testing.T) {
	for _, c := range commands {
		status, out, errOut := runCLI(t, c.name, "-h")
		if n := strings.Count(out+errOut, "Usage: rpcgen "+c.name); status != 0 || n != 1 || errOut != "" {
			t.Errorf("rpcgen %s -h = %d, usage printed %d times\nstdout %q\nstderr %q", c.name, status, n, out, errOut)
		}
		status, out, errOut = runCLI(t, c.name, "-no-such-flag")
		if n := strings.Count(errOut, "Usage: rpcgen "+c.name); status != 2 || n != 1 || out != "" {
			t.Errorf("rpcgen %s -no-such-flag = %d, usage printed %d times\nstdout %q\nstderr %q", c.name, status, n, out, errOut)
		}
	}
}

// TestFlagsAfterTheFile checks that flags may follow the protocol file,
// and that a genuine extra argument gets a hint naming the flags.
func TestFlagsAfterTheFile(t *testing.T) {
	dir := t.TempDir()
	if status, _, errOut := runCLI(t, "generate", fullIDL, "-out", dir, "-package", "after"); status != 0 {
		t.Fatalf("generate FILE -out DIR = %d: %s", status, errOut)
	}
	b, err := os.ReadFile(filepath.Join(dir, "types.go"))
	if err != nil || !strings.Contains(string(b), "\npackage after\n") {
		t.Errorf("flags after the file were not applied: %v", err)
	}
	file := filepath.Join(t.TempDir(), "REF.md")
	if status, _, errOut := runCLI(t, "docs", fullIDL, "-out", file); status != 0 {
		t.Errorf("docs FILE -out F = %d: %s", status, errOut)
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("docs FILE -out F: %v", err)
	}
	status, _, errOut := runCLI(t, "generate", fullIDL, "out", dir)
	if status != 2 || !strings.Contains(errOut, "got 3 arguments ("+fullIDL+", out, "+dir+")") ||
		!strings.Contains(errOut, "flags start with a dash") || !strings.Contains(errOut, "-out, -package") {
		t.Errorf("generate FILE out DIR = %d, stderr %q; want 2 and a hint naming the flags", status, errOut)
	}
	// After "--", everything is an argument.
	status, _, errOut = runCLI(t, "check", "--", "-out")
	if status != 1 || !strings.Contains(errOut, "-out") {
		t.Errorf("check -- -out = %d, stderr %q; want 1 (no file -out)", status, errOut)
	}
}

// TestSchemaBundle checks that schema -bundle writes the one bundle, with
// every type under $defs, to standard output or to the -out file.
func TestSchemaBundle(t *testing.T) {
	status, out, errOut := runCLI(t, "schema", "-bundle", fullIDL)
	var bundle struct {
		ID   string                     `json:"$id"`
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if status != 0 || json.Unmarshal([]byte(out), &bundle) != nil || !strings.HasSuffix(bundle.ID, "/full.schema.json") {
		t.Fatalf("schema -bundle = %d (%s): not the bundle:\n%.300s", status, errOut, out)
	}
	p, err := idl.Load(fullIDL)
	if err != nil {
		t.Fatal(err)
	}
	for _, td := range p.Types {
		if bundle.Defs[td.Name] == nil {
			t.Errorf("the bundle lacks $defs/%s", td.Name)
		}
	}
	file := filepath.Join(t.TempDir(), "full.schema.json")
	if status, _, errOut := runCLI(t, "schema", fullIDL, "-bundle", "-out", file); status != 0 {
		t.Fatalf("schema -bundle -out FILE = %d: %s", status, errOut)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != out {
		t.Errorf("schema -bundle -out wrote something else than to stdout: %v", err)
	}
}
