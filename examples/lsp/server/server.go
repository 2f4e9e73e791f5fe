package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/rpcgen/rpcgen/examples/lsp/notes"
	"github.com/rpcgen/rpcgen/generated/lsp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// The commands of workspace/executeCommand.
const (
	cmdCount = "notes.count" // counts the words of a document, with progress
	cmdWait  = "notes.wait"  // answers only when cancelled
)

// section is the configuration section the server asks the client for.
const section = "notes"

// server implements lsp.Server for notes.
type server struct {
	lsp.UnimplementedServer
	log  *slog.Logger
	docs *notes.Store

	mu       sync.Mutex
	caps     lsp.ClientCapabilities
	shutDown bool // shutdown was answered
	exit     bool // exit arrived
	tokens   int  // progress tokens created so far
}

func newServer(logger *slog.Logger) *server {
	return &server{log: logger, docs: notes.NewStore()}
}

// client returns the client at the other end of the connection serving ctx.
func client(ctx context.Context) lsp.Client {
	return lsp.NewClientRemote(jsonrpc.ConnFromContext(ctx))
}

// Initialize keeps the client's capabilities and announces the server's.
func (s *server) Initialize(_ context.Context, p *lsp.InitializeParams) (*lsp.InitializeResult, error) {
	s.mu.Lock()
	s.caps = p.Capabilities
	s.mu.Unlock()
	if p.ClientInfo != nil {
		s.log.Info("initialize", "client", jsonrpc.Truncate(p.ClientInfo.Name))
	}
	return &lsp.InitializeResult{
		Capabilities: lsp.ServerCapabilities{
			TextDocumentSync: lsp.NewServerCapabilitiesTextDocumentSync(lsp.TextDocumentSyncOptions{
				OpenClose: true,
				Change:    lsp.TextDocumentSyncKindFull,
			}),
			HoverProvider:          lsp.NewServerCapabilitiesHoverProvider(true),
			CompletionProvider:     &lsp.CompletionOptions{},
			ExecuteCommandProvider: &lsp.ExecuteCommandOptions{Commands: []string{cmdCount, cmdWait}},
		},
		ServerInfo: &lsp.InitializeResultServerInfo{Name: "notes"},
	}, nil
}

// Initialized registers for configuration changes and asks for the
// marker, when the client supports each.
func (s *server) Initialized(ctx context.Context, _ *lsp.InitializedParams) error {
	s.mu.Lock()
	ws := s.caps.Workspace
	s.mu.Unlock()
	if ws == nil {
		return nil
	}
	if d := ws.DidChangeConfiguration; d != nil && d.DynamicRegistration {
		err := client(ctx).ClientRegisterCapability(ctx, &lsp.RegistrationParams{Registrations: []lsp.Registration{{
			ID:              "notes-configuration",
			Method:          lsp.MethodWorkspaceDidChangeConfiguration,
			RegisterOptions: json.RawMessage(`{"section":"notes"}`),
		}}})
		if err != nil {
			s.log.Warn("client/registerCapability", "error", err)
		}
	}
	return s.configure(ctx)
}

// WorkspaceDidChangeConfiguration asks for the marker again.
func (s *server) WorkspaceDidChangeConfiguration(ctx context.Context, _ *lsp.DidChangeConfigurationParams) error {
	return s.configure(ctx)
}

// configure asks the client for the "notes" section and takes its marker.
func (s *server) configure(ctx context.Context) error {
	s.mu.Lock()
	ws := s.caps.Workspace
	s.mu.Unlock()
	if ws == nil || !ws.Configuration {
		return nil
	}
	items, err := client(ctx).WorkspaceConfiguration(ctx, &lsp.ConfigurationParams{Items: []lsp.ConfigurationItem{{Section: section}}})
	if err != nil {
		s.log.Warn("workspace/configuration", "error", jsonrpc.Truncate(err.Error()))
		return nil
	}
	var cfg struct {
		Marker string `json:"marker"`
	}
	if len(items) == 1 && string(items[0]) != "null" {
		if err := json.Unmarshal(items[0], &cfg); err != nil {
			s.log.Warn("workspace/configuration: the notes section is not {\"marker\": string}", "error", err)
		}
	}
	s.docs.SetMarker(cfg.Marker)
	return nil
}

// Shutdown answers null; exit then ends the process with status 0.
func (s *server) Shutdown(context.Context) error {
	s.mu.Lock()
	s.shutDown = true
	s.mu.Unlock()
	return nil
}

// Exit closes the connection; main then exits.
func (s *server) Exit(ctx context.Context) error {
	s.mu.Lock()
	s.exit = true
	s.mu.Unlock()
	jsonrpc.CloseAfterReply(ctx)
	return nil
}

func (s *server) exited() bool      { s.mu.Lock(); defer s.mu.Unlock(); return s.exit }
func (s *server) wasShutDown() bool { s.mu.Lock(); defer s.mu.Unlock(); return s.shutDown }
