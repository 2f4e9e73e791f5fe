package reginald_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The host's -log-level takes Reginald's level names in any case, with an
// offset, and drops the plugin's records below it.
func TestHostLogLevelFlag(t *testing.T) {
	plugin := pluginDir(t, "reginald-dotfiles")
	present := filepath.Join(t.TempDir(), "present")
	if err := os.WriteFile(present, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runHost(t, "-log-level", "info+1", "-set", "verbose=true", "-set", "paths="+present, plugin, "status")
	if err != nil || out != "command status: done\n" {
		t.Fatalf("host: %v, %q\n%s", err, out, errOut)
	}
	if strings.Contains(errOut, "msg=present") {
		t.Errorf("an INFO record passed the INFO+1 threshold:\n%s", errOut)
	}
	_, errOut, err = runHost(t, "-log-level", "Debug", "-set", "verbose=true", "-set", "paths="+present, plugin, "status")
	if err != nil || !strings.Contains(errOut, "level=INFO msg=present") || !strings.Contains(errOut, `level=DEBUG msg="shutting down"`) {
		t.Errorf("host at DEBUG: %v\n%s", err, errOut)
	}
	if _, errOut, err = runHost(t, "-log-level", "loud", plugin); exitCode(err) != 2 || !strings.Contains(errOut, `unknown log level "loud"`) {
		t.Errorf("-log-level loud: %v\n%s", err, errOut)
	}
}
