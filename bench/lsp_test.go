package bench

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/generated/lsp"
)

// BenchmarkLSP times a keystroke in an editor: a textDocument/didChange
// with one incremental edit of a 2,000-line Go file, then a
// textDocument/completion answered with 200 items, over OS pipes with
// Content-Length framing; an op is the pair. Names read
// op=change-complete/framing=cl/transport=ospipe/callers=1/impl=rpcgen, the
// scheme of BenchmarkRPC. Starting the session (initialize, didOpen) is not
// timed.
func BenchmarkLSP(b *testing.B) {
	b.Run("op=change-complete/framing=cl/transport=ospipe/callers=1", func(b *testing.B) {
		for _, im := range lspImpls {
			b.Run("impl="+im.name, func(b *testing.B) { runLSP(b, im) })
		}
	})
}

func runLSP(b *testing.B, im lspImpl) {
	s, err := im.start()
	if err != nil {
		b.Fatalf("start %s: %v", im.name, err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			b.Errorf("close: %v", err)
		}
	}()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := lspKeystroke(ctx, s, i); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
}

// lspKeystroke sends the i-th edit and asks for completion after it.
func lspKeystroke(ctx context.Context, s lspSession, i int) (*lsp.CompletionList, error) {
	change, complete := lspEdit(i, int32(i+2))
	if err := s.Change(ctx, change); err != nil {
		return nil, err
	}
	list, err := s.Complete(ctx, complete)
	if err != nil {
		return nil, err
	}
	if len(list.Items) != lspCompletionItems {
		return nil, fmt.Errorf("completion %d: %d items, want %d", i, len(list.Items), lspCompletionItems)
	}
	return list, nil
}

// TestLSPImplementations checks that both LSP implementations do the same
// work: after the same keystrokes their servers hold the same text, the
// text a local copy of the edits gives, and their clients receive the
// same 200 items with the edit range of the identifier at the cursor.
func TestLSPImplementations(t *testing.T) {
	const keystrokes = 40
	want := newLSPDoc()
	want.open(&lspOpen().TextDocument)
	if n := len(want.lines); n != lspDocLines {
		t.Fatalf("the document has %d lines, want %d", n, lspDocLines)
	}
	orig := want.text()
	for i := range keystrokes {
		change, _ := lspEdit(i, int32(i+2))
		if err := want.change(change); err != nil {
			t.Fatalf("local edit %d: %v", i, err)
		}
	}
	if want.text() == orig || len(want.text()) != len(orig) {
		t.Fatalf("the edits should change the text and keep its length (%d → %d bytes)", len(orig), len(want.text()))
	}

	lists := map[string]*lsp.CompletionList{}
	for _, im := range lspImpls {
		t.Run("impl="+im.name, func(t *testing.T) {
			s, err := im.start()
			if err != nil {
				t.Fatalf("start: %v", err)
			}
			defer func() {
				if err := s.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var last *lsp.CompletionList
			for i := range keystrokes {
				if last, err = lspKeystroke(ctx, s, i); err != nil {
					t.Fatal(err)
				}
			}
			if got := s.ServerText(); got != want.text() {
				t.Errorf("the server's text differs from the local copy's (%d and %d bytes)", len(got), len(want.text()))
			}
			_, complete := lspEdit(keystrokes-1, 0)
			wantRange := lsp.Range{Start: lsp.Position{Line: complete.Position.Line, Character: 1}, End: complete.Position}
			for k, it := range last.Items {
				te := it.TextEdit.TextEdit
				if te == nil || te.Range != wantRange || it.Documentation.MarkupContent == nil || it.SortText == "" || it.FilterText == "" {
					t.Fatalf("item %d lacks a text edit over %v, Markdown documentation, a sort or a filter text: %+v", k, wantRange, it)
				}
			}
			lists[im.name] = last
		})
	}
	if len(lists) != len(lspImpls) {
		return
	}
	for _, im := range lspImpls[1:] {
		if !reflect.DeepEqual(lists[im.name], lists[lspImpls[0].name]) {
			t.Errorf("%s's client received a completion list that differs from %s's", im.name, lspImpls[0].name)
		}
	}
}
