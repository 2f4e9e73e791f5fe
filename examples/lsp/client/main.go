// Command client starts a language server, opens one file in it and prints
// the hover at a position: a small LSP 3.17 client on the generated client
// role. It answers the server's requests for configuration (empty
// settings), progress and registrations meanwhile, then shuts the server
// down.
//
//	client -file notes.txt -at 2:4 -- server [args...]
//	client -file main.go -language go -at 10:6 -- gopls serve
//
// The hover's text goes to stdout ("no hover" when the server has none);
// logs and the server's messages go to stderr.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/rpcgen/rpcgen/generated/lsp"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

func main() {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s -file FILE -at LINE:CHAR [flags] -- server-command [args...]\n\n"+
			"Starts a language server over stdio, opens FILE and prints the hover at\n"+
			"LINE:CHAR (from 0, characters in UTF-16 code units), then shuts it down.\n\nFlags:\n", os.Args[0])
		fs.PrintDefaults()
	}
	file := fs.String("file", "", "the file to open")
	language := fs.String("language", "notes", "its language id")
	at := fs.String("at", "", "the position to hover, LINE:CHAR")
	timeout := fs.Duration("timeout", time.Minute, "bound on the whole session")
	verbose := fs.Bool("v", false, "log debug details to stderr")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if err == flag.ErrHelp {
			os.Exit(0)
		}
		os.Exit(2)
	}
	var line, char uint32
	if _, err := fmt.Sscanf(*at, "%d:%d", &line, &char); err != nil || *file == "" || fs.NArg() == 0 {
		fs.Usage()
		os.Exit(2)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	text, err := hover(ctx, logger, *file, *language, lsp.Position{Line: line, Character: char}, fs.Args())
	if err != nil {
		logger.Error("client", "error", err)
		os.Exit(1)
	}
	fmt.Println(text)
}

// hover runs the session: initialize, initialized, didOpen, hover,
// shutdown, exit; it returns the hover's text.
func hover(ctx context.Context, logger *slog.Logger, file, language string, at lsp.Position, command []string) (string, error) {
	path, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	content, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	proc, err := transport.Spawn(exec.Command(command[0], command[1:]...), transport.SpawnOptions{Logger: logger})
	if err != nil {
		return "", err
	}
	defer proc.Close()
	ed := editor{log: logger}
	conn, server := lsp.ConnectClient(proc, ed, jsonrpc.Options{Logger: logger})
	defer conn.Close()

	dir := "file://" + filepath.ToSlash(filepath.Dir(path))
	uri := lsp.DocumentURI("file://" + filepath.ToSlash(path))
	init, err := server.Initialize(ctx, &lsp.InitializeParams{
		ProcessID:        ptr.To(int32(os.Getpid())),
		ClientInfo:       &lsp.XInitializeParamsClientInfo{Name: "rpcgen-lsp-client"},
		WorkspaceFolders: jsonrpc.Some([]lsp.WorkspaceFolder{{URI: lsp.URI(dir), Name: filepath.Base(filepath.Dir(path))}}),
		Capabilities: lsp.ClientCapabilities{
			Workspace: &lsp.WorkspaceClientCapabilities{Configuration: true, WorkspaceFolders: true},
			TextDocument: &lsp.TextDocumentClientCapabilities{
				Hover: &lsp.HoverClientCapabilities{ContentFormat: []lsp.MarkupKind{lsp.MarkupKindMarkdown, lsp.MarkupKindPlainText}},
			},
			General: &lsp.GeneralClientCapabilities{PositionEncodings: []lsp.PositionEncodingKind{lsp.PositionEncodingKindUTF16}},
		},
	})
	if err != nil {
		return "", fmt.Errorf("initialize: %w", err)
	}
	if init.ServerInfo != nil {
		logger.Info("server", "name", init.ServerInfo.Name)
	}
	if err := server.Initialized(ctx, &lsp.InitializedParams{}); err != nil {
		return "", err
	}
	if err := server.TextDocumentDidOpen(ctx, &lsp.DidOpenTextDocumentParams{TextDocument: lsp.TextDocumentItem{
		URI: uri, LanguageID: language, Version: 1, Text: string(content),
	}}); err != nil {
		return "", err
	}
	// LSP servers handle a request after the notifications sent before
	// it, so the hover sees the file just opened.
	h, err := server.TextDocumentHover(ctx, &lsp.HoverParams{TextDocument: lsp.TextDocumentIdentifier{URI: uri}, Position: at})
	if err != nil {
		return "", fmt.Errorf("hover: %w", err)
	}
	if err := server.Shutdown(ctx); err != nil {
		return "", fmt.Errorf("shutdown: %w", err)
	}
	if err := server.Exit(ctx); err != nil {
		return "", fmt.Errorf("exit: %w", err)
	}
	select {
	case <-proc.Done():
	case <-ctx.Done():
		return "", fmt.Errorf("the server did not exit: %w", ctx.Err())
	}
	if err := proc.ExitErr(); err != nil {
		return "", fmt.Errorf("the server exited with %w", err)
	}
	return hoverText(h), nil
}

// hoverText renders a hover's contents as text.
func hoverText(h *lsp.Hover) string {
	if h == nil {
		return "no hover"
	}
	c := h.Contents
	switch {
	case c.MarkupContent != nil:
		return c.MarkupContent.Value
	case c.MarkedString != nil:
		b, _ := json.Marshal(c.MarkedString)
		return string(b)
	case c.Array != nil:
		b, _ := json.Marshal(c.Array)
		return string(b)
	}
	return "no hover"
}

// editor is the client role: empty settings for each configuration item,
// and every progress token and registration accepted.
type editor struct {
	lsp.UnimplementedClient
	log *slog.Logger
}

func (editor) WorkspaceConfiguration(_ context.Context, p *lsp.ConfigurationParams) ([]lsp.LSPAny, error) {
	out := make([]lsp.LSPAny, len(p.Items))
	for i := range out {
		out[i] = json.RawMessage(`{}`)
	}
	return out, nil
}

func (editor) WindowWorkDoneProgressCreate(context.Context, *lsp.WorkDoneProgressCreateParams) error {
	return nil
}

func (editor) ClientRegisterCapability(context.Context, *lsp.RegistrationParams) error { return nil }

func (editor) ClientUnregisterCapability(context.Context, *lsp.UnregistrationParams) error {
	return nil
}

func (e editor) WindowLogMessage(_ context.Context, p *lsp.LogMessageParams) error {
	e.log.Debug("server log", "message", p.Message)
	return nil
}

func (e editor) TextDocumentPublishDiagnostics(_ context.Context, p *lsp.PublishDiagnosticsParams) error {
	for _, d := range p.Diagnostics {
		e.log.Info("diagnostic", "uri", p.URI, "line", d.Range.Start.Line, "character", d.Range.Start.Character, "message", d.Message)
	}
	return nil
}
