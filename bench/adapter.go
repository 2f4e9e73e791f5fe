package bench

import (
	"context"
	"fmt"
	"io"
	"sort"
)

// framingKind names a wire framing as it appears in benchmark names.
type framingKind string

const (
	// contentLength is LSP-style "Content-Length: N\r\n\r\n" headers.
	contentLength framingKind = "cl"
	// ndjson is one JSON value per line.
	ndjson framingKind = "ndjson"
)

// framings lists every framing, in benchmark order.
var framings = []framingKind{contentLength, ndjson}

// session is one client and one server of an implementation, connected over
// a pair of streams. Its methods are safe for concurrent use.
type session interface {
	// Add calls add(a, b) and returns the sum the server computed.
	Add(ctx context.Context, a, b int64) (int64, error)
	// Echo calls echo(text) and returns the text the server sent back.
	Echo(ctx context.Context, text string) (string, error)
	// Tick sends the notification tick(seq).
	Tick(ctx context.Context, seq int64) error
	// DidOpen sends the notification textDocument/didOpen carrying doc.
	DidOpen(ctx context.Context, doc document) error
	// Close ends both sides and waits until every goroutine they started
	// has returned.
	Close() error
}

// impl is one implementation under test.
type impl struct {
	// name is the value of impl= in benchmark names.
	name string
	// peer is true for other JSON-RPC libraries, false for baselines and
	// rpcgen itself.
	peer bool
	// unsupported gives the reason an implementation cannot run a framing.
	unsupported map[framingKind]string
	// start runs a client on client and a server on server with framing f.
	// The server hands every notification it receives to on.
	start func(client, server io.ReadWriteCloser, f framingKind, on sink) (session, error)
}

// document is the text document a textDocument/didOpen notification
// carries, as LSP's TextDocumentItem.
type document struct {
	URI        string
	LanguageID string
	Version    int64
	Text       string
}

// sink receives the notifications a server decodes. Both functions must be
// safe for concurrent use.
type sink struct {
	// tick receives the seq of every tick notification.
	tick func(seq int64)
	// didOpen receives the document of every textDocument/didOpen.
	didOpen func(doc document)
}

// impls holds every registered implementation, sorted by name.
var impls []impl

// register adds an implementation; each implementation file calls it from
// init.
func register(i impl) {
	for _, have := range impls {
		if have.name == i.name {
			panic(fmt.Sprintf("bench: implementation %q registered twice", i.name))
		}
	}
	impls = append(impls, i)
	sort.Slice(impls, func(a, b int) bool { return impls[a].name < impls[b].name })
}

// didOpenParams are the params of textDocument/didOpen as the libraries that
// use encoding/json declare them (stdjson and the peers).
type didOpenParams struct {
	TextDocument textDocumentItem `json:"textDocument"`
}

// textDocumentItem is LSP's TextDocumentItem for encoding/json.
type textDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int64  `json:"version"`
	Text       string `json:"text"`
}

// newDidOpenParams returns the params that carry doc.
func newDidOpenParams(doc document) didOpenParams {
	return didOpenParams{TextDocument: textDocumentItem(doc)}
}

// doc returns the document p carries.
func (p *didOpenParams) doc() document { return document(p.TextDocument) }

// methodDidOpen is the method name of the didOpen notification.
const methodDidOpen = "textDocument/didOpen"
