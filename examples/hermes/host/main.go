// Command host is a headless Hermes: it starts a Hermes extension as a
// child process, runs the initialize handshake, triggers the extension's
// commands, serves its editor/* and ui/* requests against an HL7 message
// held in memory, and shuts it down. Dialogues are answered from flags.
//
// Usage:
//
//	host [flags] -- extension-command [args...]
//
// The resulting message is printed on stdout (one segment per line) or,
// with -out, saved to a file. Everything else is logged to stderr,
// including the extension's own stderr.
//
// Timeouts are those of the protocol: an extension that does not answer
// initialize within 10 s is marked failed and stopped (exit status 1); one
// that does not answer shutdown within 5 s is killed with SIGKILL (exit
// status 1).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// sample is the message edited when no -in file is given.
const sample = "MSH|^~\\&|ADT|GENHOSP|HERMES|GENHOSP|20240301101500||ADT^A01|MSG00042|P|2.5.1\r" +
	"EVN|A01|20240301101500\r" +
	"PID|1||12345678^^^GENHOSP^MR||doe^jane^q||19800101|F\r" +
	"PV1|1|I|WARD1^101^A"

// config is what the flags say.
type config struct {
	in, out         string
	noMessage       bool
	run             []string
	idle            time.Duration
	initTimeout     time.Duration
	shutdownTimeout time.Duration
	dataDir         string
	answers         answers
	command         []string
}

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintf(os.Stderr, "host: %v\n", err)
		os.Exit(2)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(cfg, logger, os.Stdout); err != nil {
		logger.Error("host failed", "error", err)
		os.Exit(1)
	}
}

// parseFlags reads the command line.
func parseFlags(args []string, stderr io.Writer) (*config, error) {
	cfg := &config{}
	fs := flag.NewFlagSet("host", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var run, openFile, openFiles, saveFile, dir string
	fs.StringVar(&cfg.in, "in", "", "HL7 `file` to open (segments separated by CR, LF or CRLF); default: a built-in ADT^A01 sample")
	fs.BoolVar(&cfg.noMessage, "no-message", false, "start with no message open")
	fs.StringVar(&cfg.out, "out", "", "save the resulting message to `file` (sends message/saved) instead of printing it")
	fs.StringVar(&run, "run", "", "comma-separated `commands` to trigger, in order; default: none (the registered commands are logged)")
	fs.DurationVar(&cfg.idle, "idle", 500*time.Millisecond, "a command is taken as finished once the extension has made no request for this `long`")
	fs.DurationVar(&cfg.initTimeout, "init-timeout", 10*time.Second, "how long to wait for the answer to initialize; 0 waits for ever")
	fs.DurationVar(&cfg.shutdownTimeout, "shutdown-timeout", 5*time.Second, "how long to wait for the answer to shutdown before SIGKILL; 0 waits for ever")
	fs.StringVar(&cfg.dataDir, "data-dir", filepath.Join(os.TempDir(), "hermes-data"), "data `directory` passed to the extension")
	fs.BoolVar(&cfg.answers.confirm, "confirm", true, "answer to confirmation dialogues")
	fs.StringVar(&openFile, "open-file", "", "`path` chosen in open-file dialogues; empty cancels")
	fs.StringVar(&openFiles, "open-files", "", "comma-separated `paths` chosen in open-files dialogues; empty cancels")
	fs.StringVar(&saveFile, "save-file", "", "`path` chosen in save dialogues; empty cancels")
	fs.StringVar(&dir, "select-dir", "", "`directory` chosen in directory dialogues; empty cancels")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: host [flags] -- extension-command [args...]\n\n")
		fmt.Fprintf(fs.Output(), "Runs a Hermes extension against an in-memory HL7 message, headless.\n")
		fmt.Fprintf(fs.Output(), "Serves the message in every format of the protocol: hl7, json, yaml and toml.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	cfg.command = fs.Args()
	if cfg.idle <= 0 {
		return nil, errors.New("-idle must be positive")
	}
	if len(cfg.command) == 0 {
		fs.Usage()
		return nil, errors.New("no extension command given")
	}
	cfg.run = list(run)
	cfg.answers.openFiles = list(openFiles)
	cfg.answers.openFile, cfg.answers.saveFile, cfg.answers.directory = optional(openFile), optional(saveFile), optional(dir)
	return cfg, nil
}

// list splits a comma-separated flag; empty gives nil.
func list(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// optional returns nil for "" (a cancelled dialogue).
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// run loads the message and runs one session.
func run(cfg *config, logger *slog.Logger, stdout io.Writer) error {
	ed := &editor{log: logger, answers: cfg.answers, windows: map[string]bool{}, schema: baseSchema()}
	if !cfg.noMessage {
		text, path := sample, ""
		if cfg.in != "" {
			b, err := os.ReadFile(cfg.in)
			if err != nil {
				return fmt.Errorf("opening the message: %w", err)
			}
			text, path = string(b), cfg.in
		}
		m, err := parseHL7(text)
		if err != nil {
			return fmt.Errorf("opening the message: %w", err)
		}
		ed.msg, ed.filePath = m, path
	}
	cmd := exec.Command(cfg.command[0], cfg.command[1:]...)
	cmd.Env = append(os.Environ(), "HERMES_VERSION="+hermesVersion, "HERMES_API_VERSION="+apiVersion, "HERMES_DATA_DIR="+cfg.dataDir)
	if err := session(context.Background(), cfg, ed, cmd); err != nil {
		return err
	}
	if cfg.out != "" || ed.msg == nil {
		return nil
	}
	_, err := fmt.Fprintln(stdout, strings.ReplaceAll(ed.msg.hl7(), "\r", "\n"))
	return err
}
