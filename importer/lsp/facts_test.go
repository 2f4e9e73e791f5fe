package lsp

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// loadCommitted reads the committed LSP IDL as plain YAML.
func loadCommitted(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile(committedIDL)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s is not YAML: %v", committedIDL, err)
	}
	return doc
}

func dig(t *testing.T, v any, path ...string) any {
	t.Helper()
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s: not a mapping above %q", strings.Join(path, "."), p)
		}
		if v, ok = m[p]; !ok {
			t.Fatalf("%s: no %q", strings.Join(path, "."), p)
		}
	}
	return v
}

// TestLSPFacts checks the imported IDL against facts of LSP 3.17 stated
// by its specification.
func TestLSPFacts(t *testing.T) {
	doc := loadCommitted(t)
	for _, tc := range []struct {
		path []string
		want any
	}{
		{[]string{"protocol", "framing"}, "content-length"},
		{[]string{"protocol", "cancellation"}, "lsp"},
		{[]string{"protocol", "version"}, "3.17.0"},
		{[]string{"protocol", "ignore_unknown_notifications"}, []any{"$/"}},
		{[]string{"methods", "initialize", "from"}, "client"},
		{[]string{"methods", "initialize", "params"}, "InitializeParams"},
		{[]string{"methods", "initialize", "errors"}, []any{"UnknownProtocolVersion"}},
		{[]string{"methods", "initialized", "kind"}, "notification"},
		{[]string{"methods", "shutdown", "result"}, "null"},
		{[]string{"methods", "exit", "kind"}, "notification"},
		{[]string{"methods", "exit", "from"}, "client"},
		{[]string{"methods", "window/workDoneProgress/create", "from"}, "server"},
		{[]string{"methods", "window/workDoneProgress/create", "result"}, "null"},
		{[]string{"methods", "$/progress", "from"}, "both"},
		{[]string{"methods", "$/progress", "kind"}, "notification"},
		{[]string{"methods", "$/cancelRequest", "from"}, "both"},
		{[]string{"methods", "workspace/configuration", "from"}, "server"},
		{[]string{"methods", "workspace/configuration", "result"}, "[]LSPAny"},
		{[]string{"methods", "client/registerCapability", "from"}, "server"},
		{[]string{"methods", "textDocument/publishDiagnostics", "from"}, "server"},
		{[]string{"methods", "textDocument/publishDiagnostics", "kind"}, "notification"},
		{[]string{"methods", "textDocument/hover", "result"}, "Hover | null"},
		{[]string{"methods", "textDocument/diagnostic", "errors"}, []any{"ServerCancelled"}},
		{[]string{"methods", "textDocument/inlineCompletion", "proposed"}, true},
		{[]string{"errors", "ServerCancelled", "code"}, -32802},
		{[]string{"errors", "RequestCancelled", "code"}, -32800},
		{[]string{"types", "Position", "fields", "line"}, "uint32"},
		{[]string{"types", "TextDocumentItem", "fields", "version"}, "int32"},
		{[]string{"types", "Color", "fields", "red"}, "number"},
		{[]string{"types", "LSPAny", "type"}, "any"},
		{[]string{"types", "DocumentUri", "format"}, "uri"},
		{[]string{"types", "CodeActionKind", "open"}, true},
		{[]string{"types", "WorkspaceEdit", "fields", "changes?"}, "map<DocumentUri, []TextEdit>"},
		{[]string{"types", "WorkspaceFoldersInitializeParams", "fields", "workspaceFolders?", "type"}, "[]WorkspaceFolder | null"},
	} {
		got := dig(t, doc, tc.path...)
		if !equal(got, tc.want) {
			t.Errorf("%s = %#v, want %#v", strings.Join(tc.path, "."), got, tc.want)
		}
	}
	methods := dig(t, doc, "methods").(map[string]any)
	if len(methods) != 67+26 {
		t.Errorf("%d methods, want the 67 requests and 26 notifications of 3.17", len(methods))
	}
}

func equal(a, b any) bool {
	switch a := a.(type) {
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !equal(a[i], bl[i]) {
				return false
			}
		}
		return true
	case int64:
		bi, ok := b.(int)
		return ok && int64(bi) == a
	case uint64:
		bi, ok := b.(int)
		return ok && bi >= 0 && uint64(bi) == a
	}
	return a == b
}

// TestLinksPointAtSections checks that every doc of the committed IDL is a
// link into the specification, to an anchor the specification has, and
// that only the proposed methods (not in 3.17's text) lack one.
func TestLinksPointAtSections(t *testing.T) {
	data, err := os.ReadFile(committedIDL)
	if err != nil {
		t.Fatal(err)
	}
	docs := regexp.MustCompile(`(?m)^ *doc: (.*)$`).FindAllSubmatch(data, -1)
	if len(docs) < 400 {
		t.Fatalf("only %d docs", len(docs))
	}
	bare := 0
	for _, d := range docs {
		s := strings.Trim(string(d[1]), `"`)
		if strings.HasPrefix(s, "The ") { // the protocol's and transports' own
			continue
		}
		anchor, ok := strings.CutPrefix(s, SpecURL)
		switch {
		case !ok:
			t.Errorf("doc %q is not a link into the specification", s)
		case anchor == "":
			bare++
		case !specAnchors[strings.TrimPrefix(anchor, "#")]:
			t.Errorf("doc %q: the specification has no anchor %s", s, anchor)
		}
	}
	// Without a section: the three proposed methods, the nine proposed
	// types only they use, and DidChangeConfigurationRegistrationOptions,
	// used only as registration options.
	if bare != 13 {
		t.Errorf("%d docs link to the specification without a section, want 13", bare)
	}
	for _, m := range []string{"textDocument/hover", "initialize", "shutdown", "$/progress", "$/cancelRequest", "textDocument/semanticTokens/full"} {
		if methodAnchor(m) == "" {
			t.Errorf("method %s has no section", m)
		}
	}
	for name, want := range map[string]string{"Hover": "hover", "LSPAny": "lspAny", "URI": "uri", "DocumentUri": "documentUri", "_InitializeParams": "initializeParams", "TextDocumentItem": "textDocumentItem"} {
		if got := camel(name); got != want {
			t.Errorf("camel(%q) = %q, want %q", name, got, want)
		}
	}
}
