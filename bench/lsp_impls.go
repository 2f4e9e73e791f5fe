package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"golang.org/x/exp/jsonrpc2"

	"github.com/rpcgen/rpcgen/generated/lsp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// lspOpen is the didOpen every session starts with.
func lspOpen() *lsp.DidOpenTextDocumentParams {
	return &lsp.DidOpenTextDocumentParams{TextDocument: lsp.TextDocumentItem{
		URI: lspDocURI, LanguageID: "go", Version: 1, Text: lspSource(lspDocLines),
	}}
}

// lspServerCaps is what both servers announce: incremental sync and
// completion.
func lspServerCaps() *lsp.InitializeResult {
	return &lsp.InitializeResult{Capabilities: lsp.ServerCapabilities{
		TextDocumentSync: lsp.NewServerCapabilitiesTextDocumentSync(lsp.TextDocumentSyncOptions{
			OpenClose: true, Change: lsp.TextDocumentSyncKindIncremental,
		}),
		CompletionProvider: &lsp.CompletionOptions{TriggerCharacters: []string{"."}},
	}}
}

// lspRPCGenServer is the generated lsp.Server holding one document.
type lspRPCGenServer struct {
	lsp.UnimplementedServer
	doc *lspDoc
}

func (s *lspRPCGenServer) Initialize(context.Context, *lsp.InitializeParams) (*lsp.InitializeResult, error) {
	return lspServerCaps(), nil
}

func (s *lspRPCGenServer) Initialized(context.Context, *lsp.InitializedParams) error { return nil }

func (s *lspRPCGenServer) TextDocumentDidOpen(_ context.Context, p *lsp.DidOpenTextDocumentParams) error {
	s.doc.open(&p.TextDocument)
	return nil
}

func (s *lspRPCGenServer) TextDocumentDidChange(_ context.Context, p *lsp.DidChangeTextDocumentParams) error {
	return s.doc.change(p)
}

func (s *lspRPCGenServer) TextDocumentCompletion(_ context.Context, p *lsp.CompletionParams) (*lsp.TextDocumentCompletionResult, error) {
	list, err := s.doc.complete(p)
	if err != nil {
		return nil, err
	}
	return &lsp.TextDocumentCompletionResult{CompletionList: list}, nil
}

// lspRPCGenSession is rpcgen's generated LSP client and server.
type lspRPCGenSession struct {
	clientConn, serverConn *jsonrpc.Conn
	server                 lsp.Server
	doc                    *lspDoc
}

func startLSPRPCGen() (lspSession, error) {
	client, server, err := osPipes()
	if err != nil {
		return nil, err
	}
	doc := newLSPDoc()
	serverConn, _ := lsp.ConnectServer(server, &lspRPCGenServer{doc: doc}, jsonrpc.Options{})
	clientConn, remote := lsp.ConnectClient(client, nil, jsonrpc.Options{})
	s := &lspRPCGenSession{clientConn: clientConn, serverConn: serverConn, server: remote, doc: doc}
	ctx := context.Background()
	err = func() error {
		if _, err := remote.Initialize(ctx, &lsp.InitializeParams{}); err != nil {
			return fmt.Errorf("initialize: %w", err)
		}
		if err := remote.Initialized(ctx, &lsp.InitializedParams{}); err != nil {
			return fmt.Errorf("initialized: %w", err)
		}
		if err := remote.TextDocumentDidOpen(ctx, lspOpen()); err != nil {
			return fmt.Errorf("didOpen: %w", err)
		}
		return nil
	}()
	if err != nil {
		return nil, errors.Join(fmt.Errorf("rpcgen lsp: %w", err), s.Close())
	}
	return s, nil
}

func (s *lspRPCGenSession) Change(ctx context.Context, p *lsp.DidChangeTextDocumentParams) error {
	if err := s.server.TextDocumentDidChange(ctx, p); err != nil {
		return fmt.Errorf("rpcgen didChange: %w", err)
	}
	return nil
}

func (s *lspRPCGenSession) Complete(ctx context.Context, p *lsp.CompletionParams) (*lsp.CompletionList, error) {
	res, err := s.server.TextDocumentCompletion(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("rpcgen completion: %w", err)
	}
	if res == nil || res.CompletionList == nil {
		return nil, errors.New("rpcgen completion: the answer is not a CompletionList")
	}
	return res.CompletionList, nil
}

func (s *lspRPCGenSession) ServerText() string { return s.doc.text() }

// Close closes the client, then the server, and waits for both.
func (s *lspRPCGenSession) Close() error {
	err := s.clientConn.Close()
	if err2 := s.serverConn.Close(); err == nil {
		err = err2
	}
	if errors.Is(err, jsonrpc.ErrClosed) {
		err = nil
	}
	return err
}

// lspXExpSession is a hand-written LSP client and server on
// golang.org/x/exp/jsonrpc2 with Content-Length framing, using the
// generated types with encoding/json.
type lspXExpSession struct {
	client, server *jsonrpc2.Connection
	doc            *lspDoc
}

// lspXExpHandler is the server's dispatcher, as one writes it by hand.
func lspXExpHandler(doc *lspDoc) jsonrpc2.Handler {
	return jsonrpc2.HandlerFunc(func(_ context.Context, req *jsonrpc2.Request) (any, error) {
		switch req.Method {
		case "initialize":
			var p lsp.InitializeParams
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return nil, fmt.Errorf("initialize params: %w", err)
			}
			return lspServerCaps(), nil
		case "initialized":
			return nil, nil
		case "textDocument/didOpen":
			var p lsp.DidOpenTextDocumentParams
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return nil, fmt.Errorf("didOpen params: %w", err)
			}
			doc.open(&p.TextDocument)
			return nil, nil
		case "textDocument/didChange":
			var p lsp.DidChangeTextDocumentParams
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return nil, fmt.Errorf("didChange params: %w", err)
			}
			return nil, doc.change(&p)
		case "textDocument/completion":
			var p lsp.CompletionParams
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return nil, fmt.Errorf("completion params: %w", err)
			}
			return doc.complete(&p)
		}
		return nil, jsonrpc2.ErrNotHandled
	})
}

func startLSPXExp() (lspSession, error) {
	client, server, err := osPipes()
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	doc := newLSPDoc()
	srv, err := jsonrpc2.Dial(ctx, streamDialer{server}, jsonrpc2.ConnectionOptions{
		Framer: jsonrpc2.HeaderFramer(), Handler: lspXExpHandler(doc),
	})
	if err != nil {
		client.Close()
		server.Close()
		return nil, fmt.Errorf("x/exp lsp server: %w", err)
	}
	cli, err := jsonrpc2.Dial(ctx, streamDialer{client}, jsonrpc2.ConnectionOptions{Framer: jsonrpc2.HeaderFramer()})
	if err != nil {
		client.Close()
		srv.Close()
		return nil, fmt.Errorf("x/exp lsp client: %w", err)
	}
	s := &lspXExpSession{client: cli, server: srv, doc: doc}
	err = func() error {
		var res lsp.InitializeResult
		if err := cli.Call(ctx, "initialize", &lsp.InitializeParams{}).Await(ctx, &res); err != nil {
			return fmt.Errorf("initialize: %w", err)
		}
		if err := cli.Notify(ctx, "initialized", &lsp.InitializedParams{}); err != nil {
			return fmt.Errorf("initialized: %w", err)
		}
		if err := cli.Notify(ctx, "textDocument/didOpen", lspOpen()); err != nil {
			return fmt.Errorf("didOpen: %w", err)
		}
		return nil
	}()
	if err != nil {
		return nil, errors.Join(fmt.Errorf("x/exp lsp: %w", err), s.Close())
	}
	return s, nil
}

func (s *lspXExpSession) Change(ctx context.Context, p *lsp.DidChangeTextDocumentParams) error {
	if err := s.client.Notify(ctx, "textDocument/didChange", p); err != nil {
		return fmt.Errorf("x/exp didChange: %w", err)
	}
	return nil
}

func (s *lspXExpSession) Complete(ctx context.Context, p *lsp.CompletionParams) (*lsp.CompletionList, error) {
	var list lsp.CompletionList
	if err := s.client.Call(ctx, "textDocument/completion", p).Await(ctx, &list); err != nil {
		return nil, fmt.Errorf("x/exp completion: %w", err)
	}
	return &list, nil
}

func (s *lspXExpSession) ServerText() string { return s.doc.text() }

// Close closes the client, then the server; each waits for its goroutines.
// x/exp does not count an *os.File's "file already closed" as a normal end
// of the stream, so that error is dropped here.
func (s *lspXExpSession) Close() error {
	err := s.client.Close()
	if err2 := s.server.Close(); err == nil {
		err = err2
	}
	if errors.Is(err, os.ErrClosed) {
		err = nil
	}
	return err
}
