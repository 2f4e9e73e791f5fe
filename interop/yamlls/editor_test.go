// Package yamlls_test checks the IDL's JSON Schema
// (idl/rpcgen-idl.schema.json) the way VS Code's YAML extension uses it:
// its language service, yaml-language-server, validates every IDL of the
// repository, reports mistakes at their lines, completes keys and values
// and explains keys on hover.
package yamlls_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// modeline starts the first line of every IDL file.
const modeline = "# yaml-language-server: $schema="

// here is this directory, made absolute by TestMain.
var here string

func TestMain(m *testing.M) {
	var err error
	if here, err = filepath.Abs("."); err != nil {
		fmt.Fprintln(os.Stderr, "interop/yamlls:", err)
		os.Exit(1)
	}
	if _, err := exec.LookPath("node"); err != nil {
		fmt.Fprintln(os.Stderr, "interop/yamlls: node is not installed (Node 20 or later is needed):", err)
		os.Exit(1)
	}
	if _, err := os.Stat(filepath.Join(here, "node_modules", "yaml-language-server", "package.json")); err != nil {
		fmt.Fprintf(os.Stderr, "interop/yamlls: yaml-language-server is not installed: run make deps (npm ci in %s): %v\n", here, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// pos is a position in a document, 0-based, as the language service
// takes it.
type pos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// doc is one document given to the language service: the file at Path,
// or Text as if it were there.
type doc struct {
	Path     string `json:"path"`
	Text     string `json:"text,omitempty"`
	Complete *pos   `json:"complete,omitempty"`
	Hover    *pos   `json:"hover,omitempty"`
}

// diagnostic is one problem the editor would underline.
type diagnostic struct {
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// result is what the language service says of one doc.
type result struct {
	Path        string       `json:"path"`
	Diagnostics []diagnostic `json:"diagnostics"`
	Completion  []string     `json:"completion"`
	Hover       string       `json:"hover"`
}

// service runs editor.js on docs.
func service(t *testing.T, docs []doc) []result {
	t.Helper()
	in, err := json.Marshal(docs)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(here, "editor.js"))
	cmd.Dir = here
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node editor.js: %v\n%s", err, stderr.Bytes())
	}
	var res []result
	if err := json.Unmarshal(out, &res); err != nil || len(res) != len(docs) {
		t.Fatalf("node editor.js answered %d results for %d documents (%v): %.300s", len(res), len(docs), err, out)
	}
	return res
}

// root is the repository's root.
func root(t *testing.T) string {
	t.Helper()
	return filepath.Dir(filepath.Dir(here))
}

// TestEveryIDLValidatesInTheEditor gives every IDL file of the repository
// (those that name the schema on their first line) to the language
// service, which must find nothing wrong.
func TestEveryIDLValidatesInTheEditor(t *testing.T) {
	var docs []doc
	err := filepath.WalkDir(root(t), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".yaml") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.HasPrefix(b, []byte(modeline)) {
			docs = append(docs, doc{Path: path})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 20 {
		t.Fatalf("found %d IDL files naming the schema; want every IDL of the repository", len(docs))
	}
	for _, r := range service(t, docs) {
		for _, d := range r.Diagnostics {
			t.Errorf("%s:%d: %s", r.Path, d.Line, d.Message)
		}
	}
	t.Logf("%d IDL files validate in the editor", len(docs))
}

// idl is an IDL document as if written at protocols/<name>, where the
// modeline's path leads to the schema.
func idl(t *testing.T, name, body string) doc {
	return doc{Path: filepath.Join(root(t), "protocols", name), Text: modeline + "../idl/rpcgen-idl.schema.json\n" + body}
}

// TestEditorReportsMistakes checks that the editor underlines mistakes
// at their lines, with messages naming them.
func TestEditorReportsMistakes(t *testing.T) {
	docs := []doc{
		idl(t, "a.yaml", "protocol:\n  name: demo\n  roles: {client: C., server: S.}\n  framing: websocket\n  framingg: x\nmethods:\n  log: {from: server, kind: notification, result: string, idempotnt: true}\n"),
		idl(t, "b.yaml", "protocol:\n  name: Demo\n  roles: {client: C., server: S.}\n  framing: ndjson\n  timeout: 10 seconds\ntypes:\n  T: {type: object, items: string}\n"),
	}
	want := [][]diagnostic{
		{
			{5, `Value is not accepted. Valid values: "content-length", "ndjson".`},
			{6, "Property framingg is not allowed."},
			{8, "Property idempotnt is not allowed."},
			{8, "Property result is not allowed."},
		},
		{
			{3, `String does not match the pattern of "^[a-z][a-z0-9_-]*$".`},
			{6, `String does not match the pattern of`},
			{8, "Property items is not allowed."},
		},
	}
	for i, r := range service(t, docs) {
		if len(r.Diagnostics) != len(want[i]) {
			t.Errorf("%s: %d diagnostics %v; want %d", filepath.Base(r.Path), len(r.Diagnostics), r.Diagnostics, len(want[i]))
		}
		for _, w := range want[i] {
			if !slices.ContainsFunc(r.Diagnostics, func(d diagnostic) bool { return d.Line == w.Line && strings.HasPrefix(d.Message, w.Message) }) {
				t.Errorf("%s: no diagnostic %q at line %d; got %v", filepath.Base(r.Path), w.Message, w.Line, r.Diagnostics)
			}
		}
	}
}

// TestEditorCompletesAndExplains checks completion of a method's keys and
// of the values of framing:, and the hover text of a key.
func TestEditorCompletesAndExplains(t *testing.T) {
	const head = "protocol:\n  name: demo\n  roles: {client: C., server: S.}\n"
	method := idl(t, "c.yaml", head+"  framing: ndjson\nmethods:\n  ping:\n    from: client\n    kind: request\n    \n")
	method.Complete = &pos{Line: 9, Character: 4}
	method.Hover = &pos{Line: 4, Character: 4}
	framing := idl(t, "d.yaml", head+"  framing: \n")
	framing.Complete = &pos{Line: 4, Character: 11}
	res := service(t, []doc{method, framing})

	got := res[0].Completion
	for _, k := range []string{"doc", "params", "params?", "result", "errors", "timeout", "on_timeout", "idempotent", "examples", "go_name", "notification"} {
		if !slices.Contains(got, k) {
			t.Errorf("completion in a method lacks %s: %v", k, got)
		}
	}
	for _, k := range []string{"from", "kind"} {
		if slices.Contains(got, k) {
			t.Errorf("completion in a method offers %s, which it has: %v", k, got)
		}
	}
	if h := res[0].Hover; !strings.Contains(h, "How messages are delimited") || !strings.Contains(h, "content-length") {
		t.Errorf("hover on framing = %q; want its description and values", h)
	}
	if got := res[1].Completion; !slices.Contains(got, "content-length") || !slices.Contains(got, "ndjson") {
		t.Errorf("completion of framing's value = %v; want content-length and ndjson", got)
	}
}
