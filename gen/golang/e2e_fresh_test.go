package golang

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/gen"
)

// e2eDir holds the committed package generated from testdata/e2e/e2e.yaml,
// and the end-to-end test that runs it.
var e2eDir = filepath.Join("internal", "e2e")

// TestE2EFresh checks that internal/e2e holds exactly what the generator
// writes for testdata/e2e/e2e.yaml. Run with -update to rewrite it.
func TestE2EFresh(t *testing.T) {
	files := generate(t, input{"e2e", filepath.Join("testdata", "e2e", "e2e.yaml")})
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
