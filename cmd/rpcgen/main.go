// Command rpcgen generates typed Go, JSON Schemas and a Markdown reference
// from a YAML description of a JSON-RPC 2.0 protocol.
//
// Usage:
//
//	rpcgen generate [-out dir] [-package name] [-check] [-go] [-schema] [-docs] [-openrpc] protocol.yaml
//	rpcgen generate [-config rpcgen.yaml] [-check] [-go] [-schema] [-docs] [-openrpc]
//	rpcgen check protocol.yaml...
//	rpcgen docs [-out file] protocol.yaml
//	rpcgen schema [-out dir] protocol.yaml
//	rpcgen schema -bundle [-out file] protocol.yaml
//	rpcgen openrpc [-out file] protocol.yaml
//	rpcgen import lsp [-o file] [-schema ref] metaModel.json
//	rpcgen breaking [-wire-only] [-json] OLD.yaml NEW.yaml | -against REV NEW.yaml
//	rpcgen version
//	rpcgen completion bash|zsh|fish
//
// Flags may come before or after the protocol file. generate writes, below
// -out, a .rpcgen-manifest listing the files it wrote; a later run removes
// the listed files it no longer writes, if they still look generated, and
// nothing else; a run that fails after writing some files removes nothing
// and adds those to the manifest. -go, -schema, -docs and -openrpc select
// outputs (default: all).
// With -check it writes nothing, prints a unified diff of what it would
// change and exits 1 when the output on disk is stale.
//
// Given no protocol file, generate reads the project file ./rpcgen.yaml
// (or -config FILE), which lists IDL files or globs, relative to it, and
// where and what to generate for each:
//
//	defaults:
//	  out: generated/{name}        # {name}: the IDL file's name without .yaml
//	  outputs: [go, schema, docs, openrpc]
//	protocols:
//	  - idl: protocols/*.yaml
//	  - idl: bench/bench.yaml
//	    out: bench/benchproto
//	    package: benchproto
//
// Its errors are reported as file:line:col, like the IDL's.
//
// Exit status: 0 on success, 1 when the IDL is invalid or output could not
// be written or -check found it stale, 2 on a usage error; rpcgen breaking
// exits 1 when it finds a breaking change and 3 when a protocol is not
// valid. It works from
// //go:generate:
//
//	//go:generate go tool rpcgen generate -out . protocol.yaml
//	//go:generate go tool rpcgen generate        # everything rpcgen.yaml lists
//
// once `go get -tool github.com/rpcgen/rpcgen/cmd/rpcgen` has made it a
// tool of the module.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/rpcgen/rpcgen/gen"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// command is one rpcgen subcommand.
type command struct {
	name    string
	args    string // argument synopsis after the flags
	summary string
	// help, when set, replaces the synopsis and summary in the command's
	// usage (the text before its flags).
	help string
	// run parses its flags with fs and runs; it returns an error to print
	// (exit 1) or errUsage (exit 2).
	run func(fs *flag.FlagSet, args []string, stdout io.Writer) error
}

// errUsage reports a usage error already explained on stderr.
var errUsage = errors.New("usage")

var commands = []*command{
	{name: "generate", args: "[protocol.yaml]", summary: "write the Go package, schema/ and README.md of a protocol, or of every protocol rpcgen.yaml lists", run: runGenerate},
	{name: "check", args: "protocol.yaml...", summary: "validate protocol descriptions and report every error as file:line:col", run: runCheck},
	{name: "docs", args: "protocol.yaml", summary: "write the Markdown reference of a protocol", run: runDocs},
	{name: "schema", args: "protocol.yaml", summary: "write the JSON Schemas of a protocol", run: runSchema},
	{name: "openrpc", args: "protocol.yaml", summary: "write the OpenRPC document of a protocol", run: runOpenRPC},
	{name: "import", args: "lsp META_MODEL.json", summary: "convert LSP's metaModel.json into an IDL file (to standard output, or -o file)", run: runImport},
	{name: "breaking", args: "OLD.yaml NEW.yaml", summary: "report the changes that break peers on the wire or Go callers (exit 1), against a file or a git revision", help: breakingHelp, run: runBreaking},
	{name: "version", summary: "print the rpcgen version", run: runVersion},
	{name: "completion", args: "bash|zsh|fish", summary: "print the shell completion script of rpcgen for bash, zsh or fish", run: runCompletion},
}

// run executes one rpcgen command and returns the process exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return exitOK
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		fs := flag.NewFlagSet("rpcgen "+c.name, flag.ContinueOnError)
		fs.SetOutput(stderr)
		// The flag package calls Usage on -h and on a bad flag: run prints
		// the usage once, below, to stdout or stderr.
		fs.Usage = func() {}
		err := c.run(fs, args[1:], stdout)
		switch {
		case err == nil:
			return exitOK
		case errors.Is(err, flag.ErrHelp):
			commandUsage(stdout, fs, c)
			return exitOK
		case errors.Is(err, errUsage):
			commandUsage(stderr, fs, c)
			return exitUsage
		}
		// A command with exit statuses of its own (rpcgen breaking).
		var st interface{ ExitStatus() int }
		if errors.As(err, &st) {
			fmt.Fprintln(stderr, err)
			return st.ExitStatus()
		}
		fmt.Fprintln(stderr, err)
		return exitFail
	}
	fmt.Fprintf(stderr, "rpcgen: unknown command %q\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, "Usage: rpcgen <command> [flags] [arguments]\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nRun 'rpcgen <command> -h' for a command's flags.\n")
}

// commandUsage prints the usage of command c, whose flags fs defines, to w.
func commandUsage(w io.Writer, fs *flag.FlagSet, c *command) {
	if c.help != "" {
		fmt.Fprint(w, c.help)
	} else {
		fmt.Fprintf(w, "Usage: rpcgen %s [flags] %s\n\n%s.\n", c.name, c.args, capitalize(c.summary))
	}
	if hasFlags(fs) {
		fmt.Fprintln(w, "\nFlags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// parse parses flags, which may come before, between or after the
// positional arguments (until "--"), and checks the number of positional
// arguments: exactly one when single, at least one otherwise.
func parse(fs *flag.FlagSet, args []string, single bool) ([]string, error) {
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		return nil, err
	}
	if len(rest) == 0 || single && len(rest) > 1 {
		want := "one protocol file"
		if !single {
			want = "at least one protocol file"
		}
		fmt.Fprintf(fs.Output(), "%s: want %s, got %d arguments%s\n", fs.Name(), want, len(rest), extraHint(fs, rest))
		return nil, errUsage
	}
	return rest, nil
}

// parseInterleaved parses the flags found anywhere in args, which Go's
// flag package stops at the first positional argument, and returns the
// positional arguments. Everything after "--" is positional.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, errUsage
		}
		left := fs.Args()
		if len(left) == 0 {
			return rest, nil
		}
		if n := len(args) - len(left); n > 0 && args[n-1] == "--" {
			return append(rest, left...), nil
		}
		rest = append(rest, left[0])
		args = left[1:]
	}
}

// extraHint lists the positional arguments given and the flags fs knows,
// for a message about too many arguments: a flag's value without its flag
// is the usual cause.
func extraHint(fs *flag.FlagSet, rest []string) string {
	if len(rest) < 2 {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, "-"+f.Name) })
	hint := " (" + strings.Join(rest, ", ") + ")"
	if len(names) > 0 {
		hint += "; flags start with a dash and may come before or after the file: " + strings.Join(names, ", ")
	}
	return hint
}

func runVersion(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	_, err := fmt.Fprintln(stdout, "rpcgen", version())
	return err
}

// version reports rpcgen's version, the one generated files name, and
// the module version it was built from when that differs.
func version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" && info.Main.Version != gen.Version {
		return gen.Version + " (module " + info.Main.Version + ")"
	}
	return gen.Version
}
