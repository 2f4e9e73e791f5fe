package streamhttp

import (
	"os"
	"testing"
)

// checkGolden rewrites file with want under -update; otherwise it fails
// the test, naming the command that rewrites it, when file differs.
func checkGolden(t *testing.T, file string, want []byte, rerun string) {
	t.Helper()
	if updating() {
		if err := os.WriteFile(file, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(file)
	if err != nil || string(got) != string(want) {
		t.Errorf("%s is not the rendering of its case table (%v); run %s -update", file, err, rerun)
	}
}
