package golang

import (
	"bytes"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/gen"
)

// TestCompile builds and vets the output of every test input in a
// temporary module that uses this repository's runtime, and runs the
// check of its AppendJSON methods against json.Marshal.
func TestCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds generated packages with the go command")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mod := "module rpcgentest\n\ngo 1.25\n\nrequire github.com/rpcgen/rpcgen v0.0.0\n\nreplace github.com/rpcgen/rpcgen => " + root + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, in := range inputs(t) {
		files := generate(t, in)
		for _, f := range files {
			formatted, err := format.Source(f.Content)
			if err != nil {
				t.Errorf("%s/%s: %v", in.name, f.Path, err)
			} else if !bytes.Equal(formatted, f.Content) {
				t.Errorf("%s/%s is not gofmt-formatted", in.name, f.Path)
			}
		}
		if err := gen.Write(filepath.Join(dir, in.name), files); err != nil {
			t.Fatal(err)
		}
		writeAppendCheck(t, dir, in, files)
	}
	for _, args := range [][]string{{"vet", "./..."}, {"build", "./..."}, {"test", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod -buildvcs=false", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
