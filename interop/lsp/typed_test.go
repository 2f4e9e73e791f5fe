package lsp_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/lsp"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// pos is the LSP position of the n-th occurrence of text in main.go.
func pos(t *testing.T, text string, n int) lsp.Position {
	t.Helper()
	l, c := position(t, text, n)
	return lsp.Position{Line: uint32(l), Character: uint32(c)}
}

// wordAt is the range of the n-th occurrence of text in main.go.
func wordAt(t *testing.T, text string, n int) lsp.Range {
	t.Helper()
	p := pos(t, text, n)
	end := p
	end.Character += uint32(len([]rune(text)))
	return lsp.Range{Start: p, End: end}
}

// The generated client drives gopls through a whole session on typed
// values: initialize with every client capability, initialized, didOpen,
// each feature with gopls's answer checked, didChange, a cancelled
// request, shutdown and exit. gopls's own requests (configuration,
// progress, registrations) are answered by the generated client role, and
// our side logs no warning. Every message gopls sent decodes into the
// generated type for its method and encodes back to the same JSON.
func TestGoplsTypedSession(t *testing.T) {
	ws := newGoplsWorkspace(t)
	g := startGopls(t, ws)
	logs := &warnings{}
	cl := newTypedClient(t)
	conn, server := lsp.ConnectClient(g.stream, cl, jsonrpc.Options{Logger: slog.New(logs)})
	t.Cleanup(func() { _ = conn.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*goplsWait)
	defer cancel()
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}

	var caps lsp.ClientCapabilities
	must("decoding the client capabilities", json.Unmarshal([]byte(fullCapabilities), &caps))
	b, err := caps.AppendJSON(nil)
	if d := jsonDiffPlain([]byte(fullCapabilities), b); err != nil || d != "" {
		t.Errorf("the client capabilities do not encode back as written: %v %s", err, d)
	}
	init, err := server.Initialize(ctx, &lsp.InitializeParams{
		ProcessID:        ptr.To(int32(os.Getpid())),
		ClientInfo:       &lsp.XInitializeParamsClientInfo{Name: "rpcgen-interop-lsp"},
		Locale:           "en",
		Capabilities:     caps,
		WorkspaceFolders: jsonrpc.Some([]lsp.WorkspaceFolder{{URI: lsp.URI(fileURI(ws.dir)), Name: "notes"}}),
	})
	must("initialize", err)
	if init.ServerInfo == nil || init.ServerInfo.Name != "gopls" || init.Capabilities.HoverProvider.IsZero() {
		t.Fatalf("initialize answered %+v: want gopls's serverInfo and a hoverProvider", init)
	}
	must("initialized", server.Initialized(ctx, &lsp.InitializedParams{}))

	uri := lsp.DocumentURI(ws.mainURI)
	doc := lsp.TextDocumentIdentifier{URI: uri}
	must("didOpen", server.TextDocumentDidOpen(ctx, &lsp.DidOpenTextDocumentParams{TextDocument: lsp.TextDocumentItem{
		URI: uri, LanguageID: "go", Version: 1, Text: mainGo,
	}}))
	three := wordAt(t, `"three"`, 0)
	cl.awaitDiagnostics(t, "diagnostic of the type error", ws.mainURI, 1, func(ds []lsp.Diagnostic) bool {
		return slices.ContainsFunc(ds, func(d lsp.Diagnostic) bool {
			return d.Range.Start == three.Start && strings.Contains(d.Message, `"three"`)
		})
	})

	typedFeatures(t, ctx, server, ws, doc)

	// didChange: "three" becomes 3, and the type error goes away.
	must("didChange", server.TextDocumentDidChange(ctx, &lsp.DidChangeTextDocumentParams{
		TextDocument: lsp.VersionedTextDocumentIdentifier{URI: uri, Version: 2},
		ContentChanges: []lsp.TextDocumentContentChangeEvent{{
			TextDocumentContentChangeEventVariant1: &lsp.TextDocumentContentChangeEventVariant1{Range: three, Text: "3"},
		}},
	}))
	cl.awaitDiagnostics(t, "empty diagnostics after didChange", ws.mainURI, 2, func(ds []lsp.Diagnostic) bool { return len(ds) == 0 })

	typedCancel(t, ctx, server, g)

	for _, m := range []string{lsp.MethodWindowWorkDoneProgressCreate, lsp.MethodWorkspaceConfiguration, lsp.MethodClientRegisterCapability} {
		if !slices.Contains(cl.asks(), m) {
			t.Errorf("gopls asked %v, never %s", cl.asks(), m)
		}
	}
	must("shutdown", server.Shutdown(ctx))
	must("exit", server.Exit(ctx))
	g.waitExit(t)
	<-conn.Done()
	if got := responseTo(t, g.stream, "shutdown"); string(got["result"]) != "null" {
		t.Errorf("gopls answered shutdown with %v, want a result member that is null", got)
	}
	logs.check(t)

	received := g.checkReceived(t)
	ours, _ := g.stream.sent()
	t.Run("Answered", func(t *testing.T) { checkAnswered(t, ours, received) })
	t.Run("RoundTrip", func(t *testing.T) {
		msgs, err := classify(ours, received)
		if err != nil {
			t.Error(err)
		}
		for _, p := range roundTrip(msgs) {
			t.Error(p)
		}
		kinds := map[string]int{}
		for _, m := range msgs {
			kinds[m.Kind+" "+m.Method]++
		}
		t.Logf("gopls sent %d messages: %v", len(msgs), kinds)
	})
}

// typedCancel cancels a workspace/symbol call once it is written:
// $/cancelRequest goes out with its id and the call ends with
// context.Canceled.
func typedCancel(t *testing.T, ctx context.Context, server lsp.Server, g *goplsProcess) {
	t.Helper()
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := server.WorkspaceSymbol(cctx, &lsp.WorkspaceSymbolParams{Query: "Greet"})
		done <- err
	}()
	req := g.stream.awaitSent(t, "the workspace/symbol request", func(m json.RawMessage) bool { return strings.Contains(string(m), `"workspace/symbol"`) })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled call returned %v, want context.Canceled", err)
	}
	var sent struct{ ID json.RawMessage }
	_ = json.Unmarshal(req, &sent)
	g.stream.awaitSent(t, "$/cancelRequest for id "+string(sent.ID), func(m json.RawMessage) bool {
		var n struct {
			Method string
			Params struct{ ID json.RawMessage }
		}
		return json.Unmarshal(m, &n) == nil && n.Method == lsp.MethodCancelRequest && string(n.Params.ID) == string(sent.ID)
	})
}

// checkAnswered fails for each request gopls made that our side did not
// answer with a result.
func checkAnswered(t *testing.T, ours, received []json.RawMessage) {
	answered := map[string]bool{}
	for _, b := range ours {
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) == nil && m["method"] == nil && m["id"] != nil && m["result"] != nil {
			answered[string(m["id"])] = true
		}
	}
	msgs, _ := classify(ours, received)
	n := 0
	for _, m := range msgs {
		if m.Kind == "request" {
			n++
			if !answered[string(m.ID)] {
				t.Errorf("gopls's request %s (id %s) has no result from us", m.Method, m.ID)
			}
		}
	}
	if n == 0 {
		t.Error("gopls made no request of the client")
	}
}
