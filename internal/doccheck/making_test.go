package doccheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// makingWords speak of how the repository's descriptions were written
// rather than of the protocols: generated output and IDL docs must not
// (generated/ and protocols/ are scanned).
var makingWords = regexp.MustCompile(`(?i)\b(seed|seeds|seeded|designed here|design choice|our design|our own design|this IDL|this description|we chose|chosen here|invented here)\b`)

func TestNoWordsOfMaking(t *testing.T) {
	n := 0
	for _, dir := range []string{"generated", "protocols"} {
		root := filepath.Join("..", "..", dir)
		err := filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			switch filepath.Ext(path) {
			case ".go", ".md", ".json", ".yaml":
			default:
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			n++
			for i, line := range strings.Split(string(b), "\n") {
				if w := makingWords.FindString(line); w != "" {
					t.Errorf("%s:%d: %q speaks of how the description was made: %.120s", path, i+1, w, strings.TrimSpace(line))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 50 {
		t.Fatalf("scanned only %d files", n)
	}
}

func TestMakingWords(t *testing.T) {
	for s, want := range map[string]bool{
		"As the seed says.": true, "Designed here.": true, "a design choice of this IDL": true,
		"seedling": false, "The request proceeds.": false, "upstream design": false,
	} {
		if got := makingWords.MatchString(s); got != want {
			t.Errorf("makingWords.MatchString(%q) = %v", s, got)
		}
	}
}
