package supex_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/supex"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// With SUPEX_ALLOWED_ROOTS set, a hello's workspace outside the roots is
// ignored: it neither becomes a root nor receives the default outputs.
func TestWorkspaceOutsideAllowedRootsIsIgnored(t *testing.T) {
	roots := t.TempDir()
	outside := t.TempDir()
	rp := startRuntime(t, "127.0.0.1:0", "SUPEX_ALLOWED_ROOTS="+roots)

	_, rt := session(t, rp, "/etc")
	err := call(t, rt, supex.ToolNameOpenModel, map[string]any{"path": "/etc/hostname"}, nil)
	if host, _ := os.ReadFile("/etc/hostname"); err != nil && len(host) > 0 && strings.Contains(err.Error(), "'"+string(host[:1])+"'") {
		t.Errorf("open_model /etc/hostname quotes the file: %v", err)
	}
	wantCode(t, err, supex.ErrPathAccessDenied)
	rp.waitLog(t, regexp.MustCompile(`workspace outside SUPEX_ALLOWED_ROOTS ignored`), 1)

	_, rt = session(t, rp, outside)
	rp.waitLog(t, regexp.MustCompile(`workspace outside SUPEX_ALLOWED_ROOTS ignored`), 2)
	wantCode(t, call(t, rt, supex.ToolNameSaveModel, map[string]any{"path": filepath.Join(outside, "m.skp")}, nil), supex.ErrPathAccessDenied)
	var exp supex.ExportResult
	if err := call(t, rt, supex.ToolNameExportScene, map[string]any{"format": "obj"}, &exp); err != nil {
		t.Fatalf("export_scene: %v", err)
	}
	wantFile(t, exp.FilePath, filepath.Join(rp.dir, "exports"), "o entity_1001")
	var shot supex.ScreenshotResult
	if err := call(t, rt, supex.ToolNameTakeScreenshot, map[string]any{"width": 8, "height": 8}, &shot); err != nil {
		t.Fatalf("take_screenshot: %v", err)
	}
	wantFile(t, shot.FilePath, filepath.Join(rp.dir, "screenshots"), "\x89PNG")
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("tools wrote into a workspace outside the roots: %v", entries)
	}
}

// A workspace under the allowed roots receives the default outputs, but
// every path is still checked: a .tmp linking out of the roots, or a
// batch shot named with "..", is refused.
func TestWorkspaceOutputsStayInsideAllowedRoots(t *testing.T) {
	roots := t.TempDir()
	outside := t.TempDir()
	rp := startRuntime(t, "127.0.0.1:0", "SUPEX_ALLOWED_ROOTS="+roots)

	ws := filepath.Join(roots, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	_, rt := session(t, rp, ws)
	var exp supex.ExportResult
	if err := call(t, rt, supex.ToolNameExportScene, map[string]any{"format": "stl"}, &exp); err != nil {
		t.Fatalf("export_scene: %v", err)
	}
	wantFile(t, exp.FilePath, filepath.Join(ws, ".tmp", "exports"), "solid supex")
	var batch supex.BatchScreenshotResult
	args := map[string]any{"output_dir": filepath.Join(ws, "shots"), "width": 8, "height": 8, "shots": []any{
		map[string]any{"name": "ok"},
		map[string]any{"name": "../../../../../" + filepath.Base(outside) + "/escaped"},
	}}
	if err := call(t, rt, supex.ToolNameTakeBatchScreenshots, args, &batch); err != nil {
		t.Fatalf("take_batch_screenshots: %v", err)
	}
	if batch.Successful != 1 || batch.Failed != 1 || batch.Results[1].Error == "" ||
		!strings.Contains(batch.Results[1].Error, "Path access denied") {
		t.Errorf("take_batch_screenshots with a shot named out of the roots = %+v", batch)
	}

	// A workspace whose .tmp links out of the roots.
	linked := filepath.Join(roots, "linked")
	if err := os.Mkdir(linked, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(linked, ".tmp")); err != nil {
		t.Fatal(err)
	}
	_, rt = session(t, rp, linked)
	wantCode(t, call(t, rt, supex.ToolNameExportScene, map[string]any{"format": "obj"}, nil), supex.ErrPathAccessDenied)
	wantCode(t, call(t, rt, supex.ToolNameTakeScreenshot, map[string]any{"width": 8, "height": 8}, nil), supex.ErrPathAccessDenied)
	wantCode(t, call(t, rt, supex.ToolNameTakeBatchScreenshots, map[string]any{"shots": []any{map[string]any{}}}, nil), supex.ErrPathAccessDenied)
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("tools wrote out of the roots: %v", entries)
	}
}

// open_model of a file that is not a model says so without quoting it.
func TestOpenModelErrorQuotesNoContent(t *testing.T) {
	rp := startRuntime(t, "127.0.0.1:0")
	ws := t.TempDir()
	secret := filepath.Join(ws, "secret.txt")
	if err := os.WriteFile(secret, []byte("TOPSECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, rt := session(t, rp, ws)
	e := wantCode(t, call(t, rt, supex.ToolNameOpenModel, map[string]any{"path": secret}, nil), supex.ErrRuby)
	if strings.Contains(e.Message, "'T'") || strings.Contains(e.Message, "TOPSECRET") || !strings.Contains(e.Message, "not a model") {
		t.Errorf("open_model of a text file: %q", e.Message)
	}
}

// A model opened by one client is saved by another only inside its roots.
func TestSaveToOpenedPathIsChecked(t *testing.T) {
	rp := startRuntime(t, "127.0.0.1:0")
	wsA, wsB := t.TempDir(), t.TempDir()
	_, a := session(t, rp, wsA)
	skp := filepath.Join(wsA, "a.skp")
	if err := call(t, a, supex.ToolNameSaveModel, map[string]any{"path": skp}, nil); err != nil {
		t.Fatal(err)
	}
	if err := call(t, a, supex.ToolNameOpenModel, map[string]any{"path": skp}, nil); err != nil {
		t.Fatal(err)
	}
	_, b := session(t, rp, wsB)
	wantCode(t, call(t, b, supex.ToolNameSaveModel, nil, nil), supex.ErrPathAccessDenied)
}

// A failed hello with a 10 MiB name adds a bounded number of bytes to the
// console log.
func TestFailedHelloLogIsBounded(t *testing.T) {
	rp := startRuntime(t, "127.0.0.1:0", "SUPEX_AUTH_TOKEN=right")
	logFile := filepath.Join(rp.dir, "sketchup_console.log")
	before, err := os.Stat(logFile)
	if err != nil {
		t.Fatal(err)
	}
	_, rt := dial(t, rp.addr, jsonrpc.Options{})
	p := helloParams("wrong", "")
	p.Name = strings.Repeat("n", 10<<20)
	_, err = rt.Hello(ctxT(t), p)
	wantCode(t, err, supex.ErrAuthenticationFailed)
	rp.waitLog(t, reAuthFailed, 1) // logged before the answer; here for the message
	after, err := os.Stat(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if grown := after.Size() - before.Size(); grown > 4<<10 {
		t.Errorf("a failed hello with a 10 MiB name grew the log by %d bytes", grown)
	}
}
