// Command server is a small LSP 3.17 language server for "notes": plain
// text in which every occurrence of a marker word (TODO unless the
// client's "notes" configuration names another) gets a warning, hovering a
// word tells how often it occurs, and completion offers the document's
// words. The command notes.count counts the words with work-done progress;
// notes.wait waits until it is cancelled.
//
// It speaks over stdin and stdout with Content-Length framing, and logs to
// stderr. interop/lsp/README.md describes its behaviour in full.
//
// It keeps at most 256 open documents of at most 256 KiB each and 4 MiB in
// all (notes.MaxDocs, MaxDocBytes, MaxTotalBytes): a document opened or
// changed past them is closed, and the client gets a window/showMessage
// warning saying so.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/rpcgen/rpcgen/generated/lsp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

func main() {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s [flags]\n\n"+
			"A language server for notes on stdin and stdout (LSP 3.17, Content-Length framing).\n"+
			"Start it from an LSP client; it logs to stderr.\n\nFlags:\n", os.Args[0])
		fs.PrintDefaults()
	}
	verbose := fs.Bool("v", false, "log debug details to stderr")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if err == flag.ErrHelp {
			os.Exit(0)
		}
		os.Exit(2)
	}
	if fs.NArg() > 0 {
		fs.Usage()
		os.Exit(2)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	s := newServer(logger)
	conn, _ := lsp.ConnectServer(transport.Stdio(), s, jsonrpc.Options{Logger: logger})
	err := conn.Wait()
	switch {
	case s.exited() && s.wasShutDown():
		logger.Debug("exit after shutdown")
		os.Exit(0)
	case s.exited():
		logger.Info("exit without shutdown")
		os.Exit(1)
	case err != nil && !errors.Is(err, jsonrpc.ErrPeerClosed) && !errors.Is(err, jsonrpc.ErrClosed):
		logger.Error("session ended", "error", err)
	default:
		logger.Info("the client closed the connection without exit")
	}
	os.Exit(1)
}
