package conformance_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/gen"
	"github.com/rpcgen/rpcgen/gen/golang"
	"github.com/rpcgen/rpcgen/gen/jsonschema"
	"github.com/rpcgen/rpcgen/gen/markdown"
	"github.com/rpcgen/rpcgen/gen/openrpc"
	"github.com/rpcgen/rpcgen/idl"
)

// TestSpecsvcFresh checks that internal/specsvc holds exactly what
// `rpcgen generate -out internal/specsvc testdata/specsvc.yaml` writes.
func TestSpecsvcFresh(t *testing.T) {
	const regen = "run: go run ../../cmd/rpcgen generate -out internal/specsvc testdata/specsvc.yaml (in interop/conformance, so that the header names the IDL as this test does)"
	p, err := idl.Load(filepath.Join("testdata", "specsvc.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var files []gen.File
	goFiles, err := golang.Generate(p, golang.Options{})
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := jsonschema.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := markdown.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	orpc, err := openrpc.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	files = slices.Concat(files, goFiles, schemas, docs, orpc)

	dir := filepath.Join("internal", "specsvc")
	want := map[string]bool{}
	for _, f := range files {
		want[filepath.FromSlash(f.Path)] = true
		have, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Errorf("%v; %s", err, regen)
			continue
		}
		if !bytes.Equal(have, f.Content) {
			t.Errorf("%s is stale; %s", filepath.Join(dir, f.Path), regen)
		}
	}
	// Nothing the generator no longer writes may linger.
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if !want[rel] && (strings.HasSuffix(rel, ".json") || strings.HasSuffix(rel, ".go") || rel == "README.md") {
			t.Errorf("%s is no longer generated; %s", path, regen)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
