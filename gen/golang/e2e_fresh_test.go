package golang

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/gen"
)

// committedPackages are the packages generated from test IDLs and
// committed under internal/, each with an end-to-end test beside it:
// e2e exercises every kind of message, full every IDL feature.
var committedPackages = []input{
	{"e2e", filepath.Join("testdata", "e2e", "e2e.yaml")},
	{"full", filepath.Join("..", "..", "idl", "testdata", "full.yaml")},
}

// TestE2EFresh checks that each package under internal/ holds exactly what
// the generator writes for its IDL. Run with -update to rewrite them.
func TestE2EFresh(t *testing.T) {
	for _, in := range committedPackages {
		checkFresh(t, in, filepath.Join("internal", in.name))
	}
}

// checkFresh compares (or, with -update, rewrites) the committed package
// in e2eDir with the generator's output for in.
func checkFresh(t *testing.T, in input, e2eDir string) {
	files := generate(t, in)
	if *update {
		for _, old := range generatedIn(t, e2eDir) {
			if err := os.Remove(filepath.Join(e2eDir, old)); err != nil {
				t.Fatal(err)
			}
		}
		if err := gen.Write(e2eDir, files); err != nil {
			t.Fatal(err)
		}
		return
	}
	want := map[string]bool{}
	for _, f := range files {
		want[f.Path] = true
		have, err := os.ReadFile(filepath.Join(e2eDir, f.Path))
		if err != nil {
			t.Errorf("%v (run go test -run TestE2EFresh -update)", err)
			continue
		}
		if !bytes.Equal(have, f.Content) {
			t.Errorf("%s is stale; run go test -run TestE2EFresh -update", filepath.Join(e2eDir, f.Path))
		}
	}
	for _, name := range generatedIn(t, e2eDir) {
		if !want[name] {
			t.Errorf("%s is no longer generated; run go test -run TestE2EFresh -update", filepath.Join(e2eDir, name))
		}
	}
}

// generatedIn lists the generated Go files of dir.
func generatedIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.HasPrefix(b, []byte(gen.Header+"\n")) {
			out = append(out, e.Name())
		}
	}
	return out
}
