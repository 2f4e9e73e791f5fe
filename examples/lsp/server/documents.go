package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/rpcgen/rpcgen/examples/lsp/notes"
	"github.com/rpcgen/rpcgen/generated/lsp"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// TextDocumentDidOpen stores the document and publishes its diagnostics.
func (s *server) TextDocumentDidOpen(ctx context.Context, p *lsp.DidOpenTextDocumentParams) error {
	return s.set(ctx, p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text)
}

// set stores a document's text and publishes its diagnostics; a document
// past the store's bounds is not kept, and the client is told.
func (s *server) set(ctx context.Context, uri lsp.DocumentURI, version int32, text string) error {
	d, err := s.docs.Set(string(uri), version, text)
	if err != nil {
		msg := fmt.Sprintf("%s is not served: %v", jsonrpc.Truncate(string(uri)), err)
		s.log.Warn("document not kept", "uri", jsonrpc.Truncate(string(uri)), "error", err)
		return client(ctx).WindowShowMessage(ctx, &lsp.ShowMessageParams{Type: lsp.MessageTypeWarning, Message: msg})
	}
	return s.publish(ctx, uri, d)
}

// TextDocumentDidChange takes the whole new text (the server asks for full
// synchronization) and publishes the diagnostics.
func (s *server) TextDocumentDidChange(ctx context.Context, p *lsp.DidChangeTextDocumentParams) error {
	uri := p.TextDocument.URI
	text, ok := "", false
	for _, c := range p.ContentChanges {
		if whole := c.TextDocumentContentChangeEventVariant2; whole != nil {
			text, ok = whole.Text, true
		} else {
			s.log.Warn("textDocument/didChange: a ranged change, though the server asked for full text; change ignored", "uri", jsonrpc.Truncate(string(uri)))
		}
	}
	if !ok {
		return nil
	}
	return s.set(ctx, uri, p.TextDocument.Version, text)
}

// TextDocumentDidClose forgets the document and clears its diagnostics.
func (s *server) TextDocumentDidClose(ctx context.Context, p *lsp.DidCloseTextDocumentParams) error {
	s.docs.Close(string(p.TextDocument.URI))
	return client(ctx).TextDocumentPublishDiagnostics(ctx, &lsp.PublishDiagnosticsParams{
		URI:         p.TextDocument.URI,
		Diagnostics: []lsp.Diagnostic{},
	})
}

// publish sends one warning per occurrence of the marker in d.
func (s *server) publish(ctx context.Context, uri lsp.DocumentURI, d *notes.Doc) error {
	marker := s.docs.Marker()
	diags := []lsp.Diagnostic{}
	for _, w := range d.Markers(marker) {
		diags = append(diags, lsp.Diagnostic{
			Range:    wordRange(w),
			Severity: lsp.DiagnosticSeverityWarning,
			Source:   "notes",
			Message:  notes.MarkerMessage(marker),
		})
	}
	return client(ctx).TextDocumentPublishDiagnostics(ctx, &lsp.PublishDiagnosticsParams{
		URI:         uri,
		Version:     ptr.To(d.Version),
		Diagnostics: diags,
	})
}

// wordRange is the range of w.
func wordRange(w notes.Word) lsp.Range {
	return lsp.Range{
		Start: lsp.Position{Line: uint32(w.Line), Character: uint32(w.Start)},
		End:   lsp.Position{Line: uint32(w.Line), Character: uint32(w.End)},
	}
}

// doc returns the open document uri, or -32602 naming the field.
func (s *server) doc(uri lsp.DocumentURI) (*notes.Doc, error) {
	d, ok := s.docs.Get(string(uri))
	if !ok {
		return nil, jsonrpc.InvalidParams("textDocument.uri", fmt.Sprintf("%s is not open", jsonrpc.Truncate(string(uri))))
	}
	return d, nil
}

// TextDocumentHover tells how often the word under the position occurs;
// between words the answer is null.
func (s *server) TextDocumentHover(_ context.Context, p *lsp.HoverParams) (*lsp.Hover, error) {
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	w, ok := d.At(int(p.Position.Line), int(p.Position.Character))
	if !ok {
		return nil, nil
	}
	return &lsp.Hover{
		Contents: lsp.NewHoverContents(lsp.MarkupContent{Kind: lsp.MarkupKindMarkdown, Value: d.Hover(w.Text)}),
		Range:    ptr.To(wordRange(w)),
	}, nil
}

// TextDocumentCompletion offers the document's distinct words.
func (s *server) TextDocumentCompletion(_ context.Context, p *lsp.CompletionParams) (*lsp.TextDocumentCompletionResult, error) {
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	items := []lsp.CompletionItem{}
	for _, w := range d.Distinct() {
		items = append(items, lsp.CompletionItem{Label: w, Kind: lsp.CompletionItemKindText})
	}
	return ptr.To(lsp.NewTextDocumentCompletionResult(items)), nil
}

// WorkspaceExecuteCommand runs notes.count or notes.wait.
func (s *server) WorkspaceExecuteCommand(ctx context.Context, p *lsp.ExecuteCommandParams) (lsp.LSPAny, error) {
	switch p.Command {
	case cmdCount:
		var uri lsp.DocumentURI
		if len(p.Arguments) != 1 || json.Unmarshal(p.Arguments[0], &uri) != nil {
			return nil, jsonrpc.InvalidParams("arguments", cmdCount+" takes one argument, the URI of an open document")
		}
		d, ok := s.docs.Get(string(uri))
		if !ok {
			return nil, jsonrpc.InvalidParams("arguments[0]", fmt.Sprintf("%s is not open", jsonrpc.Truncate(string(uri))))
		}
		return s.count(ctx, d)
	case cmdWait:
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return nil, jsonrpc.InvalidParams("command", fmt.Sprintf("unknown command %q; the server runs %s and %s", p.Command, cmdCount, cmdWait))
}

// count counts the words of d, reporting work-done progress when the
// client supports it.
func (s *server) count(ctx context.Context, d *notes.Doc) (lsp.LSPAny, error) {
	report, err := s.progress(ctx, lsp.WorkDoneProgressBegin{Title: "Counting words"})
	if err != nil {
		return nil, err
	}
	words := len(d.Words)
	if err := report(lsp.WorkDoneProgressReport{Message: fmt.Sprintf("%d words", words)}); err != nil {
		return nil, err
	}
	distinct := len(d.Distinct())
	if err := report(lsp.WorkDoneProgressEnd{Message: fmt.Sprintf("%d distinct", distinct)}); err != nil {
		return nil, err
	}
	return json.Marshal(map[string]int{"words": words, "distinct": distinct})
}

// progress creates a work-done progress token, sends begin and returns
// the function that sends the next value ($/progress). Without the
// client's support for work-done progress it sends nothing.
func (s *server) progress(ctx context.Context, begin lsp.WorkDoneProgressBegin) (func(any) error, error) {
	s.mu.Lock()
	supported := s.caps.Window != nil && s.caps.Window.WorkDoneProgress
	s.tokens++
	token := lsp.NewProgressToken(fmt.Sprintf("notes-%d", s.tokens))
	s.mu.Unlock()
	if !supported {
		return func(any) error { return nil }, nil
	}
	c := client(ctx)
	if err := c.WindowWorkDoneProgressCreate(ctx, &lsp.WorkDoneProgressCreateParams{Token: token}); err != nil {
		return nil, err
	}
	send := func(v any) error {
		value, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return c.Progress(ctx, &lsp.ProgressParams{Token: token, Value: value})
	}
	return send, send(begin)
}
