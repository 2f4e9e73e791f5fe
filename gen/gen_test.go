package gen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/rpcgen/rpcgen/gen"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// read returns the content of dir/path.
func read(t *testing.T, dir, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	var files []gen.File
	for i := range 40 {
		files = append(files, gen.File{Path: "schema/methods/m" + strings.Repeat("x", i) + ".json", Content: []byte(strings.Repeat("m", i))})
	}
	files = append(files,
		gen.File{Path: "types.go", Content: []byte("package a\n")},
		gen.File{Path: "schema/T.json", Content: []byte("{}\n")},
		gen.File{Path: "types.go", Content: []byte("package b\n")}, // the later one wins
	)
	if err := gen.Write(dir, files); err != nil {
		t.Fatal(err)
	}
	if got := read(t, dir, "types.go"); got != "package b\n" {
		t.Errorf("types.go = %q, want the last file of that path", got)
	}
	for _, f := range append(files[:40:40], files[41]) {
		if got := read(t, dir, f.Path); got != string(f.Content) {
			t.Errorf("%s = %q, want %q", f.Path, got, f.Content)
		}
	}
}

// TestWriteLeavesUnchangedFiles checks that a second Write changes the
// files whose content changed and leaves the others, modification time
// included, alone.
func TestWriteLeavesUnchangedFiles(t *testing.T) {
	dir := t.TempDir()
	files := []gen.File{
		{Path: "same.go", Content: []byte("package p\n")},
		{Path: "schema/longer.json", Content: []byte("{}\n")},
		{Path: "schema/shorter.json", Content: []byte("{\"a\": 1}\n")},
		{Path: "schema/other.json", Content: []byte("[1]\n")},
		{Path: "big.go", Content: []byte(strings.Repeat("big ", 50_000))},
		{Path: "schema/big.json", Content: []byte(strings.Repeat("big ", 50_000))},
	}
	if err := gen.Write(dir, files); err != nil {
		t.Fatal(err)
	}
	past := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	for _, f := range files {
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(f.Path)), past, past); err != nil {
			t.Fatal(err)
		}
	}
	files[1].Content = []byte("{\"b\": 2}\n")
	files[2].Content = []byte("{}\n")
	files[3].Content = []byte("[2]\n")
	files[4].Content = []byte(strings.Repeat("big ", 50_000)) // unchanged
	files[5].Content = []byte(strings.Repeat("big ", 49_999) + "bug ")
	if err := gen.Write(dir, files); err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.Path))
		if got := read(t, dir, f.Path); got != string(f.Content) {
			t.Errorf("%s = %q, want %q", f.Path, got, f.Content)
		}
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		want := i == 0 || i == 4
		if unchanged := info.ModTime().Equal(past); unchanged != want {
			t.Errorf("%s: modification time %v kept = %v, want %v", f.Path, info.ModTime(), unchanged, want)
		}
	}
}

func TestWriteReportsFirstFailure(t *testing.T) {
	dir := t.TempDir()
	// A directory where a file should go cannot be written.
	for _, d := range []string{"b.go", "d.go"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := []gen.File{
		{Path: "a.go", Content: []byte("a")},
		{Path: "b.go", Content: []byte("b")},
		{Path: "c.go", Content: []byte("c")},
		{Path: "d.go", Content: []byte("d")},
	}
	err := gen.Write(dir, files)
	if err == nil || !strings.Contains(err.Error(), "b.go") {
		t.Fatalf("Write = %v, want an error about b.go", err)
	}
	for _, name := range []string{"a.go", "c.go"} {
		if got := read(t, dir, name); got != strings.TrimSuffix(name, ".go") {
			t.Errorf("%s = %q", name, got)
		}
	}
	// A file where a directory should go cannot be created.
	if err := gen.Write(dir, []gen.File{{Path: "a.go/x.json", Content: []byte("{}")}}); err == nil {
		t.Error("Write below a file succeeded")
	}
}

// TestWriterBatches checks that a Writer writes the files of every batch
// handed over, in new directories too, that Close may be called twice,
// and that Written lists the files written, not one that failed.
func TestWriterBatches(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "d.go"), 0o755); err != nil {
		t.Fatal(err)
	}
	w := gen.NewWriter(dir)
	w.Write([]gen.File{{Path: "a.go", Content: []byte("a")}, {Path: "d.go", Content: []byte("d")}})
	w.Write([]gen.File{{Path: "schema/b.json", Content: []byte("b")}, {Path: "schema/methods/c.json", Content: []byte("c")}})
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "d.go") {
		t.Fatalf("Close = %v, want an error about d.go", err)
	}
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "d.go") {
		t.Fatalf("second Close = %v, want the same error", err)
	}
	for path, want := range map[string]string{"a.go": "a", "schema/b.json": "b", "schema/methods/c.json": "c"} {
		if got := read(t, dir, path); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if written := w.Written(); strings.Join(written, " ") != "a.go schema/b.json schema/methods/c.json" {
		t.Errorf("Written = %q", written)
	}
}
