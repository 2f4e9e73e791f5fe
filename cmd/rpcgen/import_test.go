package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const lspMetaModel = "../../importer/lsp/testdata/metaModel.json"

func TestImportUsage(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		status int
		stdout string
		stderr string
	}{
		{args: []string{"import", "-h"}, status: 0, stdout: "Usage: rpcgen import [flags] lsp META_MODEL.json"},
		{args: []string{"import"}, status: 2, stderr: "want a format and one input file, got 0 arguments"},
		{args: []string{"import", "lsp"}, status: 2, stderr: "want a format and one input file, got 1 arguments"},
		{args: []string{"import", "lsp", "a.json", "b.json"}, status: 2, stderr: "got 3 arguments"},
		{args: []string{"import", "proto", "a.json"}, status: 2, stderr: `unknown format "proto" (known: lsp)`},
		{args: []string{"import", "lsp", "missing.json"}, status: 1, stderr: "missing.json"},
		{args: []string{"import", "-x", "lsp", "a.json"}, status: 2, stderr: "flag provided but not defined: -x"},
	} {
		status, out, errOut := runCLI(t, tt.args...)
		if status != tt.status || !strings.Contains(out, tt.stdout) || !strings.Contains(errOut, tt.stderr) {
			t.Errorf("rpcgen %q = %d\nstdout %q\nstderr %q\nwant %d, stdout ~ %q, stderr ~ %q", tt.args, status, out, errOut, tt.status, tt.stdout, tt.stderr)
		}
	}
}

// TestImportWritesTheCommittedIDL runs the command as documented, -o
// after the arguments, and to standard output; -schema writes the line
// that points editors at the IDL's schema.
func TestImportWritesTheCommittedIDL(t *testing.T) {
	want, err := os.ReadFile("../../protocols/lsp.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "lsp.yaml")
	if status, _, errOut := runCLI(t, "import", "lsp", lspMetaModel, "-o", out, "-schema", "../idl/rpcgen-idl.schema.json"); status != 0 {
		t.Fatalf("import exited %d: %s", status, errOut)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("rpcgen import lsp -o wrote another IDL than protocols/lsp.yaml")
	}
	status, stdout, _ := runCLI(t, "import", "-schema", "../idl/rpcgen-idl.schema.json", "lsp", lspMetaModel)
	if status != 0 || stdout != string(want) {
		t.Errorf("rpcgen import lsp to standard output = %d, %d bytes; want 0, %d bytes", status, len(stdout), len(want))
	}
}

func TestImportReportsBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"structures":[{"name":"S","properties":[{"name":"p","type":{"kind":"weird"}}]}]}`), 0o644)
	status, _, errOut := runCLI(t, "import", "lsp", bad)
	if want := bad + `: structures[0] "S": unknown type kind "weird"`; status != 1 || !strings.Contains(errOut, want) {
		t.Errorf("import of a bad meta model = %d, %q; want 1 and %q", status, errOut, want)
	}
}
