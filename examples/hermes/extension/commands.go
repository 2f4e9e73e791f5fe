package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rpcgen/rpcgen/generated/hermes"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// command runs one command of the extension.
type command func(ctx context.Context, e *extension) error

// commands are the extension's commands by ID.
var commands = map[string]command{
	"hl7tools/normaliseName":  normaliseName,
	"hl7tools/export":         export,
	"hl7tools/exportToFolder": exportToFolder,
	"hl7tools/import":         importFile,
	"hl7tools/check":          check,
	"hl7tools/preview":        togglePreview,
}

// buttons are the toolbar buttons, in order.
var buttons = []struct{ command, label, icon string }{
	{"hl7tools/normaliseName", "Normalise patient name", `<path d="M4 15V5l6 10V5M13 15l3-10 3 10"/>`},
	{"hl7tools/export", "Export message", `<path d="M10 3v10M6 9l4 4 4-4M4 17h12"/>`},
	{"hl7tools/exportToFolder", "Export to folder", `<path d="M3 6h5l2 2h7v8H3zM10 10v4"/>`},
	{"hl7tools/import", "Import message", `<path d="M10 13V3M6 7l4-4 4 4M4 17h12"/>`},
	{"hl7tools/check", "Check HL7 files", `<path d="M4 10l4 4 8-8"/>`},
	{"hl7tools/preview", "Toggle preview", `<path d="M2 10s3-5 8-5 8 5 8 5-3 5-8 5-8-5-8-5z"/><circle cx="10" cy="10" r="2"/>`},
}

// hl7Filters are the file types the file dialogues offer.
var hl7Filters = []hermes.FileFilter{
	{Name: "HL7 Files", Extensions: []string{"hl7", "txt"}},
	{Name: "All Files", Extensions: []string{"*"}},
}

// initializeResult describes the extension to Hermes.
func initializeResult() *hermes.InitializeResult {
	r := &hermes.InitializeResult{
		Name:        "HL7 Tools",
		Version:     Version,
		Description: "Name normalisation, import, export, checks and a live preview.",
		Authors:     []string{"The rpcgen authors"},
		Capabilities: &hermes.Capabilities{
			SchemaProvider: true,
			Events: []hermes.EventSubscription{
				{Name: hermes.EventNameMessageOpened},
				{Name: hermes.EventNameMessageSaved},
				{Name: hermes.EventNameMessageChanged, Options: &hermes.EventOptions{
					IncludeContent: true, Format: hermes.MessageFormatHL7}},
			},
		},
		Schema: &hermes.SchemaOverride{Segments: map[string]hermes.SegmentOverride{
			"PID": {Fields: []hermes.FieldOverride{
				{Field: 5, Component: ptr.To[uint32](1), Name: jsonrpc.Some("Family name"), Placeholder: jsonrpc.Some("SURNAME"), Maxlength: jsonrpc.Some[uint32](50)},
				{Field: 7, Datatype: jsonrpc.Some(hermes.FieldDatatypeDate), Placeholder: jsonrpc.Some("YYYYMMDD")},
				// Absent properties (name) inherit, null (note) removes.
				{Field: 8, Note: jsonrpc.NullOf[string](), Values: jsonrpc.Some(map[string]string{"F": "Female", "M": "Male", "O": "Other", "U": "Unknown"})},
			}},
		}},
	}
	for _, b := range buttons {
		r.Capabilities.Commands = append(r.Capabilities.Commands, b.command)
		r.ToolbarButtons = append(r.ToolbarButtons, hermes.ToolbarButton{
			ID:      strings.ReplaceAll(b.command, "/", "-"),
			Label:   b.label,
			Icon:    `<svg viewBox="0 0 20 20" fill="none" stroke="currentColor" stroke-width="1.5">` + b.icon + `</svg>`,
			Command: b.command,
			Group:   "hl7tools",
		})
	}
	return r
}

// normaliseName upper-cases the family and given names in PID-5.
func normaliseName(ctx context.Context, e *extension) error {
	msg, err := e.host.EditorGetMessage(ctx, &hermes.EditorGetMessageParams{Format: hermes.MessageFormatHL7})
	if err != nil {
		return fmt.Errorf("reading the message: %w", err)
	}
	pid := findSegment(segments(msg.Message), "PID")
	if pid == nil {
		e.show(ctx, hermes.MessageKindWarning, "Normalise name", "The message has no PID segment.")
		return nil
	}
	var patches []hermes.Patch
	for i, path := range []string{"PID.5.1", "PID.5.2"} {
		v := component(field(pid, 5), i+1)
		if up := strings.ToUpper(v); up != v {
			patches = append(patches, hermes.Patch{Path: path, Value: &up})
		}
	}
	if len(patches) == 0 {
		e.show(ctx, hermes.MessageKindInfo, "Normalise name", "The patient name is already normalised.")
		return nil
	}
	res, err := e.host.EditorPatchMessage(ctx, &hermes.EditorPatchMessageParams{Patches: patches})
	if err != nil {
		return fmt.Errorf("patching the name: %w", err)
	}
	if !res.Success {
		return fmt.Errorf("patching the name: %d of %d applied: %s", res.PatchesApplied, len(patches), patchErrors(res.Errors))
	}
	name := component(field(pid, 5), 1) + "^" + component(field(pid, 5), 2)
	e.show(ctx, hermes.MessageKindInfo, "Normalise name", "Patient name set to "+strings.ToUpper(name)+".")
	return nil
}

// export saves the message to a file the user picks.
func export(ctx context.Context, e *extension) error {
	msg, err := e.host.EditorGetMessage(ctx, &hermes.EditorGetMessageParams{Format: hermes.MessageFormatHL7})
	if err != nil {
		return fmt.Errorf("reading the message: %w", err)
	}
	name := fileName(msg.Message)
	res, err := e.host.UISaveFile(ctx, &hermes.UISaveFileParams{
		Title: "Export message", DefaultName: name, Filters: hl7Filters})
	if err != nil {
		return fmt.Errorf("asking where to export: %w", err)
	}
	if res.Path == nil {
		logf("export cancelled")
		return nil
	}
	return writeMessage(ctx, e, *res.Path, msg.Message)
}

// exportToFolder saves the message, named after its control ID, into a
// folder the user picks.
func exportToFolder(ctx context.Context, e *extension) error {
	msg, err := e.host.EditorGetMessage(ctx, &hermes.EditorGetMessageParams{Format: hermes.MessageFormatHL7})
	if err != nil {
		return fmt.Errorf("reading the message: %w", err)
	}
	res, err := e.host.UISelectDirectory(ctx, &hermes.UISelectDirectoryParams{Title: "Export to folder"})
	if err != nil {
		return fmt.Errorf("asking for a folder: %w", err)
	}
	if res.Path == nil {
		logf("export cancelled")
		return nil
	}
	return writeMessage(ctx, e, filepath.Join(*res.Path, fileName(msg.Message)), msg.Message)
}

// writeMessage writes an HL7 message to path and tells the user.
func writeMessage(ctx context.Context, e *extension, path, message string) error {
	if err := os.WriteFile(path, []byte(message), 0o644); err != nil {
		return fmt.Errorf("exporting: %w", err)
	}
	e.show(ctx, hermes.MessageKindInfo, "Export", fmt.Sprintf("Exported %d segments to %s.", len(segments(message)), path))
	return nil
}

// importFile replaces the message with a file, once the user agrees.
func importFile(ctx context.Context, e *extension) error {
	res, err := e.host.UIOpenFile(ctx, &hermes.UIOpenFileParams{Title: "Import message", Filters: hl7Filters})
	if err != nil {
		return fmt.Errorf("asking for a file: %w", err)
	}
	if res.Path == nil {
		logf("import cancelled")
		return nil
	}
	data, err := os.ReadFile(*res.Path)
	if err != nil {
		return fmt.Errorf("importing: %w", err)
	}
	ok, err := e.host.UIShowConfirm(ctx, &hermes.UIShowConfirmParams{
		Message: fmt.Sprintf("Replace the current message with %s?", filepath.Base(*res.Path)),
		Title:   "Import message", Buttons: hermes.ConfirmButtonsOkCancel})
	if err != nil {
		return fmt.Errorf("asking for confirmation: %w", err)
	}
	if !ok.Confirmed {
		logf("import declined")
		return nil
	}
	message := strings.Join(segments(string(data)), "\r")
	set, err := e.host.EditorSetMessage(ctx, &hermes.EditorSetMessageParams{Message: message, Format: hermes.MessageFormatHL7})
	if err != nil {
		return fmt.Errorf("replacing the message: %w", err)
	}
	if !set.Success {
		reason := "no reason given"
		if set.Error != "" {
			reason = set.Error
		}
		return fmt.Errorf("replacing the message: %s", reason)
	}
	e.show(ctx, hermes.MessageKindInfo, "Import message", "Imported "+filepath.Base(*res.Path)+".")
	return nil
}

// check reads files the user picks and reports which look like HL7.
func check(ctx context.Context, e *extension) error {
	res, err := e.host.UIOpenFiles(ctx, &hermes.UIOpenFilesParams{Title: "HL7 files to check", Filters: hl7Filters})
	if err != nil {
		return fmt.Errorf("asking for files: %w", err)
	}
	if res.Paths == nil {
		logf("check cancelled")
		return nil
	}
	var problems []string
	for _, path := range res.Paths {
		if err := checkFile(path); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", filepath.Base(path), err))
		}
	}
	text := fmt.Sprintf("%d files checked: %d valid, %d invalid.", len(res.Paths), len(res.Paths)-len(problems), len(problems))
	kind := hermes.MessageKindInfo
	if len(problems) > 0 {
		text += "\n" + strings.Join(problems, "\n")
		kind = hermes.MessageKindWarning
	}
	e.show(ctx, kind, "Check HL7 files", text)
	return nil
}

// checkFile reports what makes a file not a plausible HL7 v2 message.
func checkFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return errors.Unwrap(err)
	}
	segs := segments(string(data))
	if len(segs) == 0 || !strings.HasPrefix(segs[0], "MSH|") {
		return errors.New("does not start with an MSH segment")
	}
	if fieldOf(segs[0], 9) == "" {
		return errors.New("MSH-9 (message type) is empty")
	}
	if fieldOf(segs[0], 12) == "" {
		return errors.New("MSH-12 (version) is empty")
	}
	return nil
}

// patchErrors describes failed patches.
func patchErrors(errs []hermes.PatchError) string {
	var parts []string
	for _, pe := range errs {
		parts = append(parts, fmt.Sprintf("#%d %s: %s", pe.Index, pe.Path, pe.Message))
	}
	return strings.Join(parts, "; ")
}
