package lsp_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/lsp"
)

// typedFeatures asks gopls for each feature through the generated stubs
// and checks its answers for main.go (the same as TestGoplsRawFeatures
// sees in raw JSON).
func typedFeatures(t *testing.T, ctx context.Context, server lsp.Server, ws *goplsWorkspace, doc lsp.TextDocumentIdentifier) {
	t.Helper()
	at := func(text string, n int) lsp.TextDocumentPositionParams {
		return lsp.TextDocumentPositionParams{TextDocument: doc, Position: pos(t, text, n)}
	}
	loc := func(n int) lsp.Location { return lsp.Location{URI: doc.URI, Range: wordAt(t, "greet", n)} }

	hover, err := server.TextDocumentHover(ctx, &lsp.HoverParams{TextDocument: doc, Position: pos(t, "greet", 2)})
	if err != nil || hover == nil || hover.Contents.MarkupContent == nil ||
		hover.Contents.MarkupContent.Value != "```go\nfunc greet(name string) Greeting\n```" ||
		hover.Range == nil || *hover.Range != wordAt(t, "greet", 2) {
		t.Errorf("hover on the call of greet: %+v, %v", hover, err)
	}

	p := at("Text,", 0)
	completion, err := server.TextDocumentCompletion(ctx, &lsp.CompletionParams{TextDocument: p.TextDocument, Position: p.Position})
	var items []lsp.CompletionItem
	switch {
	case err != nil || completion == nil:
	case completion.CompletionList != nil:
		items = completion.CompletionList.Items
	case completion.Array != nil:
		items = *completion.Array
	}
	if !slices.ContainsFunc(items, func(i lsp.CompletionItem) bool { return i.Label == "Text" }) {
		t.Errorf("completion after g.: %+v, %v: want an item Text", completion, err)
	}

	p = at("greet", 2)
	// gopls answers Location[] even to a client that supports links.
	def, err := server.TextDocumentDefinition(ctx, &lsp.DefinitionParams{TextDocument: p.TextDocument, Position: p.Position})
	if err != nil || def == nil || def.Definition == nil || def.Definition.Array == nil || !slices.Equal(*def.Definition.Array, []lsp.Location{loc(1)}) {
		t.Errorf("definition of greet: %+v, %v: want [%+v]", def, err, loc(1))
	}
	refs, err := server.TextDocumentReferences(ctx, &lsp.ReferenceParams{TextDocument: p.TextDocument, Position: p.Position, Context: lsp.ReferenceContext{IncludeDeclaration: true}})
	if err != nil || !slices.Equal(refs, []lsp.Location{loc(1), loc(2), loc(3)}) {
		t.Errorf("references of greet: %+v, %v", refs, err)
	}

	// The client supports hierarchical symbols: gopls answers DocumentSymbols.
	symbols, err := server.TextDocumentDocumentSymbol(ctx, &lsp.DocumentSymbolParams{TextDocument: doc})
	var names []string
	if err == nil && symbols != nil && symbols.DocumentSymbolList != nil {
		for _, s := range *symbols.DocumentSymbolList {
			names = append(names, s.Name)
		}
	}
	if strings.Join(names, ",") != "Greeting,greet,main" {
		t.Errorf("documentSymbol: %+v, %v: want the DocumentSymbols Greeting, greet, main", symbols, err)
	}

	// gofmt removes the spaces inside greet( "Zoë" ); the second is after
	// "ë", one UTF-16 unit but two bytes.
	open, closing := pos(t, `( "`, 0), pos(t, `" )`, 0)
	space := func(p lsp.Position) lsp.Range {
		s, e := p, p
		s.Character++
		e.Character += 2
		return lsp.Range{Start: s, End: e}
	}
	edits, err := server.TextDocumentFormatting(ctx, &lsp.DocumentFormattingParams{TextDocument: doc, Options: lsp.FormattingOptions{TabSize: 4}})
	if want := []lsp.TextEdit{{Range: space(open)}, {Range: space(closing)}}; err != nil || !slices.Equal(edits, want) {
		t.Errorf("formatting: %+v, %v: want %+v", edits, err, want)
	}

	p = at("count", 0)
	rename, err := server.TextDocumentRename(ctx, &lsp.RenameParams{TextDocument: doc, Position: p.Position, NewName: "total"})
	var renamed []lsp.Range
	if err == nil && rename != nil {
		for _, c := range rename.DocumentChanges {
			if e := c.TextDocumentEdit; e != nil && e.TextDocument.URI == doc.URI {
				for _, te := range e.Edits {
					if te.TextEdit != nil && te.TextEdit.NewText == "total" {
						renamed = append(renamed, te.TextEdit.Range)
					}
				}
			}
		}
	}
	if !slices.Equal(renamed, []lsp.Range{wordAt(t, "count", 0), wordAt(t, "count", 1)}) {
		t.Errorf("rename of count: %+v, %v: want both occurrences renamed", rename, err)
	}

	p = at("greet", 2)
	actions, err := server.TextDocumentCodeAction(ctx, &lsp.CodeActionParams{
		TextDocument: doc,
		Range:        lsp.Range{Start: p.Position, End: p.Position},
		Context:      lsp.CodeActionContext{Diagnostics: []lsp.Diagnostic{}},
	})
	if err != nil || !slices.ContainsFunc(actions, func(a lsp.TextDocumentCodeActionResultItem) bool {
		return a.CodeAction != nil && a.CodeAction.Title == "Inline call to greet" &&
			a.CodeAction.Kind != "" && a.CodeAction.Kind == "refactor.inline.call"
	}) {
		t.Errorf("codeAction on the call of greet: %+v, %v: want \"Inline call to greet\"", actions, err)
	}
}
