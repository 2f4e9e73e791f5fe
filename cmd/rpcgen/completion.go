package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// The shells rpcgen completion writes a script for, each with the function
// that writes it.
var completionScripts = map[string]func(w io.Writer, specs []*completionSpec){
	"bash": bashCompletion,
	"zsh":  zshCompletion,
	"fish": fishCompletion,
}

// commandTable returns the command table. runCompletion, itself in the
// table, reads it through this variable, set by init: reading commands
// directly would make its initialization refer to itself.
var commandTable func() []*command

func init() { commandTable = func() []*command { return commands } }

func runCompletion(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() != 1 || completionScripts[fs.Arg(0)] == nil {
		fmt.Fprintf(fs.Output(), "%s: want one shell, bash, zsh or fish, got %q\n", fs.Name(), fs.Args())
		fs.Usage()
		return errUsage
	}
	var specs []*completionSpec
	for _, c := range commandTable() {
		specs = append(specs, specOf(c))
	}
	completionScripts[fs.Arg(0)](stdout, specs)
	return nil
}

// completionSpec is what a shell needs to complete one command.
type completionSpec struct {
	name, summary string
	flags         []flagSpec
	args          []argSpec // the positional arguments, in order
	repeat        bool      // the last argument may be given again
}

// flagSpec is one flag of a command.
type flagSpec struct {
	name, usage string
	value       valueKind
}

// valueKind is what a flag's value is.
type valueKind int

const (
	noValue   valueKind = iota // a boolean flag
	dirValue                   // a directory
	fileValue                  // a file
	textValue                  // anything else: nothing to complete
)

// argSpec is one positional argument: one of words, or else a file,
// named ext when ext is not empty.
type argSpec struct {
	words []string
	ext   string
	label string // as the synopsis writes it, e.g. protocol.yaml
}

// specOf reads a command's flags from the flag set its run function
// defines, asking it for help (every command defines its flags, then
// parses; -h stops it there), and its arguments from its synopsis.
func specOf(c *command) *completionSpec {
	s := &completionSpec{name: c.name, summary: c.summary}
	fs := flag.NewFlagSet("rpcgen "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	_ = c.run(fs, []string{"-h"}, io.Discard)
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		kind := textValue
		switch {
		case isBool(f):
			kind = noValue
		case name == "directory" || name == "dir":
			kind = dirValue
		case name == "file":
			kind = fileValue
		}
		s.flags = append(s.flags, flagSpec{name: f.Name, usage: firstLine(usage), value: kind})
	})
	s.args, s.repeat = parseSynopsis(c.args)
	return s
}

// isBool reports whether f is a boolean flag, which takes no value.
func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// fileArg matches a synopsis word naming a file by its extension, such as
// protocol.yaml or META_MODEL.json.
var fileArg = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*\.([A-Za-z0-9]+)$`)

// parseSynopsis reads the positional arguments of a command synopsis:
// "a|b" is one of words, a lower-case word is itself, NAME.ext a file of
// that extension, anything else any file; a trailing "..." repeats the
// last.
func parseSynopsis(synopsis string) ([]argSpec, bool) {
	var args []argSpec
	repeat := false
	for _, word := range strings.Fields(synopsis) {
		word = strings.Trim(word, "[]")
		if w, ok := strings.CutSuffix(word, "..."); ok {
			word, repeat = w, true
		}
		a := argSpec{label: word}
		switch m := fileArg.FindStringSubmatch(word); {
		case strings.Contains(word, "|"):
			a.words = strings.Split(word, "|")
		case m != nil:
			a.ext = m[1]
		case word == strings.ToLower(word) && !strings.ContainsAny(word, "./"):
			a.words = []string{word}
		}
		args = append(args, a)
	}
	return args, repeat
}

// firstLine returns the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}

// valueFlags returns the names of spec's flags that take a value.
func (s *completionSpec) valueFlags() []string {
	var names []string
	for _, f := range s.flags {
		if f.value != noValue {
			names = append(names, f.name)
		}
	}
	return names
}

// commandNames returns the names of the commands, in table order.
func commandNames(specs []*completionSpec) []string {
	var names []string
	for _, s := range specs {
		names = append(names, s.name)
	}
	return names
}

// quote quotes s for a POSIX shell or fish, in single quotes.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// fishQuote quotes s for fish, whose single quotes escape ' and \.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}
