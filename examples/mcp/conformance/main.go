// Command conformance is the Model Context Protocol server the official
// MCP conformance suite (npm @modelcontextprotocol/conformance) tests: it
// offers the tools, resources, prompts and completions the suite's server
// scenarios call by name, over Streamable HTTP at /mcp.
//
//	conformance -http 127.0.0.1:3001
//
// Once it accepts connections it writes "listening on URL" to stderr.
// Each session has its own state (the client's capabilities, its log
// level, its subscriptions). interop/mcpconformance runs the suite against
// it.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s -http ADDR [flags]\n\n"+
			"The MCP server the official conformance suite tests, over Streamable HTTP at /mcp.\n\nFlags:\n", os.Args[0])
		fs.PrintDefaults()
	}
	addr := fs.String("http", "", "serve at `ADDR` (host:port; port 0 picks a free port)")
	verbose := fs.Bool("v", false, "log debug details to stderr")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if err == flag.ErrHelp {
			os.Exit(0)
		}
		os.Exit(2)
	}
	if fs.NArg() > 0 || *addr == "" {
		fs.Usage()
		os.Exit(2)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serveHTTP(ctx, *addr, logger); err != nil {
		logger.Error("serving", "error", err)
		os.Exit(1)
	}
}
