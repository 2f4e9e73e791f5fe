package golang

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/rpcgen/rpcgen/gen"
	"github.com/rpcgen/rpcgen/idl"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden and the package internal/e2e")

// input is one IDL file the tests generate code for.
type input struct {
	name string // name of the output package directory and golden file
	path string
}

// inputs returns the test IDLs: idl's full example and seed excerpts, and
// this package's testdata.
func inputs(t *testing.T) []input {
	t.Helper()
	ins := []input{{"full", filepath.Join("..", "..", "idl", "testdata", "full.yaml")}}
	for _, pattern := range []string{
		filepath.Join("..", "..", "idl", "testdata", "valid", "*.yaml"),
		filepath.Join("testdata", "*.yaml"),
		filepath.Join("testdata", "e2e", "*.yaml"),
	} {
		paths, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			ins = append(ins, input{strings.TrimSuffix(filepath.Base(p), ".yaml"), p})
		}
	}
	return ins
}

// generate loads in and generates its Go files.
func generate(t *testing.T, in input) []gen.File {
	t.Helper()
	p, err := idl.Load(in.path)
	if err != nil {
		t.Fatalf("%s: %v", in.name, err)
	}
	files, err := Generate(p, Options{})
	if err != nil {
		t.Fatalf("%s: %v", in.name, err)
	}
	return files
}

// archive writes files as a txtar archive.
func archive(files []gen.File) []byte {
	a := &txtar.Archive{}
	for _, f := range files {
		a.Files = append(a.Files, txtar.File{Name: f.Path, Data: f.Content})
	}
	return txtar.Format(a)
}

// TestGolden compares the output for every input with
// testdata/golden/<name>.txtar. Run with -update to rewrite them.
func TestGolden(t *testing.T) {
	for _, in := range inputs(t) {
		t.Run(in.name, func(t *testing.T) {
			got := archive(generate(t, in))
			golden := filepath.Join("testdata", "golden", in.name+".txtar")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s; run go test -run TestGolden -update and review the diff", golden)
				diffFiles(t, txtar.Parse(want), txtar.Parse(got))
			}
		})
	}
}

// diffFiles reports the first differing line of each file that differs.
func diffFiles(t *testing.T, want, got *txtar.Archive) {
	t.Helper()
	wantFiles := map[string][]byte{}
	for _, f := range want.Files {
		wantFiles[f.Name] = f.Data
	}
	for _, f := range got.Files {
		w, ok := wantFiles[f.Name]
		if !ok {
			t.Errorf("%s: new file", f.Name)
			continue
		}
		delete(wantFiles, f.Name)
		wl, gl := strings.Split(string(w), "\n"), strings.Split(string(f.Data), "\n")
		for i := 0; i < len(wl) || i < len(gl); i++ {
			var a, b string
			if i < len(wl) {
				a = wl[i]
			}
			if i < len(gl) {
				b = gl[i]
			}
			if a != b {
				t.Errorf("%s:%d:\n got: %s\nwant: %s", f.Name, i+1, b, a)
				break
			}
		}
	}
	for name := range wantFiles {
		t.Errorf("%s: file no longer generated", name)
	}
}

// TestDeterministic generates every input twice and compares the bytes.
func TestDeterministic(t *testing.T) {
	for _, in := range inputs(t) {
		if a, b := archive(generate(t, in)), archive(generate(t, in)); !bytes.Equal(a, b) {
			t.Errorf("%s: two generations differ", in.name)
		}
	}
}
