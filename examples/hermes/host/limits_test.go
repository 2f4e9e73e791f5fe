package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/hermes"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// readyEditor is an editor whose extension is initialised, logging to buf.
func readyEditor(buf *bytes.Buffer) *editor {
	return &editor{log: slog.New(slog.NewTextHandler(buf, nil)), windows: map[string]bool{}, schema: baseSchema(), ready: true}
}

// A patch path's numbers are at most maxPathIndex: the padding a patch
// adds grows with them.
func TestPatchPathNumbersAreBounded(t *testing.T) {
	m, err := parseHL7("MSH|^~\\&|A\rPID|1")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"PID.1000", "PID.1[1000]", "PID.1.1000", "PID.1.1.1000", "PID[1000]", "PID.99999999999999999999999"} {
		if _, err := parsePath(s); !errors.Is(err, errPathSyntax) || !strings.Contains(err.Error(), "at most 999") {
			t.Errorf("parsePath(%q) = %v; want a syntax error naming the bound", s, err)
		}
	}
	p, err := parsePath("PID.999[999].999.999")
	if err != nil {
		t.Fatalf("the largest path: %v", err)
	}
	if err := m.apply(p, ptr.To("x"), false, false); err != nil {
		t.Fatalf("patching the largest path: %v", err)
	}
}

// An extension keeps at most maxWindows windows open; closed ones make
// room.
func TestOpenWindowsAreBounded(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "page") }))
	defer page.Close()
	var buf bytes.Buffer
	e := readyEditor(&buf)
	ctx := context.Background()
	var first string
	for i := range maxWindows {
		res, err := e.UIOpenWindow(ctx, &hermes.UIOpenWindowParams{URL: page.URL, Title: "w"})
		if err != nil {
			t.Fatalf("window %d: %v", i+1, err)
		}
		if i == 0 {
			first = res.WindowID
		}
	}
	_, err := e.UIOpenWindow(ctx, &hermes.UIOpenWindowParams{URL: page.URL, Title: "w"})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != hermes.CodeWindow {
		t.Fatalf("window %d: err = %v; want %d", maxWindows+1, err, hermes.CodeWindow)
	}
	e.mu.Lock()
	e.windows[first] = false // closed, as UICloseWindow leaves it
	e.mu.Unlock()
	if _, err := e.UIOpenWindow(ctx, &hermes.UIOpenWindowParams{URL: page.URL, Title: "w"}); err != nil {
		t.Fatalf("a window after one closed: %v", err)
	}
	if n := len(e.windows); n > maxWindows {
		t.Errorf("the editor keeps %d windows", n)
	}
}

// Values from the extension go into the log truncated.
func TestExtensionValuesAreTruncatedInLogs(t *testing.T) {
	var buf bytes.Buffer
	e := readyEditor(&buf)
	huge := strings.Repeat("m", 1<<20)
	ctx := context.Background()
	if _, err := e.UIShowMessage(ctx, &hermes.UIShowMessageParams{Message: huge, Title: huge}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.UIShowConfirm(ctx, &hermes.UIShowConfirmParams{Message: huge, Title: huge}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.UIOpenFile(ctx, &hermes.UIOpenFileParams{Title: huge}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.UICloseWindow(ctx, &hermes.UICloseWindowParams{WindowID: huge}); err == nil || len(err.Error()) > 2*jsonrpc.MaxEchoBytes {
		t.Errorf("closing an unknown window of 1 MiB: %d bytes of error", len(err.Error()))
	}
	register(e, &hermes.InitializeResult{Schema: &hermes.SchemaOverride{Segments: map[string]hermes.SegmentOverride{
		"ZZZ": {Fields: []hermes.FieldOverride{{Field: 1, Note: jsonrpc.Some(huge),
			Datatype: jsonrpc.Some(hermes.FieldDatatype(huge))}}},
	}}})
	if buf.Len() > 8<<10 {
		t.Errorf("six log lines of 1 MiB values took %d bytes", buf.Len())
	}
}
