package golang

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/gen"
	"github.com/rpcgen/rpcgen/idl"
	"github.com/rpcgen/rpcgen/internal/version"
)

// TestRuntimeVersionCheck builds a generated package against this
// repository's runtime, then a copy of it that asks for a runtime newer
// than any: the first compiles, the second fails naming the constant.
func TestRuntimeVersionCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds generated packages with the go command")
	}
	const src = "protocol:\n  name: demo\n  roles: {client: C., server: S.}\n  framing: ndjson\nmethods:\n  ping: {from: client, kind: request, result: string}\n"
	p, err := idl.Parse("demo.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "const _ = jsonrpc." + version.Runtime() + "\n"
	var protocol []byte
	for _, f := range files {
		if f.Path == "protocol.go" {
			protocol = f.Content
		}
	}
	if !strings.Contains(string(protocol), want) {
		t.Fatalf("protocol.go lacks %q", want)
	}
	dir := tempModule(t)
	if err := gen.Write(filepath.Join(dir, "demo"), files); err != nil {
		t.Fatal(err)
	}
	if out, err := goCmd(dir, "build", "./demo"); err != nil {
		t.Fatalf("the generated package does not compile: %v\n%s", err, out)
	}

	const future = "IsAtLeastVersion999_0_0"
	bumped := strings.Replace(string(protocol), version.Runtime(), future, 1)
	if err := os.WriteFile(filepath.Join(dir, "demo", "protocol.go"), []byte(bumped), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := goCmd(dir, "build", "./demo")
	if err == nil {
		t.Fatal("a package asking for runtime constant " + future + " compiled")
	}
	if !strings.Contains(out, "undefined: jsonrpc."+future) {
		t.Errorf("the build failed without naming the constant:\n%s", out)
	}
}

// tempModule makes a module that requires this repository, replaced by
// the working copy, and returns its directory.
func tempModule(t *testing.T) string {
	t.Helper()
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
	return dir
}

// goCmd runs the go command in dir and returns its combined output.
func goCmd(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod -buildvcs=false", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	return string(out), err
}
