package hermes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/hermes"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// runHost runs the example host and returns its stdout and stderr.
func runHost(t *testing.T, env []string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin.host, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("host %q: %v\nstderr:\n%s", args, err, stderr.String())
	}
	return stdout.String(), stderr.String()
}

// The two examples together: the host starts the extension, runs its
// commands against a message file and saves the result.
func TestHostWithExtension(t *testing.T) {
	dir := t.TempDir()
	in := testdata(t, dir, "in.hl7", "MSH|^~\\&|A|B|||20240101||ORU^R01|X1|P|2.5\rPID|1||9||smith^al\rOBX|1|ST|A||v1\r")
	out := filepath.Join(dir, "out.hl7")
	// A command is a notification, so the host takes it as finished once
	// the extension has been quiet for -idle: 2s, which no pause between
	// an extension's requests approaches, even on a loaded machine.
	stdout, stderr := runHost(t, nil, "-in", in, "-out", out, "-idle", "2s", "-select-dir", dir,
		"-run", "hl7tools/normaliseName,hl7tools/preview,hl7tools/exportToFolder,hl7tools/unknown", "--", bin.extension)
	if stdout != "" {
		t.Errorf("host printed %q with -out", stdout)
	}
	want := "MSH|^~\\&|A|B|||20240101||ORU^R01|X1|P|2.5\rPID|1||9||SMITH^AL\rOBX|1|ST|A||v1"
	expectFile(t, out, want)
	expectFile(t, filepath.Join(dir, "X1.hl7"), want)
	for _, line := range []string{
		`message opened: ` + in,
		`message changed: 3 segments`,
		`message="Patient name set to SMITH^AL."`,
		`window opened" id=ext-window-1 title="HL7 preview"`,
		`not running an unknown command`,
		`message saved as ` + out,
		`window ext-window-1 closed (reason: shutdown)`,
		`shutting down (reason: closing)`,
		`extension stopped`,
	} {
		if !strings.Contains(stderr, line) {
			t.Errorf("host log lacks %q", line)
		}
	}
	if t.Failed() {
		t.Logf("host log:\n%s", stderr)
	}
}

// The host serves every request an extension can send; the test binary,
// run as a "tour" extension, sends them and logs the answers.
func TestHostServesRequests(t *testing.T) {
	dir := t.TempDir()
	picked := testdata(t, dir, "picked.hl7", "x")
	// -idle as in TestHostWithExtension.
	stdout, stderr := runHost(t, []string{childEnv + "=tour"}, "-idle", "2s", "-run", "tour/run",
		"-confirm=false", "-open-file", picked, "-open-files", picked+","+picked, "-select-dir", dir, "--", os.Args[0])
	logged := messages(stderr)
	for _, line := range []string{
		`tour: editor/getMessage json {"message":"{\n  \"segments\": [\n    {\n      \"segment\": \"MSH\"`,
		`\"3\": {\n          \"1\": \"12345678\",\n          \"4\": \"GENHOSP\",\n          \"5\": \"MR\"\n        }`,
		`tour: editor/patchMessage {"success":false,"patchesApplied":4,"errors":[{"index":4,"path":"ZZZ.1","message":"path not found: no ZZZ[1] segment"}]}`,
		`tour: editor/patchMessage error -32005`,
		`tour: editor/setMessage json {"success":true}`,
		`tour: editor/setMessage hl7 {"success":false,"error":"the message does not start with an MSH segment"}`,
		`tour: editor/setMessage json error -32004`,
		`tour: editor/getMessage yaml {"message":"segments:\n  - segment: MSH\n    fields:\n      1: \"|\"\n`,
		`tour: editor/setMessage yaml {"success":true}`,
		`tour: editor/getMessage toml {"message":"[[segments]]\nsegment = \"MSH\"\n\n[segments.fields]\n1 = \"|\"\n`,
		`tour: editor/setMessage toml {"success":true}`,
		`tour: ui/openWindow error -32007`,
		`tour: ui/closeWindow error -32008`,
		`tour: ui/showMessage {"acknowledged":true}`,
		`tour: ui/showConfirm {"confirmed":false}`,
		`tour: ui/openFile {"path":"` + picked + `"}`,
		`tour: ui/openFiles {"paths":["` + picked + `","` + picked + `"]}`,
		`tour: ui/saveFile {"path":null}`,
		`tour: ui/selectDirectory {"path":"` + dir + `"}`,
	} {
		if !strings.Contains(logged, line) {
			t.Errorf("host log lacks %s", line)
		}
	}
	// The patches and the JSON round trip changed the message the host
	// prints: PID-5 and PID-7 set, NK1 created, PV1 removed.
	want := "MSH|^~\\&|ADT|GENHOSP|HERMES|GENHOSP|20240301101500||ADT^A01|MSG00042|P|2.5.1\nEVN|A01|20240301101500\n" +
		"PID|1||12345678^^^GENHOSP^MR||ROE^RICHARD^q~ALIAS||19700101|F\nNK1|1|ROE^JANE\n"
	if stdout != want {
		t.Errorf("host printed\n%q\nwant\n%q", stdout, want)
	}
	if t.Failed() {
		t.Logf("host log:\n%s", stderr)
	}
}

// tour is the child mode that calls every request of hermes.Host once
// command tour/run arrives, logging each answer to stderr.
type tour struct {
	hermes.UnimplementedExtension
}

func runTour() int {
	conn, _ := hermes.ConnectExtension(transport.Stdio(), &tour{}, jsonrpc.Options{})
	<-conn.Done()
	return 0
}

func (t *tour) Initialize(context.Context, *hermes.InitializeParams) (*hermes.InitializeResult, error) {
	return &hermes.InitializeResult{Name: "tour", Version: "1.0.0", Capabilities: &hermes.Capabilities{Commands: []string{"tour/run"}}}, nil
}

func (t *tour) Shutdown(context.Context, *hermes.ShutdownParams) (*hermes.ShutdownResult, error) {
	return &hermes.ShutdownResult{Success: true}, nil
}

func (t *tour) CommandExecute(ctx context.Context, _ *hermes.CommandExecuteParams) error {
	go t.run(context.Background(), hermes.NewHostRemote(jsonrpc.ConnFromContext(ctx)))
	return nil
}

func (t *tour) log(what string, res any, err error) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "tour: %s error %d\n", what, code(err))
		return
	}
	b, _ := json.Marshal(res)
	fmt.Fprintf(os.Stderr, "tour: %s %s\n", what, b)
}

func (t *tour) run(ctx context.Context, h hermes.Host) {
	got, err := h.EditorGetMessage(ctx, &hermes.EditorGetMessageParams{Format: hermes.MessageFormatJSON})
	t.log("editor/getMessage json", got, err)
	patches := []hermes.Patch{
		{Path: "PID.5", Value: ptr.To("ROE^RICHARD^q")},
		{Path: "PID.5[2]", Value: ptr.To("ALIAS")},
		{Path: "PID.7", Value: ptr.To("19700101")},
		{Path: "NK1.2.1", Value: ptr.To("ROE"), Create: true},
		{Path: "ZZZ.1", Value: ptr.To("x")},
	}
	pr, err := h.EditorPatchMessage(ctx, &hermes.EditorPatchMessageParams{Patches: patches})
	t.log("editor/patchMessage", pr, err)
	pr, err = h.EditorPatchMessage(ctx, &hermes.EditorPatchMessageParams{Patches: []hermes.Patch{{Path: "PID..5", Value: ptr.To("x")}}})
	t.log("editor/patchMessage", pr, err)
	_, _ = h.EditorPatchMessage(ctx, &hermes.EditorPatchMessageParams{Patches: []hermes.Patch{{Path: "NK1.1", Value: ptr.To("1")}, {Path: "NK1.2.2", Value: ptr.To("JANE")}, {Path: "PV1", Remove: true}}})
	if got != nil {
		current, _ := h.EditorGetMessage(ctx, &hermes.EditorGetMessageParams{Format: hermes.MessageFormatJSON})
		sr, err := h.EditorSetMessage(ctx, &hermes.EditorSetMessageParams{Message: current.Message, Format: hermes.MessageFormatJSON})
		t.log("editor/setMessage json", sr, err)
	}
	sr, err := h.EditorSetMessage(ctx, &hermes.EditorSetMessageParams{Message: "PID|1", Format: hermes.MessageFormatHL7})
	t.log("editor/setMessage hl7", sr, err)
	sr, err = h.EditorSetMessage(ctx, &hermes.EditorSetMessageParams{Message: "{", Format: hermes.MessageFormatJSON})
	t.log("editor/setMessage json", sr, err)
	for _, f := range []hermes.MessageFormat{hermes.MessageFormatYAML, hermes.MessageFormatTOML} {
		text, err := h.EditorGetMessage(ctx, &hermes.EditorGetMessageParams{Format: f})
		t.log("editor/getMessage "+string(f), text, err)
		if err == nil {
			sr, err := h.EditorSetMessage(ctx, &hermes.EditorSetMessageParams{Message: text.Message, Format: f})
			t.log("editor/setMessage "+string(f), sr, err)
		}
	}
	wr, err := h.UIOpenWindow(ctx, &hermes.UIOpenWindowParams{URL: "file:///etc/passwd", Title: "nope"})
	t.log("ui/openWindow", wr, err)
	cr, err := h.UICloseWindow(ctx, &hermes.UICloseWindowParams{WindowID: "nope"})
	t.log("ui/closeWindow", cr, err)
	mr, err := h.UIShowMessage(ctx, &hermes.UIShowMessageParams{Message: "hello"})
	t.log("ui/showMessage", mr, err)
	fr, err := h.UIShowConfirm(ctx, &hermes.UIShowConfirmParams{Message: "sure?"})
	t.log("ui/showConfirm", fr, err)
	of, err := h.UIOpenFile(ctx, &hermes.UIOpenFileParams{})
	t.log("ui/openFile", of, err)
	ofs, err := h.UIOpenFiles(ctx, &hermes.UIOpenFilesParams{})
	t.log("ui/openFiles", ofs, err)
	sf, err := h.UISaveFile(ctx, &hermes.UISaveFileParams{})
	t.log("ui/saveFile", sf, err)
	sd, err := h.UISelectDirectory(ctx, &hermes.UISelectDirectoryParams{})
	t.log("ui/selectDirectory", sd, err)
}

// messages returns the msg values of a slog text log, unquoted, one a
// line.
func messages(log string) string {
	var out []string
	for _, line := range strings.Split(log, "\n") {
		_, msg, ok := strings.Cut(line, " msg=")
		if !ok {
			continue
		}
		if q, err := strconv.QuotedPrefix(msg); err == nil {
			msg, _ = strconv.Unquote(q)
		} else {
			msg, _, _ = strings.Cut(msg, " ")
		}
		out = append(out, msg)
	}
	return strings.Join(out, "\n")
}
