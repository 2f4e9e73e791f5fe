package reginald_test

import (
	"strings"
	"testing"
)

// goManifest is a manifest for a plugin that answers as Reginald's example
// plugin plugins/go does (a trimmed copy of its manifest, run by the
// scripted plugin).
const goManifest = `{
  "name": "reginald-go",
  "version": "0.1.0",
  "domain": "go",
  "executable": "scripted",
  "config": [
    {"key": "remote", "value": "https://go.dev/dl/?mode=json&include=all", "type": "string", "flag": {}},
    {"key": "version", "value": "1.23", "type": "string", "flag": {}}
  ],
  "commands": [{"name": "versions", "usage": "versions [options]", "description": "TODO"}]
}`

// The host runs a plugin that answers what plugins/go answered to the real
// Reginald: the handshake result, a log record with source and attrs and
// a level as log/slog writes it, {} for runCommand, true for shutdown.
func TestReplayExamplePluginToHost(t *testing.T) {
	dir := scriptedDir(t, "reginald-go-versions.from-plugin.bin", []byte(goManifest))
	out, errOut, err := runHost(t, "-log-level", "debug", dir, "versions")
	if err != nil || out != "command versions: done\n" {
		t.Fatalf("host: %v, %q\n%s", err, out, errOut)
	}
	if want := `level=INFO msg="running command" plugin=reginald-go cmd=versions`; !strings.Contains(errOut, want) {
		t.Errorf("the host did not log the plugin's record %s:\n%s", want, errOut)
	}
}

// The host reports the errors plugins/go answers: -32000 to a handshake
// naming another protocol, -32001 with data {} to an unknown command.
func TestReplayExamplePluginErrorsToHost(t *testing.T) {
	// The recording answers a first handshake with HandshakeFailed.
	dir := scriptedDir(t, "reginald-go-errors.from-plugin.bin", []byte(goManifest))
	_, errOut, err := runHost(t, dir, "versions")
	if want := `host: handshake: jsonrpc error -32000: handshake error (data: "expected protocol to be \"reginald\", got \"rpp\"")`; exitCode(err) != 1 || !strings.Contains(errOut, want) {
		t.Errorf("host exit %v, want status 1 and %s:\n%s", err, want, errOut)
	}
}

// The host reports the InvalidCommand error plugins/go answers to a command
// it lacks (-32001 with data {}), then still shuts the plugin down.
func TestReplayExamplePluginInvalidCommandToHost(t *testing.T) {
	manifest := strings.Replace(goManifest, `"name": "versions"`, `"name": "nope"`, 1)
	dir := scriptedDir(t, "reginald-go-unknown-command.from-plugin.bin", []byte(manifest))
	_, errOut, err := runHost(t, dir, "nope")
	if want := `host: command nope: jsonrpc error -32001: invalid command (data: {})`; exitCode(err) != 1 || !strings.Contains(errOut, want) {
		t.Errorf("host exit %v, want status 1 and %s:\n%s", err, want, errOut)
	}
	// The recording ends with the answer to shutdown; the scripted plugin
	// exits 0 only on the exit notification that follows it.
	if !strings.Contains(errOut, `status="exit status 0"`) {
		t.Errorf("the scripted plugin did not get shutdown and exit:\n%s", errOut)
	}
}
