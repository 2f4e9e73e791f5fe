// Command extension is a Hermes extension: HL7 tools that Hermes, or the
// example host next to it, starts as a child process and drives over
// stdin and stdout with Content-Length framed JSON-RPC.
//
// It registers these commands, each with a toolbar button:
//
//	hl7tools/normaliseName   upper-cases the patient name (PID-5.1, PID-5.2)
//	hl7tools/export          saves the message to a file the user picks
//	hl7tools/exportToFolder  saves the message into a folder the user picks
//	hl7tools/import          replaces the message with a file, after confirmation
//	hl7tools/check           checks files the user picks for basic HL7 validity
//	hl7tools/preview         opens (or closes) a live HTML preview window
//
// It subscribes to message/opened, message/saved and message/changed (with
// content, to keep the preview live), and overrides the schema of a few
// PID fields. Commands run one at a time, in the order they arrive; every
// outcome is reported with ui/showMessage and logged to stderr.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/rpcgen/rpcgen/generated/hermes"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// exitGrace is how long the extension waits, once it has answered
// shutdown, for Hermes to close its stdin before exiting anyway.
const exitGrace = 2 * time.Second

func main() {
	fs := flag.NewFlagSet("extension", flag.ExitOnError)
	verbose := fs.Bool("v", false, "log protocol diagnostics too")
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintf(out, "Usage: extension [-v]\n\n")
		fmt.Fprintf(out, "A Hermes extension offering HL7 tools. Hermes starts it and talks to it\n")
		fmt.Fprintf(out, "over stdin and stdout; logs go to stderr. Add its path in the Hermes\n")
		fmt.Fprintf(out, "extension settings, or run it under the example host:\n\n")
		fmt.Fprintf(out, "  host -run hl7tools/normaliseName -- extension\n\n")
		fs.PrintDefaults()
	}
	_ = fs.Parse(os.Args[1:])
	if err := run(*verbose); err != nil {
		fmt.Fprintf(os.Stderr, "[ERROR] %v\n", err)
		os.Exit(1)
	}
}

// run serves Hermes on stdin and stdout until Hermes closes stdin, or
// shortly after the extension answered shutdown.
func run(verbose bool) error {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	logf("started by Hermes %s (API %s), data directory %q",
		os.Getenv("HERMES_VERSION"), os.Getenv("HERMES_API_VERSION"), os.Getenv("HERMES_DATA_DIR"))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ext := newExtension(ctx)
	conn, host := hermes.ConnectExtension(transport.Stdio(), ext, jsonrpc.Options{Logger: logger})
	ext.start(host)

	select {
	case <-conn.Done():
	case <-ext.stopped:
		// Hermes closes our stdin once it has the answer; if it does not,
		// leave anyway: the answer was written long before exitGrace.
		t := time.NewTimer(exitGrace)
		select {
		case <-conn.Done():
		case <-t.C:
		}
		t.Stop()
	}
	ext.stop()
	if err := conn.Err(); err != nil && !errors.Is(err, jsonrpc.ErrPeerClosed) && !errors.Is(err, io.EOF) && !errors.Is(err, jsonrpc.ErrClosed) {
		return fmt.Errorf("connection to Hermes: %w", err)
	}
	logf("exiting")
	return nil
}

// logf writes an [INFO] line to stderr, which Hermes shows in its
// extension log viewer.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[INFO] "+format+"\n", args...)
}

// warnf writes a [WARN] line to stderr.
func warnf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[WARN] "+format+"\n", args...)
}

// errorf writes an [ERROR] line to stderr.
func errorf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[ERROR] "+format+"\n", args...)
}
