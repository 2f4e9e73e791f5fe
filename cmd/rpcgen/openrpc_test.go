package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/gen/openrpc"
	"github.com/rpcgen/rpcgen/idl"
)

func TestOpenRPC(t *testing.T) {
	p, err := idl.Load(fullIDL)
	if err != nil {
		t.Fatal(err)
	}
	files, err := openrpc.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	want := string(files[0].Content)
	status, out, errOut := runCLI(t, "openrpc", fullIDL)
	if status != 0 || out != want {
		t.Errorf("openrpc = %d (%s), wrote %d bytes, want the %d of gen/openrpc", status, errOut, len(out), len(want))
	}
	file := filepath.Join(t.TempDir(), "openrpc.json")
	if status, _, errOut := runCLI(t, "openrpc", "-out", file, fullIDL); status != 0 {
		t.Errorf("openrpc -out = %d (%s)", status, errOut)
	}
	if b, _ := os.ReadFile(file); !bytes.Equal(b, files[0].Content) {
		t.Error("openrpc -out wrote something else than gen/openrpc's document")
	}
}

func TestOpenRPCErrors(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		status int
		stderr string
	}{
		{[]string{"openrpc"}, 2, "want one protocol file, got 0 arguments"},
		{[]string{"openrpc", "does-not-exist.yaml"}, 1, "does-not-exist.yaml"},
		{[]string{"openrpc", "-out", filepath.Join(t.TempDir(), "no", "such", "dir.json"), fullIDL}, 1, "dir.json"},
	} {
		status, _, errOut := runCLI(t, tt.args...)
		if status != tt.status || !strings.Contains(errOut, tt.stderr) {
			t.Errorf("rpcgen %q = %d, stderr %q; want %d, stderr ~ %q", tt.args, status, errOut, tt.status, tt.stderr)
		}
	}
}
