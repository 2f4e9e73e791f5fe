package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/generated/supex"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// tools runs tools for one client; the caller holds st.mu.
type tools struct {
	st     *state
	policy pathPolicy
	outDir string
}

// failed is the answer of a tool that could not do its job for an
// ordinary reason.
func failed(format string, args ...any) *supex.ToolResult {
	msg := fmt.Sprintf(format, args...)
	return &supex.ToolResult{Success: false, Error: msg}
}

// decode decodes a tool's arguments, answering -32602 when they do not fit.
func decode[T any](args []byte, v *T) error {
	if string(args) == "null" {
		args = []byte("{}")
	}
	if err := json.Unmarshal(args, v); err != nil {
		return jsonrpc.InvalidParams("arguments", err.Error())
	}
	return nil
}

// stamp names output files by time.
func stamp() string { return time.Now().Format("20060102-150405.000000") }

// run runs the tool name with its JSON arguments.
func (t tools) run(name supex.ToolName, args []byte) (any, error) {
	md := t.st.model
	switch name {
	case supex.ToolNamePing:
		return supex.PingToolResult{Success: true, Status: "connected", Message: "SketchUp extension is running",
			Version: version, SketchupVersion: "in-memory stand-in"}, nil
	case supex.ToolNameEvalRuby:
		var a supex.EvalRubyArguments
		if err := decode(args, &a); err != nil {
			return nil, err
		}
		return nil, rubyError("Ruby evaluation error: this runtime is an in-memory stand-in without Ruby; %d bytes of code not run", len(a.Code))
	case supex.ToolNameEvalRubyFile:
		return t.evalFile(args)
	case supex.ToolNameReloadExtension:
		return supex.MessageResult{Success: true, Message: "Extension reloaded successfully"}, nil
	case supex.ToolNameGetModelInfo:
		return supex.ModelInfo{Success: true, Title: md.title(), Units: md.Units,
			NumFaces: md.count("Face"), NumEdges: md.count("Edge"), NumGroups: md.count("Group"),
			NumComponents: md.count("ComponentInstance"), Modified: md.modified}, nil
	case supex.ToolNameListEntities:
		a := supex.ListEntitiesArguments{}
		if err := decode(args, &a); err != nil {
			return nil, err
		}
		filter := supex.EntityFilterAll
		if a.EntityType != "" {
			filter = a.EntityType
		}
		return entityList(md.filter(filter), filter, false), nil
	case supex.ToolNameGetSelection:
		var sel []entity
		for _, id := range md.Selection {
			if e, ok := md.find(id); ok {
				sel = append(sel, *e)
			}
		}
		return entityList(sel, "", true), nil
	case supex.ToolNameGetLayers:
		return supex.LayerList{Success: true, Count: int64(len(md.Layers)), Layers: md.Layers}, nil
	case supex.ToolNameGetMaterials:
		return supex.MaterialList{Success: true, Count: int64(len(md.Materials)), Materials: md.Materials}, nil
	case supex.ToolNameGetCameraInfo:
		c := md.Camera
		return supex.CameraInfo{Success: true, Eye: c.Eye, Target: c.Target, Up: c.Up, Fov: c.FOV,
			AspectRatio: c.AspectRatio, Perspective: c.Perspective}, nil
	case supex.ToolNameTakeScreenshot:
		return t.screenshot(args)
	case supex.ToolNameTakeBatchScreenshots:
		return t.batch(args)
	case supex.ToolNameOpenModel:
		return t.open(args)
	case supex.ToolNameSaveModel:
		return t.save(args)
	case supex.ToolNameExportScene:
		return t.export(args)
	case supex.ToolNameConsoleCaptureStatus:
		if t.st.consoleLog == "" {
			return supex.ConsoleCaptureStatus{Success: false, Message: "Console capture not initialized"}, nil
		}
		return supex.ConsoleCaptureStatus{Success: true, Capturing: true, LogFile: &t.st.consoleLog,
			Message: "Console capture is active"}, nil
	}
	return nil, rubyError("Unknown tool: %s", jsonrpc.Truncate(string(name)))
}

// entityList describes entities as list_entities and get_selection do.
func entityList(es []entity, filter supex.EntityFilter, selection bool) supex.EntityList {
	out := supex.EntityList{Success: true, EntityType: filter, Count: int64(len(es)), Entities: []supex.Entity{}}
	for _, e := range es {
		d := supex.Entity{Type: e.Type, EntityID: e.ID}
		switch e.Type {
		case "Group", "ComponentInstance":
			name := e.Name
			if name == "" {
				name = "(unnamed)"
			}
			d.Name = name
		case "Face":
			d.Area = &e.Area
			if selection {
				d.Normal = e.Normal
			}
		case "Edge":
			d.Length = &e.Length
		}
		if !selection {
			d.Layer = e.Layer
		}
		out.Entities = append(out.Entities, d)
	}
	return out
}

func (t tools) evalFile(args []byte) (any, error) {
	var a supex.EvalRubyFileArguments
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	if err := t.policy.check("eval_ruby_file", a.FilePath); err != nil {
		return nil, err
	}
	if _, err := os.Stat(a.FilePath); errors.Is(err, fs.ErrNotExist) {
		return nil, rubyError("Ruby file not found: %s", jsonrpc.Truncate(a.FilePath))
	}
	return nil, rubyError("Error in %s: this runtime is an in-memory stand-in without Ruby\nFile: %s",
		jsonrpc.Truncate(filepath.Base(a.FilePath)), jsonrpc.Truncate(a.FilePath))
}

func (t tools) screenshot(args []byte) (any, error) {
	var a supex.ScreenshotArguments
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	path := filepath.Join(t.outDir, "screenshots", "screenshot-"+stamp()+".png")
	if a.OutputPath != "" {
		path, _ = filepath.Abs(a.OutputPath)
	}
	if err := t.policy.check("take_screenshot", path); err != nil {
		return nil, err
	}
	w, h, transparent := deref(a.Width, 1920), deref(a.Height, 1080), a.Transparent
	md := t.st.model
	if err := writeImage(path, md.Entities, md.Camera, int(w), int(h), transparent, false); err != nil {
		return nil, rubyError("Failed to take screenshot: %v", err)
	}
	return supex.ScreenshotResult{Success: true, FilePath: path, FileName: filepath.Base(path),
		Width: w, Height: h, Format: "png", Message: "Screenshot saved to " + path}, nil
}

func (t tools) open(args []byte) (any, error) {
	var a supex.PathArguments
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	if a.Path == "" {
		return failed("No file path provided"), nil
	}
	if err := t.policy.check("open_model", a.Path); err != nil {
		return nil, err
	}
	if _, err := os.Stat(a.Path); errors.Is(err, fs.ErrNotExist) {
		return failed("File not found: %s", jsonrpc.Truncate(a.Path)), nil
	}
	md, err := loadModel(a.Path)
	if err != nil {
		// The error names the file and never quotes it: it may be any
		// file under the roots.
		return nil, rubyError("Failed to open model: %v", err)
	}
	t.st.model = md
	return supex.ModelFileResult{Success: true, FilePath: a.Path, FileName: filepath.Base(a.Path), Title: md.title()}, nil
}

func (t tools) save(args []byte) (any, error) {
	var a supex.PathArguments
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	md := t.st.model
	path := md.path // where it was opened, maybe by another client
	if a.Path != "" {
		path = a.Path
	}
	if path == "" {
		return nil, rubyError("Failed to save model: it has never been saved, so give a path")
	}
	if err := t.policy.check("save_model", path); err != nil {
		return nil, err
	}
	if err := md.save(path); err != nil {
		return nil, rubyError("Failed to save model: %v", err)
	}
	return supex.ModelFileResult{Success: true, FilePath: path, FileName: filepath.Base(path), Title: md.title()}, nil
}

func (t tools) export(args []byte) (any, error) {
	var a supex.ExportArguments
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	format := cmp.Or(a.Format, supex.ExportFormatSkp)
	ext := strings.ToLower(string(format))
	if ext == "jpg" {
		ext = "jpeg"
	}
	path := filepath.Join(t.outDir, "exports", "export-"+stamp()+"."+ext)
	if err := t.policy.check("export_scene", path); err != nil {
		return nil, err
	}
	md := t.st.model
	var err error
	switch format {
	case supex.ExportFormatSkp:
		err = (&model{Title: md.Title, Units: md.Units, Entities: md.Entities, Selection: md.Selection,
			Layers: md.Layers, Materials: md.Materials, Camera: md.Camera}).save(path)
	case supex.ExportFormatObj, supex.ExportFormatStl:
		err = writeMesh(path, md.Entities, format == supex.ExportFormatStl)
	case supex.ExportFormatPng, supex.ExportFormatJpg, supex.ExportFormatJpeg:
		err = writeImage(path, md.Entities, md.Camera, int(deref(a.Width, 1920)), int(deref(a.Height, 1080)),
			format == supex.ExportFormatPng, format != supex.ExportFormatPng)
	default:
		return nil, rubyError("Unsupported export format: %s", jsonrpc.Truncate(string(format)))
	}
	if err != nil {
		return nil, rubyError("Export failed: %v", err)
	}
	return supex.ExportResult{Success: true, FilePath: path, Format: format}, nil
}

// deref returns *p, or def when p is nil.
func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
