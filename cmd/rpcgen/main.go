// Command rpcgen generates typed Go, JSON Schemas and a Markdown reference
// from a YAML description of a JSON-RPC 2.0 protocol.
//
// Usage:
//
//	rpcgen generate [-out dir] [-package name] protocol.yaml
//	rpcgen check protocol.yaml...
//	rpcgen docs [-out file] protocol.yaml
//	rpcgen schema [-out dir] [-bundle] protocol.yaml
//	rpcgen import lsp [-o file] [-schema ref] metaModel.json
//	rpcgen version
//
// Exit status: 0 on success, 1 when the IDL is invalid or output could not
// be written, 2 on a usage error. It works from //go:generate:
//
//	//go:generate go run github.com/rpcgen/rpcgen/cmd/rpcgen generate -out . protocol.yaml
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"

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
	// run parses its flags with fs and runs; it returns an error to print
	// (exit 1) or errUsage (exit 2).
	run func(fs *flag.FlagSet, args []string, stdout io.Writer) error
}

// errUsage reports a usage error already explained on stderr.
var errUsage = errors.New("usage")

var commands = []*command{
	{name: "generate", args: "protocol.yaml", summary: "write the Go package, schema/ and README.md of a protocol", run: runGenerate},
	{name: "check", args: "protocol.yaml...", summary: "validate protocol descriptions and report every error as file:line:col", run: runCheck},
	{name: "docs", args: "protocol.yaml", summary: "write the Markdown reference of a protocol", run: runDocs},
	{name: "schema", args: "protocol.yaml", summary: "write the JSON Schemas of a protocol", run: runSchema},
	{name: "import", args: "lsp META_MODEL.json", summary: "convert LSP's metaModel.json into an IDL file (to standard output, or -o file)", run: runImport},
	{name: "version", summary: "print the rpcgen version", run: runVersion},
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
		fs.Usage = func() {
			fmt.Fprintf(fs.Output(), "Usage: rpcgen %s [flags] %s\n\n%s.\n", c.name, c.args, capitalize(c.summary))
			if hasFlags(fs) {
				fmt.Fprintln(fs.Output(), "\nFlags:")
				fs.PrintDefaults()
			}
		}
		err := c.run(fs, args[1:], stdout)
		switch {
		case err == nil:
			return exitOK
		case errors.Is(err, flag.ErrHelp):
			fs.SetOutput(stdout)
			fs.Usage()
			return exitOK
		case errors.Is(err, errUsage):
			return exitUsage
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
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nRun 'rpcgen <command> -h' for a command's flags.\n")
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

// parse parses flags and checks the number of positional arguments:
// exactly one when single, at least one otherwise.
func parse(fs *flag.FlagSet, args []string, single bool) ([]string, error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, errUsage
	}
	rest := fs.Args()
	if len(rest) == 0 || single && len(rest) > 1 {
		want := "one protocol file"
		if !single {
			want = "at least one protocol file"
		}
		fmt.Fprintf(fs.Output(), "%s: want %s, got %d arguments\n", fs.Name(), want, len(rest))
		fs.Usage()
		return nil, errUsage
	}
	return rest, nil
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
