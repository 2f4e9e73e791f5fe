package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// script returns the completion script rpcgen writes for shell.
func script(t *testing.T, shell string) string {
	t.Helper()
	status, out, errOut := runCLI(t, "completion", shell)
	if status != 0 || out == "" {
		t.Fatalf("rpcgen completion %s = %d, %d bytes (%s)", shell, status, len(out), errOut)
	}
	return out
}

// helpFlag matches a flag line of a command's -h output.
var helpFlag = regexp.MustCompile(`(?m)^  -([A-Za-z0-9_-]+)`)

// flagsFromHelp returns the flags a command's -h output lists.
func flagsFromHelp(t *testing.T, name string) []string {
	t.Helper()
	status, out, _ := runCLI(t, name, "-h")
	if status != 0 {
		t.Fatalf("rpcgen %s -h = %d", name, status)
	}
	var flags []string
	for _, m := range helpFlag.FindAllStringSubmatch(out, -1) {
		flags = append(flags, m[1])
	}
	return flags
}

func TestCompletionNamesEveryCommandAndFlag(t *testing.T) {
	flags := 0
	for _, shell := range []string{"bash", "zsh", "fish"} {
		s := script(t, shell)
		for _, c := range commands {
			if !regexp.MustCompile(`\b` + regexp.QuoteMeta(c.name) + `\b`).MatchString(s) {
				t.Errorf("%s: no command %s", shell, c.name)
			}
			for _, f := range flagsFromHelp(t, c.name) {
				flags++
				want := "-" + f // bash and zsh
				if shell == "fish" {
					want = "-o " + f
				}
				if !strings.Contains(s, want) {
					t.Errorf("%s: no flag -%s of %s", shell, f, c.name)
				}
			}
		}
	}
	if flags == 0 {
		t.Error("no command has a flag: the -h output has changed form")
	}
}

func TestCompletionUsage(t *testing.T) {
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}} {
		status, _, errOut := runCLI(t, args...)
		if status != exitUsage || !strings.Contains(errOut, "want one shell, bash, zsh or fish") {
			t.Errorf("rpcgen %q = %d, %q", args, status, errOut)
		}
	}
}

func TestParseSynopsis(t *testing.T) {
	args, repeat := parseSynopsis("lsp META_MODEL.json")
	if repeat || len(args) != 2 || !slices.Equal(args[0].words, []string{"lsp"}) || args[1].ext != "json" {
		t.Errorf("lsp META_MODEL.json: %+v, repeat %v", args, repeat)
	}
	args, repeat = parseSynopsis("protocol.yaml...")
	if !repeat || len(args) != 1 || args[0].ext != "yaml" {
		t.Errorf("protocol.yaml...: %+v, repeat %v", args, repeat)
	}
	args, _ = parseSynopsis("bash|zsh|fish [DIR]")
	if len(args) != 2 || !slices.Equal(args[0].words, []string{"bash", "zsh", "fish"}) || args[1].words != nil || args[1].ext != "" {
		t.Errorf("bash|zsh|fish [DIR]: %+v", args)
	}
}

// needShell returns the path of shell, skipping the test when the machine
// has none.
func needShell(t *testing.T, shell string) string {
	t.Helper()
	path, err := exec.LookPath(shell)
	if err != nil {
		t.Skipf("%s is not installed on this machine", shell)
	}
	return path
}

// writeScript writes the script for shell into a new directory, and
// returns its path.
func writeScript(t *testing.T, shell string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rpcgen."+shell)
	if err := os.WriteFile(path, []byte(script(t, shell)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// parseOnly runs the shell's syntax check on the script.
func parseOnly(t *testing.T, shell string, flag string) {
	path := writeScript(t, shell)
	out, err := exec.Command(needShell(t, shell), flag, path).CombinedOutput()
	if err != nil {
		t.Errorf("%s %s: %v\n%s", shell, flag, err, out)
	}
}

func TestCompletionBashSyntax(t *testing.T) { parseOnly(t, "bash", "-n") }
func TestCompletionZshSyntax(t *testing.T)  { parseOnly(t, "zsh", "-n") }
func TestCompletionFishSyntax(t *testing.T) { parseOnly(t, "fish", "--no-execute") }

// completionDir makes a directory holding a.yaml, b.json, notes.txt and
// sub/, where the completion tests run.
func completionDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"a.yaml", "b.json", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// completionCases are command lines, the last word being completed, and
// the candidates the shells offer, sorted (bash offers a directory
// without its slash, fish with it).
var completionCases = []struct {
	line string
	want string
}{
	{"rpcgen ", "breaking check completion docs generate import openrpc schema version"},
	{"rpcgen op", "openrpc"},
	{"rpcgen generate -", "-check -config -docs -go -openrpc -out -package -schema"},
	{"rpcgen generate -out ", "sub/"},
	{"rpcgen generate ", "a.yaml sub/"},
	{"rpcgen generate -out x ", "a.yaml sub/"},
	{"rpcgen generate -package p a.yaml ", ""},
	{"rpcgen check a.yaml ", "a.yaml sub/"},
	{"rpcgen openrpc -out ", "a.yaml b.json notes.txt sub/"},
	{"rpcgen import ", "lsp"},
	{"rpcgen import lsp ", "b.json sub/"},
	{"rpcgen import -o out.yaml lsp ", "b.json sub/"},
	{"rpcgen completion ", "bash fish zsh"},
}

func TestCompletionBashCandidates(t *testing.T) {
	bash := needShell(t, "bash")
	path := writeScript(t, "bash")
	dir := completionDir(t)
	for _, tt := range completionCases {
		words := strings.Split(tt.line, " ")
		// Complete the line as bash would, and print one candidate a line.
		prog := `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _rpcgen; printf '%s\n' "${COMPREPLY[@]}"`
		cmd := exec.Command(bash, append([]string{"-c", prog, "bash", path}, words...)...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("%q: %v", tt.line, err)
			continue
		}
		if got := candidates(out, dir, ""); got != tt.want {
			t.Errorf("bash completes %q with %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestCompletionFishCandidates(t *testing.T) {
	fish := needShell(t, "fish")
	path := writeScript(t, "fish")
	dir := completionDir(t)
	for _, tt := range completionCases {
		cmd := exec.Command(fish, "--no-config", "-c", `source $argv[1]; complete -C $argv[2]`, path, tt.line)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("%q: %v", tt.line, err)
			continue
		}
		if got := candidates(out, dir, "\t"); got != tt.want {
			t.Errorf("fish completes %q with %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestCompletionZshRegisters(t *testing.T) {
	zsh := needShell(t, "zsh")
	path := writeScript(t, "zsh")
	// Sourced, the script registers _rpcgen with compinit's compdef, here
	// a stand-in that prints its arguments; compinit itself takes seconds.
	cmd := exec.Command(zsh, "-f", "-c", `compdef() { print -r -- "$@" }; source "$1" && whence -w _rpcgen`, "zsh", path)
	out, err := cmd.CombinedOutput()
	if want := "_rpcgen rpcgen\n_rpcgen: function\n"; err != nil || string(out) != want {
		t.Errorf("sourcing the zsh script: %v, printed %q, want %q", err, out, want)
	}
}

// candidates returns the candidates printed one a line, each cut at sep
// when sep is not empty, with a slash after those that are directories
// of dir, sorted and joined by spaces.
func candidates(out []byte, dir, sep string) string {
	var list []string
	for _, line := range strings.Split(string(bytes.TrimSpace(out)), "\n") {
		if sep != "" {
			line, _, _ = strings.Cut(line, sep)
		}
		if line == "" {
			continue
		}
		if info, err := os.Stat(filepath.Join(dir, line)); err == nil && info.IsDir() && !strings.HasSuffix(line, "/") {
			line += "/"
		}
		list = append(list, line)
	}
	slices.Sort(list)
	return strings.Join(list, " ")
}
