package reginald_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/reginald"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// Levels as Reginald's reader takes them, in any case and with an offset,
// cross the wire and are kept; the plugin reads them as its threshold and
// refuses one it cannot read.
func TestLevelsWithOffsets(t *testing.T) {
	s := start(t, nil)
	dir := t.TempDir()
	s.handshake(t)

	_, err := s.plugin.Initialize(ctx(t), &reginald.InitializeParams{Logging: reginald.LoggingConfig{Enabled: true, Level: "verbose"}})
	if e := wantCode(t, err, jsonrpc.CodeInvalidParams); !strings.Contains(e.Message, `logging.level: "verbose"`) {
		t.Errorf("initialize error %v", e)
	}

	// WARN-8 is DEBUG: the plugin's debug record passes.
	s.initialize(t, "Warn-8")
	if p := s.nextLog(t); p.Msg != "initialized" || p.Level != reginald.LogLevelDebug {
		t.Errorf("log %+v, want the initialized record at DEBUG", p)
	}

	// DEBUG+1 is above DEBUG: the next record is the status command's
	// INFO record, not the debug one of initialize.
	s.initialize(t, "debug+1")
	present := filepath.Join(dir, "present")
	if err := os.WriteFile(present, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.plugin.SetupCommand(ctx(t), &reginald.SetupCommandParams{
		Name: "status", Args: []string{present},
		Config: []reginald.ConfigEntry{{Key: "verbose", Value: raw(true), Type: reginald.ValueTypeBool}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.plugin.RunCommand(ctx(t), &reginald.RunCommandParams{Name: "status"}); err != nil {
		t.Fatal(err)
	}
	if p := s.nextLog(t); p.Msg != "present" || p.Level != reginald.LogLevelInfo {
		t.Errorf("log %+v, want the present record at INFO", p)
	}
}

// The host's -log-level takes the same forms and passes the level on.
func TestHostLogLevelFlag(t *testing.T) {
	plugin := pluginDir(t, "dotfiles", nil)
	present := filepath.Join(t.TempDir(), "present")
	if err := os.WriteFile(present, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runHost(t, "-log-level", "info+1", "-set", "verbose=true", plugin, "status", present)
	if err != nil || out != "command status: done\n" {
		t.Fatalf("host: %v, %q\n%s", err, out, errOut)
	}
	if strings.Contains(errOut, "msg=present") {
		t.Errorf("an INFO record passed the INFO+1 threshold:\n%s", errOut)
	}
	out, errOut, err = runHost(t, "-log-level", "info", "-set", "verbose=true", plugin, "status", present)
	if err != nil || !strings.Contains(errOut, "level=INFO msg=present") {
		t.Errorf("host at INFO: %v, %q\n%s", err, out, errOut)
	}
	if _, errOut, err = runHost(t, "-log-level", "loud", plugin); exitCode(err) != 2 || !strings.Contains(errOut, `unknown log level "loud"`) {
		t.Errorf("-log-level loud: %v\n%s", err, errOut)
	}
}
