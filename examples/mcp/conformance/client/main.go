// Command client is the MCP client the official conformance suite's client
// scenarios drive (`conformance client --command client --scenario NAME`):
// the suite starts a server for the scenario, runs this program with the
// server's URL as its last argument and the scenario's name in the
// environment variable MCP_CONFORMANCE_SCENARIO (scenario data, such as
// pre-registered credentials, in MCP_CONFORMANCE_CONTEXT as JSON), and
// checks what the client does.
//
// The program speaks Streamable HTTP through runtime/streamhttp with the
// generated mcp package, and authorizes through runtime/oauth where the
// server asks for it, following the authorization server's redirect
// itself (the suite's servers approve at once). It exits 0 when the
// scenario's steps all succeeded and 1 otherwise.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"
)

// Environment variables the suite sets.
const (
	envScenario = "MCP_CONFORMANCE_SCENARIO"
	envContext  = "MCP_CONFORMANCE_CONTEXT"
)

func main() {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s=NAME %s [flags] SERVER-URL\n\n"+
			"Runs the conformance suite's client scenario NAME against the MCP server at\n"+
			"SERVER-URL (the suite sets both). Scenarios:\n", envScenario, os.Args[0])
		for _, s := range scenarioNames() {
			fmt.Fprintln(fs.Output(), "  "+s)
		}
		fmt.Fprintln(fs.Output(), "\nFlags:")
		fs.PrintDefaults()
	}
	timeout := fs.Duration("timeout", 25*time.Second, "bound on the whole scenario (the suite allows 30s)")
	verbose := fs.Bool("v", false, "log debug details to stderr")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(2)
	}
	name := os.Getenv(envScenario)
	if fs.NArg() != 1 || name == "" {
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
	if err := run(ctx, name, fs.Arg(0), os.Getenv(envContext), logger); err != nil {
		logger.Error("scenario failed", "scenario", name, "error", err)
		os.Exit(1)
	}
	logger.Info("scenario done", "scenario", name)
}
