package supex_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/supex"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

func TestModelTools(t *testing.T) {
	rp := startRuntime(t, "127.0.0.1:0")
	_, rt := session(t, rp, "")

	var ping supex.PingToolResult
	if err := call(t, rt, supex.ToolNamePing, nil, &ping); err != nil || ping.Status != "connected" || ping.Version != "0.2.0" {
		t.Errorf("ping tool = %+v, %v", ping, err)
	}
	var info supex.ModelInfo
	if err := call(t, rt, supex.ToolNameGetModelInfo, nil, &info); err != nil {
		t.Fatal(err)
	}
	want := supex.ModelInfo{Success: true, Title: "Untitled", Units: supex.UnitsMeters, NumFaces: 1, NumEdges: 4, NumGroups: 1, NumComponents: 1}
	if info != want {
		t.Errorf("get_model_info = %+v, want %+v", info, want)
	}
	var all, groups, sel supex.EntityList
	if err := call(t, rt, supex.ToolNameListEntities, nil, &all); err != nil || all.Count != 7 || all.EntityType != supex.EntityFilterAll {
		t.Errorf("list_entities = %+v, %v", all, err)
	}
	if err := call(t, rt, supex.ToolNameListEntities, map[string]any{"entity_type": "groups"}, &groups); err != nil ||
		groups.Count != 1 || groups.Entities[0].Name != "Box" || groups.Entities[0].Layer != "Layer0" {
		t.Errorf("list_entities groups = %+v, %v", groups, err)
	}
	err := call(t, rt, supex.ToolNameListEntities, map[string]any{"entity_type": "walls"}, nil)
	wantCode(t, err, jsonrpc.ErrInvalidParams)
	if err := call(t, rt, supex.ToolNameGetSelection, nil, &sel); err != nil || sel.Count != 2 || len(sel.Entities[1].Normal) != 3 {
		t.Errorf("get_selection = %+v, %v", sel, err)
	}
	var layers supex.LayerList
	if err := call(t, rt, supex.ToolNameGetLayers, nil, &layers); err != nil || layers.Count != 2 || layers.Layers[1].Name != "Furniture" {
		t.Errorf("get_layers = %+v, %v", layers, err)
	}
	var mats supex.MaterialList
	if err := call(t, rt, supex.ToolNameGetMaterials, nil, &mats); err != nil || mats.Count != 2 || mats.Materials[0].Color.Red != 200 || !mats.Materials[1].Textured {
		t.Errorf("get_materials = %+v, %v", mats, err)
	}
	var cam supex.CameraInfo
	if err := call(t, rt, supex.ToolNameGetCameraInfo, nil, &cam); err != nil || cam.Fov != 35 || !cam.Perspective || len(cam.Eye) != 3 {
		t.Errorf("get_camera_info = %+v, %v", cam, err)
	}
	var reload supex.MessageResult
	if err := call(t, rt, supex.ToolNameReloadExtension, nil, &reload); err != nil || !reload.Success {
		t.Errorf("reload_extension = %+v, %v", reload, err)
	}
	var console supex.ConsoleCaptureStatus
	if err := call(t, rt, supex.ToolNameConsoleCaptureStatus, nil, &console); err != nil || !console.Capturing || console.LogFile == nil {
		t.Fatalf("console_capture_status = %+v, %v", console, err)
	}
	if b, err := os.ReadFile(*console.LogFile); err != nil || !bytes.Contains(b, []byte("tool=console_capture_status")) {
		t.Errorf("console log %s does not hold the calls: %v", *console.LogFile, err)
	}

	// No Ruby in the stand-in: -32000.
	err = call(t, rt, supex.ToolNameEvalRuby, map[string]any{"code": "1 + 1"}, nil)
	if e := wantCode(t, err, supex.ErrRuby); !strings.Contains(e.Message, "Ruby") {
		t.Errorf("eval_ruby message %q", e.Message)
	}
	wantCode(t, call(t, rt, supex.ToolNameEvalRuby, nil, nil), jsonrpc.ErrInvalidParams) // code is required
	wantCode(t, call(t, rt, "no_such_tool", nil, nil), jsonrpc.ErrInvalidParams)
}

func TestFileTools(t *testing.T) {
	rp := startRuntime(t, "127.0.0.1:0")
	ws := t.TempDir()
	outside := t.TempDir()
	_, rt := session(t, rp, ws)

	// Paths outside the roots: -32002, also through a symbolic link.
	link := filepath.Join(ws, "escape")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool supex.ToolName
		args map[string]any
	}{
		{supex.ToolNameEvalRubyFile, map[string]any{"file_path": filepath.Join(outside, "a.rb")}},
		{supex.ToolNameOpenModel, map[string]any{"path": filepath.Join(link, "m.skp")}},
		{supex.ToolNameSaveModel, map[string]any{"path": filepath.Join(ws, "..", filepath.Base(outside), "m.skp")}},
		{supex.ToolNameTakeScreenshot, map[string]any{"output_path": filepath.Join(link, "s.png")}},
		{supex.ToolNameTakeBatchScreenshots, map[string]any{"output_dir": outside, "shots": []any{map[string]any{}}}},
	} {
		wantCode(t, call(t, rt, c.tool, c.args, nil), supex.ErrPathAccessDenied)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("a denied tool wrote %v", entries)
	}

	// eval_ruby_file inside the workspace: allowed, but no Ruby.
	rb := filepath.Join(ws, "box.rb")
	os.WriteFile(rb, []byte("1 + 1\n"), 0o644)
	wantCode(t, call(t, rt, supex.ToolNameEvalRubyFile, map[string]any{"file_path": rb}, nil), supex.ErrRuby)

	// save, change nothing, open it again.
	skp := filepath.Join(ws, "house.skp")
	var saved, opened supex.ModelFileResult
	if err := call(t, rt, supex.ToolNameSaveModel, nil, nil); err == nil {
		t.Error("save_model of a never-saved model without a path succeeded")
	}
	if err := call(t, rt, supex.ToolNameSaveModel, map[string]any{"path": skp}, &saved); err != nil || saved.Title != "house" {
		t.Fatalf("save_model = %+v, %v", saved, err)
	}
	if err := call(t, rt, supex.ToolNameOpenModel, map[string]any{"path": skp}, &opened); err != nil || opened.FilePath != skp || opened.FileName != "house.skp" {
		t.Fatalf("open_model = %+v, %v", opened, err)
	}
	var missing supex.ToolResult
	if err := call(t, rt, supex.ToolNameOpenModel, map[string]any{"path": filepath.Join(ws, "none.skp")}, &missing); err != nil ||
		missing.Success || !strings.Contains(missing.Error, "not found") {
		t.Errorf("open_model of a missing file = %+v, %v", missing, err)
	}

	// Screenshots and exports land under the workspace's .tmp by default.
	var shot supex.ScreenshotResult
	if err := call(t, rt, supex.ToolNameTakeScreenshot, map[string]any{"width": 64, "height": 48}, &shot); err != nil {
		t.Fatal(err)
	}
	wantFile(t, shot.FilePath, filepath.Join(ws, ".tmp", "screenshots"), "\x89PNG")
	var batch supex.BatchScreenshotResult
	args := map[string]any{"output_dir": filepath.Join(ws, "shots"), "width": 32, "height": 32, "shots": []any{
		map[string]any{"name": "top", "camera": map[string]any{"view": "top"}},
		map[string]any{"camera": map[string]any{"type": "zoom_entity", "entity_ids": []int{1002}}, "isolate": 1002},
		map[string]any{"camera": map[string]any{"type": "custom", "eye": []int{0, -500, 50}, "target": []int{0, 0, 0}}},
		map[string]any{"isolate": 1003}, // a face cannot be isolated
	}}
	if err := call(t, rt, supex.ToolNameTakeBatchScreenshots, args, &batch); err != nil {
		t.Fatal(err)
	}
	if batch.Success || batch.TotalShots != 4 || batch.Successful != 3 || batch.Failed != 1 || batch.Results[3].Error == "" {
		t.Fatalf("take_batch_screenshots = %+v", batch)
	}
	wantFile(t, batch.Results[0].FilePath, filepath.Join(ws, "shots"), "\x89PNG")
	for format, magic := range map[string]string{"skp": "{", "obj": "o entity_1001", "stl": "solid supex", "png": "\x89PNG", "jpg": "\xff\xd8"} {
		var exp supex.ExportResult
		if err := call(t, rt, supex.ToolNameExportScene, map[string]any{"format": format, "width": 16, "height": 16}, &exp); err != nil {
			t.Fatalf("export_scene %s: %v", format, err)
		}
		wantFile(t, exp.FilePath, filepath.Join(ws, ".tmp", "exports"), magic)
	}
	wantCode(t, call(t, rt, supex.ToolNameExportScene, map[string]any{"format": "dae"}, nil), jsonrpc.ErrInvalidParams)
}

// wantFile checks that path lies in dir and starts with magic.
func wantFile(t *testing.T, path, dir, magic string) {
	t.Helper()
	if filepath.Dir(path) != dir {
		t.Errorf("%s is not in %s", path, dir)
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte(magic)) {
		t.Errorf("%s: %v, starts with %q, want %q", path, err, b[:min(len(b), 8)], magic)
	}
}

// A material's colour has SketchUp's ranges: channels 0 to 255, opacity 0
// to 1; a tool result outside them does not decode.
func TestColorRanges(t *testing.T) {
	for raw, want := range map[string]string{
		`{"red":256,"green":0,"blue":0,"alpha":1}`: "red: 256 is above the maximum 255",
		`{"red":0,"green":-1,"blue":0,"alpha":1}`:  "green: -1 is below the minimum 0",
		`{"red":0,"green":0,"blue":0,"alpha":1.5}`: "alpha: 1.5 is above the maximum 1",
	} {
		var c supex.Color
		if err := json.Unmarshal([]byte(raw), &c); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", raw, err, want)
		}
	}
	var c supex.Color
	if err := json.Unmarshal([]byte(`{"red":255,"green":0,"blue":128,"alpha":0.5}`), &c); err != nil {
		t.Errorf("a colour in range: %v", err)
	}
}
