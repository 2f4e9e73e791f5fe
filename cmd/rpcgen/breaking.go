package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rpcgen/rpcgen/idl"
	"github.com/rpcgen/rpcgen/idl/breaking"
)

// exitInvalid is the exit status of rpcgen breaking when a protocol cannot
// be read or is not valid, so that CI tells it from a breaking change (1).
const exitInvalid = 3

// exitError is an error that ends rpcgen with its own exit status.
type exitError struct {
	status int
	err    error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

// ExitStatus returns the exit status rpcgen ends with.
func (e exitError) ExitStatus() int { return e.status }

const breakingHelp = `Usage: rpcgen breaking [flags] OLD.yaml NEW.yaml
       rpcgen breaking [flags] -against REV NEW.yaml

Report the changes from OLD to NEW that break peers on the wire (class
wire: a peer built from one version refuses or misreads a message of a peer
built from the other) or only Go code written against the generated package
(class go). With -against, OLD is NEW's file (and the files it includes) as
it is at the git revision REV. Each finding is a line
"file:line:col: class: RULE: message", at NEW's position of the change, or
OLD's for what was removed.

Exit status: 0 when nothing breaks, 1 when something does (Go-only changes
too, unless -wire-only leaves them out), 2 on a usage error, 3 when a
protocol cannot be read, is not valid, or git fails.
`

// runBreaking implements rpcgen breaking.
func runBreaking(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	against := fs.String("against", "", "git `revision` holding the old version of NEW (read with git show REV:path)")
	wireOnly := fs.Bool("wire-only", false, "report only the changes that break peers on the wire")
	asJSON := fs.Bool("json", false, "write one JSON object per finding (rule, class, file, line, col, old, revision, message)")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	want := 2
	if *against != "" {
		want = 1
	}
	if len(files) != want {
		fmt.Fprintf(fs.Output(), "%s: want %d protocol files, got %d arguments\n", fs.Name(), want, len(files))
		return errUsage
	}
	cur, err := idl.Load(files[want-1])
	if err != nil {
		return exitError{exitInvalid, err}
	}
	var old *idl.Protocol
	if *against != "" {
		old, err = loadAt(*against, files[0])
	} else {
		old, err = idl.Load(files[0])
	}
	if err != nil {
		return exitError{exitInvalid, err}
	}
	var found []breaking.Finding
	wire := 0
	for _, f := range breaking.Compare(old, cur) {
		if f.Class == breaking.Wire {
			wire++
		} else if *wireOnly {
			continue
		}
		found = append(found, f)
	}
	if err := writeFindings(stdout, found, *against, *asJSON); err != nil {
		return err
	}
	if len(found) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %d on the wire, %d in Go only", plural(len(found), "breaking change"), wire, len(found)-wire)
}

// plural writes n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// finding is the JSON form of a breaking.Finding.
type finding struct {
	Rule     string `json:"rule"`
	Class    string `json:"class"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Old      bool   `json:"old"`                // the position is in the old version
	Revision string `json:"revision,omitempty"` // -against's revision, for old positions
	Message  string `json:"message"`
}

// writeFindings writes the findings as text or JSON lines; positions in
// the old version read from git are written REV:file:line:col.
func writeFindings(w io.Writer, found []breaking.Finding, rev string, asJSON bool) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, f := range found {
		file := filepath.ToSlash(f.Pos.File)
		if asJSON {
			j := finding{Rule: f.Rule, Class: string(f.Class), File: file, Line: f.Pos.Line, Col: f.Pos.Col, Old: f.Old, Message: f.Message}
			if f.Old {
				j.Revision = rev
			}
			if err := enc.Encode(j); err != nil {
				return err
			}
			continue
		}
		if f.Old && rev != "" {
			file = rev + ":" + file
		}
		fmt.Fprintf(&b, "%s:%d:%d: %s: %s: %s\n", file, f.Pos.Line, f.Pos.Col, f.Class, f.Rule, f.Message)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// loadAt loads the protocol file at path, and the files it includes, as
// they are at the git revision rev of the repository holding path.
func loadAt(rev, path string) (*idl.Protocol, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	abs = realPath(abs)
	top, err := git(filepath.Dir(abs), "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("-against %s: %s is not in a git repository: %w", rev, path, err)
	}
	top = realPath(strings.TrimSpace(top))
	if _, err := git(top, "rev-parse", "--verify", "--quiet", rev+"^{commit}"); err != nil {
		return nil, fmt.Errorf("-against %s: no such revision in %s", rev, top)
	}
	read := func(file string) ([]byte, error) {
		a, err := filepath.Abs(file)
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(top, realPath(a))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("%s is outside the git repository %s: %w", file, top, fs.ErrNotExist)
		}
		out, err := git(top, "show", rev+":"+filepath.ToSlash(rel))
		if err != nil {
			return nil, fmt.Errorf("%s at %s: %w (%w)", rel, rev, err, fs.ErrNotExist)
		}
		return []byte(out), nil
	}
	src, err := read(abs)
	if err != nil {
		return nil, fmt.Errorf("-against %s: reading %s: %w", rev, path, err)
	}
	return idl.ParseFunc(path, src, read)
}

// realPath resolves the symbolic links of path when it can, so that paths
// compare with git's top level.
func realPath(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return path
}

// git runs git in dir and returns its standard output, or an error
// holding its standard error.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(errOut.String()); msg != "" {
			return "", fmt.Errorf("git %s: %s", args[0], msg)
		}
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return out.String(), nil
}
