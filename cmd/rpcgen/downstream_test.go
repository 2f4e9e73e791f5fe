package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDownstreamGoGenerate builds the README tutorial in a fresh module
// that depends on this repository through a replace directive: go generate
// runs rpcgen, then the program runs both roles over a real pipe.
func TestDownstreamGoGenerate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"calc.yaml", "main.go"} {
		copyFile(t, filepath.Join("testdata", "downstream", name), filepath.Join(dir, name))
	}
	copyFile(t, filepath.Join(root, "go.sum"), filepath.Join(dir, "go.sum"))
	goMod := "module example.com/downstream\n\ngo 1.25\n\n" +
		"require github.com/rpcgen/rpcgen v0.0.0-00010101000000-000000000000\n\n" +
		"replace github.com/rpcgen/rpcgen => " + root + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(goMod), 0o644); err != nil {
		t.Fatal(err)
	}
	goCmd(t, dir, "generate", "./...")
	goCmd(t, dir, "mod", "tidy")
	for _, want := range []string{"calc/README.md", "calc/schema/calc.schema.json"} {
		if _, err := os.Stat(filepath.Join(dir, want)); err != nil {
			t.Errorf("go generate did not write %s: %v", want, err)
		}
	}
	goCmd(t, dir, "vet", "./...")
	bin := filepath.Join(dir, "downstream")
	goCmd(t, dir, "build", "-o", bin, ".")
	out, err := exec.Command(bin).CombinedOutput()
	if err != nil {
		t.Fatalf("downstream program: %v\n%s", err, out)
	}
	for _, want := range []string{"log: adding 2 and 3", "2 + 3 = 5", "overflow: jsonrpc error -32010: Overflow"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
