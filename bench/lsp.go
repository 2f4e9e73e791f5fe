package bench

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/rpcgen/rpcgen/generated/lsp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// The LSP rows time what an editor does on every keystroke: a
// textDocument/didChange with one incremental edit of a Go source file the
// server holds, then a textDocument/completion answered with 200 items.
// Both implementations share the document store and the completion list
// below, so they differ only in how the messages travel.

// lspDocURI is the document every session opens.
const lspDocURI lsp.DocumentURI = "file:///home/dev/project/internal/store/store.go"

// lspDocLines is the length of the document in lines.
const lspDocLines = 2000

// lspCompletionItems is the length of every completion list.
const lspCompletionItems = 200

// lspSession is one LSP client and server over a pair of OS pipes, the
// server holding lspSource() once the session has started.
type lspSession interface {
	// Change sends textDocument/didChange.
	Change(ctx context.Context, p *lsp.DidChangeTextDocumentParams) error
	// Complete calls textDocument/completion and returns the list.
	Complete(ctx context.Context, p *lsp.CompletionParams) (*lsp.CompletionList, error)
	// ServerText returns the server's copy of the document.
	ServerText() string
	// Close ends both sides and waits for their goroutines.
	Close() error
}

// lspImpl is one implementation of the LSP rows.
type lspImpl struct {
	name  string
	start func() (lspSession, error)
}

// lspImpls lists the implementations, in benchmark order.
var lspImpls = []lspImpl{
	{name: "rpcgen", start: startLSPRPCGen},
	{name: "xexp", start: startLSPXExp},
}

// lspDoc is a server's copy of one document, as lines without their "\n".
type lspDoc struct {
	mu      sync.Mutex
	uri     lsp.DocumentURI
	version int32
	lines   []string
	items   []lsp.CompletionItem // the completion list, before its edit ranges
}

func newLSPDoc() *lspDoc { return &lspDoc{items: lspCompletionTemplate()} }

// open replaces the document.
func (d *lspDoc) open(item *lsp.TextDocumentItem) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.uri, d.version = item.URI, item.Version
	d.lines = strings.Split(item.Text, "\n")
}

// change applies the edits of p in order.
func (d *lspDoc) change(p *lsp.DidChangeTextDocumentParams) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if p.TextDocument.URI != d.uri {
		return fmt.Errorf("didChange of %s, which is not open", jsonrpc.Truncate(string(p.TextDocument.URI)))
	}
	for _, c := range p.ContentChanges {
		switch {
		case c.TextDocumentContentChangeEventVariant1 != nil:
			e := c.TextDocumentContentChangeEventVariant1
			if err := d.replace(e.Range, e.Text); err != nil {
				return err
			}
		case c.TextDocumentContentChangeEventVariant2 != nil:
			d.lines = strings.Split(c.TextDocumentContentChangeEventVariant2.Text, "\n")
		}
	}
	d.version = p.TextDocument.Version
	return nil
}

// replace puts text in place of r.
func (d *lspDoc) replace(r lsp.Range, text string) error {
	sl, sc, err := d.offset(r.Start)
	if err != nil {
		return err
	}
	el, ec, err := d.offset(r.End)
	if err != nil {
		return err
	}
	if el < sl || (el == sl && ec < sc) {
		return fmt.Errorf("range ends before it starts")
	}
	joined := d.lines[sl][:sc] + text + d.lines[el][ec:]
	if sl == el && !strings.Contains(text, "\n") {
		d.lines[sl] = joined // the common case: an edit within one line
		return nil
	}
	repl := strings.Split(joined, "\n")
	d.lines = append(d.lines[:sl], append(repl, d.lines[el+1:]...)...)
	return nil
}

// offset converts p (its character in UTF-16 code units) to a line index
// and a byte offset in that line.
func (d *lspDoc) offset(p lsp.Position) (int, int, error) {
	if int(p.Line) >= len(d.lines) {
		return 0, 0, fmt.Errorf("line %d past the end (%d lines)", p.Line, len(d.lines))
	}
	line := d.lines[p.Line]
	units := 0
	for i, r := range line {
		if units >= int(p.Character) {
			return int(p.Line), i, nil
		}
		units += utf16.RuneLen(r)
	}
	if units < int(p.Character) {
		return 0, 0, fmt.Errorf("character %d past the end of line %d", p.Character, p.Line)
	}
	return int(p.Line), len(line), nil
}

// text returns the whole document.
func (d *lspDoc) text() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return strings.Join(d.lines, "\n")
}

// complete returns the completion list at p: every item replaces the
// identifier that ends at the cursor.
func (d *lspDoc) complete(p *lsp.CompletionParams) (*lsp.CompletionList, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if p.TextDocument.URI != d.uri {
		return nil, fmt.Errorf("completion in %s, which is not open", jsonrpc.Truncate(string(p.TextDocument.URI)))
	}
	l, c, err := d.offset(p.Position)
	if err != nil {
		return nil, err
	}
	line := d.lines[l]
	start := c
	for start > 0 && isIdentByte(line[start-1]) {
		start--
	}
	word := lsp.Range{
		Start: lsp.Position{Line: p.Position.Line, Character: p.Position.Character - uint32(utf16Len(line[start:c]))},
		End:   p.Position,
	}
	items := make([]lsp.CompletionItem, len(d.items))
	edits := make([]lsp.TextEdit, len(d.items))
	for i := range items {
		items[i] = d.items[i]
		edits[i] = lsp.TextEdit{Range: word, NewText: items[i].FilterText}
		if items[i].InsertTextFormat == lsp.InsertTextFormatSnippet {
			edits[i].NewText += "(${1})"
		}
		items[i].TextEdit = lsp.CompletionItemTextEdit{TextEdit: &edits[i]}
	}
	return &lsp.CompletionList{Items: items}, nil
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// utf16Len returns the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// lspCompletionTemplate returns the 200 items every completion answers,
// without their text edits: functions, methods, fields, variables,
// constants, types and keywords, with a detail, Markdown documentation, a
// sort and a filter text.
func lspCompletionTemplate() []lsp.CompletionItem {
	kinds := []lsp.CompletionItemKind{
		lsp.CompletionItemKindFunction, lsp.CompletionItemKindMethod, lsp.CompletionItemKindField,
		lsp.CompletionItemKindVariable, lsp.CompletionItemKindConstant, lsp.CompletionItemKindStruct,
		lsp.CompletionItemKindKeyword,
	}
	verbs := []string{"Get", "Set", "Load", "Store", "Find", "Delete", "Range", "Write", "Read", "Close"}
	nouns := []string{"Entry", "Index", "Snapshot", "Key", "Value", "Batch", "Cursor", "Segment", "Table", "Région", "Lock", "Size", "Count", "Path", "Buffer", "Stats", "Tx", "Page", "Node", "Cache"}
	items := make([]lsp.CompletionItem, lspCompletionItems)
	for i := range items {
		label := verbs[i%len(verbs)] + nouns[i/len(verbs)%len(nouns)]
		kind := kinds[i%len(kinds)]
		var detail string
		format := lsp.InsertTextFormatPlainText
		switch kind {
		case lsp.CompletionItemKindFunction, lsp.CompletionItemKindMethod:
			detail = fmt.Sprintf("func(ctx context.Context, key []byte, opts *Options) (*%s, error)", nouns[i%len(nouns)])
			format = lsp.InsertTextFormatSnippet
		case lsp.CompletionItemKindStruct:
			detail = "struct{...}"
		case lsp.CompletionItemKindKeyword:
			detail = ""
		default:
			detail = "map[string][]*" + nouns[(i+3)%len(nouns)]
		}
		doc := fmt.Sprintf("```go\n%s %s\n```\n\n%s returns the entry stored under `key`, or an error wrapping "+
			"`ErrNotFound` when there is none. It is safe for concurrent use; the result must not be "+
			"modified — copy it first (see [Store.%s](https://pkg.go.dev/example.com/store#Store.%s)).\n",
			label, detail, label, label, label)
		items[i] = lsp.CompletionItem{
			Label:            label,
			Kind:             kind,
			Detail:           detail,
			Documentation:    lsp.NewCompletionItemDocumentation(lsp.MarkupContent{Kind: lsp.MarkupKindMarkdown, Value: doc}),
			SortText:         fmt.Sprintf("%05d", i),
			FilterText:       label,
			InsertTextFormat: format,
		}
	}
	return items
}

// lspSource returns a Go source file of n lines: declarations, comments,
// string literals that need escaping and some non-ASCII text.
func lspSource(n int) string {
	var b strings.Builder
	b.WriteString("// Package store keeps entries in pages — a B-tree on disk.\npackage store\n\nimport (\n\t\"context\"\n\t\"errors\"\n\t\"fmt\"\n)")
	lines := 8
	x := uint32(7)
	for i := 0; lines < n; i++ {
		x = x*1664525 + 1013904223
		chunk := []string{
			"",
			fmt.Sprintf("// handle%d walks the pages of the tree for key, counting µs in stats (größe ≤ %d).", i, x%4096),
			fmt.Sprintf("func (s *Store) handle%d(ctx context.Context, key []byte) (*Entry, error) {", i),
			"\tif err := ctx.Err(); err != nil {",
			fmt.Sprintf("\t\treturn nil, fmt.Errorf(\"handle%d: %%w\\t(key %%q)\", err, key)", i),
			"\t}",
			fmt.Sprintf("\tpage, err := s.load(ctx, %d)", x%997),
			"\tif err != nil {",
			"\t\treturn nil, errors.Join(err, ErrNotFound)",
			"\t}",
			"\treturn page.lookup(key), nil // \"found\" or nil",
			"}",
		}
		for _, l := range chunk {
			if lines == n {
				break
			}
			b.WriteString("\n")
			b.WriteString(l)
			lines++
		}
	}
	return b.String()
}

// lspEdit returns the i-th keystroke of a session and the completion that
// follows it: one character typed over the first letter of "page" on one of
// the document's "\tpage, err := ..." lines (so the document keeps its size),
// then a completion at the end of that identifier.
func lspEdit(i int, version int32) (*lsp.DidChangeTextDocumentParams, *lsp.CompletionParams) {
	// Lines 14, 26, 38, ... start "\tpage, err"; pick one of them.
	line := uint32(14 + 12*((i*37)%(lspDocLines/12-2)))
	ch := string(rune('a' + i%26))
	at := lsp.Range{Start: lsp.Position{Line: line, Character: 1}, End: lsp.Position{Line: line, Character: 2}}
	change := &lsp.DidChangeTextDocumentParams{
		TextDocument: lsp.VersionedTextDocumentIdentifier{URI: lspDocURI, Version: version},
		ContentChanges: []lsp.TextDocumentContentChangeEvent{lsp.NewTextDocumentContentChangeEvent(
			lsp.TextDocumentContentChangeEventVariant1{Range: at, Text: ch})},
	}
	complete := &lsp.CompletionParams{
		TextDocument: lsp.TextDocumentIdentifier{URI: lspDocURI},
		Position:     lsp.Position{Line: line, Character: 5},
	}
	return change, complete
}
