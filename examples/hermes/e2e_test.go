package hermes_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/generated/hermes"
	"github.com/rpcgen/rpcgen/internal/exampletest"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(child(mode))
	}
	exampletest.Main(m, map[string]*string{"./host": &bin.host, "./extension": &bin.extension})
}

// sample is the message the recorder holds at first.
const sample = "MSH|^~\\&|ADT|GENHOSP|||20240301101500||ADT^A01|MSG00042|P|2.5.1\rPID|1||12345678^^^GENHOSP^MR||doe^jane\rPV1|1|I"

func TestProtocolTimeouts(t *testing.T) {
	timeout := hermes.Options().Timeout
	if got, want := timeout(hermes.MethodInitialize), (jsonrpc.Timeout{After: 10 * time.Second, Action: jsonrpc.TimeoutClose}); got != want {
		t.Errorf("initialize timeout = %+v, want %+v", got, want)
	}
	if got, want := timeout(hermes.MethodShutdown), (jsonrpc.Timeout{After: 5 * time.Second, Action: jsonrpc.TimeoutKill}); got != want {
		t.Errorf("shutdown timeout = %+v, want %+v", got, want)
	}
	for _, m := range []string{hermes.MethodEditorGetMessage, hermes.MethodUIShowConfirm, hermes.MethodUIOpenFile} {
		if got := timeout(m); got != (jsonrpc.Timeout{}) {
			t.Errorf("%s timeout = %+v, want none", m, got)
		}
	}
}

// TestExtension drives the example extension from an in-process Hermes
// over the extension's stdin and stdout: every notification Hermes sends,
// every command, and through them every request the extension sends,
// with the error codes Hermes answers them with.
func TestExtension(t *testing.T) {
	dir := t.TempDir()
	rec, logs := newRecorder(), newLogSink()
	rec.message = sample
	proc, conn, ext := spawn(t, execCommand(bin.extension), rec, jsonrpc.Options{}, logs)
	ctx := context.Background()
	seen := 0

	// A command before initialize is ignored.
	run := func(command string) {
		t.Helper()
		if err := ext.CommandExecute(ctx, &hermes.CommandExecuteParams{Command: command}); err != nil {
			t.Fatalf("command/execute %s: %v", command, err)
		}
	}
	run("hl7tools/normaliseName")
	seen = logs.waitFor(t, seen, "before initialize: ignored")

	info, err := ext.Initialize(ctx, &hermes.InitializeParams{HermesVersion: "1.0.0", APIVersion: "1.0", DataDirectory: dir})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if info.Name != "HL7 Tools" || len(info.Capabilities.Commands) != 6 || len(info.ToolbarButtons) != 6 {
		t.Fatalf("initialize result = %+v", info)
	}
	if info.Schema == nil || len(info.Schema.Segments["PID"].Fields) != 3 || len(info.Capabilities.Events) != 3 {
		t.Fatalf("initialize result lacks the schema or events: %+v", info)
	}
	if o := info.Schema.Segments["PID"].Fields[2]; o.Name.State != jsonrpc.Absent || o.Note.State != jsonrpc.Null || o.Values.State != jsonrpc.Present {
		t.Fatalf("PID-8 override: name, note and values states = %v, %v, %v; want absent, null, present", o.Name.State, o.Note.State, o.Values.State)
	}
	if _, err := ext.Initialize(ctx, &hermes.InitializeParams{}); !errors.Is(err, hermes.ErrAlreadyInitialised) || code(err) != hermes.CodeAlreadyInitialised {
		t.Fatalf("second initialize: got %v, want AlreadyInitialised", err)
	}

	// Notifications.
	mustNotify(t, ext.MessageOpened(ctx, &hermes.MessageOpenedParams{FilePath: "/work/a01.hl7"}))
	seen = logs.waitFor(t, seen, "message opened: /work/a01.hl7")
	mustNotify(t, ext.MessageOpened(ctx, &hermes.MessageOpenedParams{IsNew: true}))
	seen = logs.waitFor(t, seen, "message opened: new message")
	mustNotify(t, ext.MessageSaved(ctx, &hermes.MessageSavedParams{FilePath: "/work/copy.hl7", SaveAs: true}))
	seen = logs.waitFor(t, seen, "message saved as /work/copy.hl7")
	mustNotify(t, ext.MessageChanged(ctx, &hermes.MessageChangedParams{HasFile: false}))
	seen = logs.waitFor(t, seen, "message changed")
	mustNotify(t, ext.WindowClosed(ctx, &hermes.WindowClosedParams{WindowID: "someone-else", Reason: hermes.WindowCloseReasonUser}))
	seen = logs.waitFor(t, seen, "window someone-else closed (reason: user)")
	run("hl7tools/nope")
	seen = logs.waitFor(t, seen, "-32009")

	// normaliseName reads, patches and tells the user.
	run("hl7tools/normaliseName")
	expectShown(t, rec, hermes.MessageKindInfo, "Patient name set to DOE^JANE.")
	if want := []hermes.Patch{{Path: "PID.5.1", Value: ptr.To("DOE")}, {Path: "PID.5.2", Value: ptr.To("JANE")}}; !reflect.DeepEqual(rec.patches, want) {
		t.Fatalf("patches = %+v, want %+v", rec.patches, want)
	}
	for _, c := range []struct {
		name   string
		script func(r *recorder)
		want   string
	}{
		{"not initialised", func(r *recorder) { r.getErr = hermes.NewNotInitialisedError() }, "-32001"},
		{"no message", func(r *recorder) { r.getErr = hermes.NewNoMessageOpenError() }, "-32003"},
		{"invalid path", func(r *recorder) { r.getErr, r.patchErr = nil, hermes.NewInvalidPathError() }, "-32005"},
		{"path not found", func(r *recorder) { r.patchErr = hermes.NewPathNotFoundError() }, "-32006"},
		{"failed patch", func(r *recorder) {
			r.patchErr = nil
			r.patchRes = &hermes.EditorPatchMessageResult{PatchesApplied: 1, Errors: []hermes.PatchError{{Index: 1, Path: "PID.5.2", Message: "read-only"}}}
		}, "#1 PID.5.2: read-only"},
	} {
		rec.script(c.script)
		run("hl7tools/normaliseName")
		if got := expectShown(t, rec, hermes.MessageKindError, ""); !strings.Contains(got.Message, c.want) {
			t.Errorf("%s: shown %q, want it to contain %q", c.name, got.Message, c.want)
		}
	}
	rec.script(func(r *recorder) { r.patchRes = nil })

	// export and exportToFolder write the message where the user says.
	exported := filepath.Join(dir, "out.hl7")
	rec.script(func(r *recorder) { r.saveFile = &exported })
	run("hl7tools/export")
	expectShown(t, rec, hermes.MessageKindInfo, "Exported 3 segments to "+exported+".")
	expectFile(t, exported, sample)
	rec.script(func(r *recorder) { r.saveFile = nil })
	run("hl7tools/export")
	seen = logs.waitFor(t, seen, "export cancelled")
	rec.script(func(r *recorder) { r.saveErr = hermes.NewDialogueError() })
	run("hl7tools/export")
	if got := expectShown(t, rec, hermes.MessageKindError, ""); !strings.Contains(got.Message, "-32012") {
		t.Errorf("export with a failing dialogue showed %q", got.Message)
	}
	rec.script(func(r *recorder) { r.directory = &dir })
	run("hl7tools/exportToFolder")
	expectShown(t, rec, hermes.MessageKindInfo, "Exported 3 segments to "+filepath.Join(dir, "MSG00042.hl7")+".")
	expectFile(t, filepath.Join(dir, "MSG00042.hl7"), sample)
	rec.script(func(r *recorder) { r.directory = nil })
	run("hl7tools/exportToFolder")
	seen = logs.waitFor(t, seen, "export cancelled")

	// import asks, then replaces the message.
	in := testdata(t, dir, "in.hl7", "MSH|^~\\&|LAB|X|||20240301||ORU^R01|7|P|2.5\nPID|1||42\n")
	rec.script(func(r *recorder) { r.openFile, r.confirm = &in, false })
	run("hl7tools/import")
	seen = logs.waitFor(t, seen, "import declined")
	rec.script(func(r *recorder) { r.confirm = true })
	run("hl7tools/import")
	expectShown(t, rec, hermes.MessageKindInfo, "Imported in.hl7.")
	if want := []string{"MSH|^~\\&|LAB|X|||20240301||ORU^R01|7|P|2.5\rPID|1||42"}; !reflect.DeepEqual(rec.set, want) || len(rec.confirms) != 2 {
		t.Fatalf("setMessage got %q after %d confirmations, want %q after 2", rec.set, len(rec.confirms), want)
	}
	rec.script(func(r *recorder) { r.setErr = hermes.NewInvalidMessageError() })
	run("hl7tools/import")
	if got := expectShown(t, rec, hermes.MessageKindError, ""); !strings.Contains(got.Message, "-32004") {
		t.Errorf("import of an invalid message showed %q", got.Message)
	}
	rec.script(func(r *recorder) { r.setErr, r.setRes = nil, &hermes.EditorSetMessageResult{Error: "no MSH"} })
	run("hl7tools/import")
	if got := expectShown(t, rec, hermes.MessageKindError, ""); !strings.Contains(got.Message, "no MSH") {
		t.Errorf("refused import showed %q", got.Message)
	}
	rec.script(func(r *recorder) { r.openFile = nil })
	run("hl7tools/import")
	seen = logs.waitFor(t, seen, "import cancelled")

	// check reports which files look like HL7.
	bad := testdata(t, dir, "bad.txt", "hello")
	rec.script(func(r *recorder) { r.openFiles = []string{in, bad} })
	run("hl7tools/check")
	expectShown(t, rec, hermes.MessageKindWarning, "2 files checked: 1 valid, 1 invalid.\nbad.txt: does not start with an MSH segment")
	rec.script(func(r *recorder) { r.openFiles = nil })
	run("hl7tools/check")
	seen = logs.waitFor(t, seen, "check cancelled")

	seen = testPreview(t, ctx, rec, logs, ext, seen)

	// shutdown: the extension answers, then exits once its stdin closes.
	res, err := ext.Shutdown(ctx, &hermes.ShutdownParams{Reason: hermes.ShutdownReasonReload})
	if err != nil || !res.Success {
		t.Fatalf("shutdown = %+v, %v", res, err)
	}
	logs.waitFor(t, seen, "shutting down (reason: reload)")
	if err := conn.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	waitDone(t, proc.Done(), "the extension's exit")
	if err := proc.ExitErr(); err != nil {
		t.Fatalf("extension exit: %v", err)
	}
}

// testPreview opens, updates and closes the preview window.
func testPreview(t *testing.T, ctx context.Context, rec *recorder, logs *logSink, ext hermes.Extension, seen int) int {
	run := func() {
		mustNotify(t, ext.CommandExecute(ctx, &hermes.CommandExecuteParams{Command: "hl7tools/preview"}))
	}
	rec.script(func(r *recorder) { r.message = sample })
	run()
	seen = logs.waitFor(t, seen, "preview window ext-window-1 shows")
	url := rec.windows[0].URL
	if !strings.HasPrefix(url, "http://127.0.0.1:") || rec.windows[0].Title != "HL7 preview" {
		t.Fatalf("openWindow params = %+v", rec.windows[0])
	}
	if page := get(t, url); !strings.Contains(page, "<th>PID</th><td>1||12345678^^^GENHOSP^MR||doe^jane</td>") {
		t.Fatalf("preview page:\n%s", page)
	}
	// message/changed with content updates the page.
	mustNotify(t, ext.MessageChanged(ctx, &hermes.MessageChangedParams{Message: sample + "\rNK1|1|DOE^JOHN", Format: hermes.MessageFormatHL7, HasFile: false}))
	seen = logs.waitFor(t, seen, "message changed: 4 segments")
	if page := get(t, url); !strings.Contains(page, "<th>NK1</th>") {
		t.Fatalf("preview page after message/changed:\n%s", page)
	}
	// The second toggle closes the window and stops the server.
	run()
	seen = logs.waitFor(t, seen, "preview window ext-window-1 closed")
	if !reflect.DeepEqual(rec.closed, []string{"ext-window-1"}) {
		t.Fatalf("closeWindow calls = %q", rec.closed)
	}
	if _, err := tryGet(url); err == nil {
		t.Fatal("the preview server still answers after the window closed")
	}
	// The user closing the window stops the preview too.
	rec.script(func(r *recorder) { r.nextWindow = "ext-window-2" })
	run()
	seen = logs.waitFor(t, seen, "preview window ext-window-2 shows")
	mustNotify(t, ext.WindowClosed(ctx, &hermes.WindowClosedParams{WindowID: "ext-window-2", Reason: hermes.WindowCloseReasonUser}))
	seen = logs.waitFor(t, seen, "preview stopped")
	// Errors of ui/openWindow and ui/closeWindow reach the user.
	rec.script(func(r *recorder) { r.windowErr = hermes.NewInvalidURLError() })
	run()
	if got := expectShown(t, rec, hermes.MessageKindError, ""); !strings.Contains(got.Message, "-32007") {
		t.Errorf("openWindow failing showed %q", got.Message)
	}
	rec.script(func(r *recorder) {
		r.windowErr, r.nextWindow, r.closeErr = nil, "ext-window-3", hermes.NewWindowError()
	})
	run()
	seen = logs.waitFor(t, seen, "preview window ext-window-3 shows")
	run()
	if got := expectShown(t, rec, hermes.MessageKindError, ""); !strings.Contains(got.Message, "-32008") {
		t.Errorf("closeWindow failing showed %q", got.Message)
	}
	return seen
}

func mustNotify(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("notify: %v", err)
	}
}

// expectShown waits for a message box of kind; text, unless empty, is the
// text it must show.
func expectShown(t *testing.T, rec *recorder, kind hermes.MessageKind, text string) *hermes.UIShowMessageParams {
	t.Helper()
	p := rec.nextShown(t)
	if p.Kind == "" || p.Kind != kind || (text != "" && p.Message != text) {
		t.Fatalf("shown %q (kind %v), want %q (kind %s)", p.Message, p.Kind, text, kind)
	}
	return p
}

func expectFile(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Fatalf("%s = %q, %v; want %q", path, got, err, want)
	}
}

// tryGet fetches url without keeping connections around.
func tryGet(url string) (string, error) {
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: wait}
	resp, err := client.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func get(t *testing.T, url string) string {
	t.Helper()
	page, err := tryGet(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return page
}
