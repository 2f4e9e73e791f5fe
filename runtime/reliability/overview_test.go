package reliability

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestOverviewNamesRealTests: every test or fuzz target that
// runtime/RELIABILITY.md cites as proof exists in the repository, and
// every TestReliability case it cites is in this package's table, so the
// overview cannot point at a test that was renamed or removed.
func TestOverviewNamesRealTests(t *testing.T) {
	doc, err := os.ReadFile("../RELIABILITY.md")
	if err != nil {
		t.Fatal(err)
	}
	cited := regexp.MustCompile("`((?:Test|Fuzz)[A-Za-z0-9_]+)(/[a-z0-9-]+)?`").FindAllStringSubmatch(string(doc), -1)
	if len(cited) == 0 {
		t.Fatal("runtime/RELIABILITY.md cites no test")
	}
	defined := map[string]bool{}
	funcRE := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)[A-Za-z0-9_]+)\(`)
	err = filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range funcRE.FindAllStringSubmatch(string(b), -1) {
			defined[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, c := range cases() {
		named[c.name] = true
	}
	for _, m := range cited {
		if !defined[m[1]] {
			t.Errorf("runtime/RELIABILITY.md cites %s, which no _test.go file defines", m[1])
		}
		if m[1] == "TestReliability" && m[2] != "" && !named[m[2][1:]] {
			t.Errorf("runtime/RELIABILITY.md cites TestReliability%s, which is not a case of this package", m[2])
		}
	}
}
