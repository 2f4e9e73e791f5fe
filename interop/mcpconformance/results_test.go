package mcpconformance_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// readResults finds each scenario's checks.json under the directory names
// the suite writes, server scenarios and client ones (whose names may hold
// a '/'), and failures reports FAILURE and WARNING checks only.
func TestReadResults(t *testing.T) {
	dir := t.TempDir()
	for sub, checks := range map[string]string{
		"server-ping-2026-11-25T01-37-50-896Z":                    `[{"id":"ping","status":"SUCCESS"}]`,
		"server-server-sse-polling-2026-11-25T01-37-50-993Z":      `[{"id":"a","status":"INFO"},{"id":"b","status":"WARNING","description":"d","errorMessage":"m"}]`,
		"auth/metadata-default-2026-11-25T01-37-51-000Z":          `[{"id":"c","status":"FAILURE","description":"d2","errorMessage":"m2"},{"id":"e","status":"SKIPPED"}]`,
		"elicitation-sep1034-client-defaults-2026-11-25T01-37-5Z": `not a result directory, never read`,
	} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		name := "checks.json"
		if checks == "not a result directory, never read" {
			name = "other.json"
		}
		if err := os.WriteFile(filepath.Join(dir, sub, name), []byte(checks), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	results := readResults(t, dir)
	var names []string
	var failures []string
	for _, r := range results {
		names = append(names, r.Scenario)
		failures = append(failures, r.failures()...)
	}
	if want := []string{"auth/metadata-default", "ping", "server-sse-polling"}; !slices.Equal(names, want) {
		t.Errorf("scenarios %q, want %q", names, want)
	}
	want := []string{"auth/metadata-default: FAILURE [c] d2: m2", "server-sse-polling: WARNING [b] d: m"}
	if !slices.Equal(failures, want) {
		t.Errorf("failures %q, want %q", failures, want)
	}
}
