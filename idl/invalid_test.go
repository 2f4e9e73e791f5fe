package idl

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the expected errors of testdata/invalid")

// TestInvalid loads every testdata/invalid/*.yaml and compares the errors
// with the sibling .err file. Run with -update to rewrite them.
func TestInvalid(t *testing.T) {
	files, err := filepath.Glob("testdata/invalid/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 30 {
		t.Errorf("only %d invalid files; want at least 30", len(files))
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".yaml"), func(t *testing.T) {
			p, err := Load(file)
			if err == nil {
				t.Fatalf("Load succeeded (%d methods); want errors", len(p.Methods))
			}
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("Load returned %T %v; want Errors", err, err)
			}
			for _, e := range errs {
				checkPos(t, e)
			}
			got := err.Error() + "\n"
			golden := strings.TrimSuffix(file, ".yaml") + ".err"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestInvalid -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("errors differ from %s\ngot:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
}

// checkPos fails when e does not point inside its file.
func checkPos(t *testing.T, e Error) {
	t.Helper()
	src, err := os.ReadFile(e.Pos.File)
	if err != nil {
		t.Errorf("%v: position names an unreadable file: %v", e, err)
		return
	}
	lines := strings.Split(string(src), "\n")
	if e.Pos.Line < 1 || e.Pos.Line > len(lines) {
		t.Errorf("%v: line outside the file (%d lines)", e, len(lines))
		return
	}
	if n := len([]rune(lines[e.Pos.Line-1])); e.Pos.Col < 1 || e.Pos.Col > n+1 {
		t.Errorf("%v: column outside the line (%d characters)", e, n)
	}
}

// TestValid loads every testdata/valid/*.yaml, which must load cleanly.
func TestValid(t *testing.T) {
	files, err := filepath.Glob("testdata/valid/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Errorf("only %d valid files; want one per seed protocol", len(files))
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".yaml"), func(t *testing.T) {
			if _, err := Load(file); err != nil {
				t.Fatal(err)
			}
		})
	}
}
