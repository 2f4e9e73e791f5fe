package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The README marks the code blocks a reader copies: an HTML comment on its
// own line before the fence says what the block is.
//
//	<!-- file: NAME -->  the block is the file NAME of the reader's module
//	<!-- commands -->    each line of the block is a shell command
//	<!-- output -->      the block is what the last command printed
//	<!-- other way -->   commands that take the place of `go get -tool` and
//	                     `go generate` for a reader who runs rpcgen with
//	                     `go run …@VERSION` instead
var readmeMarker = regexp.MustCompile(`^\s*<!-- (file: (\S+)|commands|output|other way) -->\s*$`)

// readmeStep is one marked code block of the README.
type readmeStep struct {
	kind string // "file", "commands", "output" or "other way"
	name string // the file name, for kind "file"
	body string
	line int // of the marker, 1-based
}

// readmeSteps returns the README's marked code blocks in order. It fails
// when a marker is not followed by a fenced block, or when a Go block is
// not marked as a file (every Go block of the README is meant to compile,
// so the test must see it).
func readmeSteps(text string) ([]readmeStep, error) {
	lines := strings.Split(text, "\n")
	var steps []readmeStep
	marked := map[int]bool{} // fence lines that follow a marker
	for i := 0; i < len(lines); i++ {
		m := readmeMarker.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		st := readmeStep{kind: m[1], name: m[2], line: i + 1}
		if st.name != "" {
			st.kind = "file"
		}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		if j == len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[j]), "```") {
			return nil, fmt.Errorf("README.md:%d: marker not followed by a fenced code block", i+1)
		}
		indent := lines[j][:len(lines[j])-len(strings.TrimLeft(lines[j], " "))]
		marked[j] = true
		var body []string
		k := j + 1
		for ; k < len(lines) && strings.TrimSpace(lines[k]) != "```"; k++ {
			body = append(body, strings.TrimPrefix(lines[k], indent))
		}
		if k == len(lines) {
			return nil, fmt.Errorf("README.md:%d: code block not closed", j+1)
		}
		st.body = strings.Join(body, "\n") + "\n"
		steps = append(steps, st)
		i = k
	}
	inBlock := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "```") {
			continue
		}
		if !inBlock && t == "```go" && !marked[i] {
			return nil, fmt.Errorf("README.md:%d: Go code block without a <!-- file: NAME --> marker", i+1)
		}
		inBlock = !inBlock
	}
	return steps, nil
}

// TestREADMEBlocksMarked checks the README's markers alone (it runs under
// -short too): the tutorial writes the IDL and gofmt-formatted Go files,
// runs commands and shows their output.
func TestREADMEBlocksMarked(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	steps, err := readmeSteps(string(b))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	files := map[string]bool{}
	for _, st := range steps {
		kinds[st.kind]++
		if st.kind == "file" {
			files[st.name] = true
		}
		if st.kind == "file" && strings.HasSuffix(st.name, ".go") {
			if formatted, err := format.Source([]byte(st.body)); err != nil {
				t.Errorf("README.md:%d: %s: %v", st.line, st.name, err)
			} else if string(formatted) != st.body {
				t.Errorf("README.md:%d: %s is not gofmt-formatted; gofmt writes\n%s", st.line, st.name, formatted)
			}
		}
	}
	for _, want := range []string{"calc.yaml", "generate.go", "server/main.go", "client/main.go"} {
		if !files[want] {
			t.Errorf("README.md does not mark a block as %s", want)
		}
	}
	if kinds["commands"] == 0 || kinds["output"] == 0 || kinds["other way"] != 1 {
		t.Errorf("README.md marks %d command blocks, %d output blocks and %d other-way blocks; want some, some and one", kinds["commands"], kinds["output"], kinds["other way"])
	}
}

// TestREADMETutorial walks the README in a fresh module exactly as a
// reader would: it writes every marked file, runs every marked command
// (go mod init, go get -tool, go generate, go build, go run) and compares
// each marked output with what the command before it printed. It walks
// it again the other way the README names, `go run …@VERSION`. The one
// difference from a reader's machine is where the module comes from: a
// file:// module proxy holding this working tree at a pseudo-version
// stands in for the public proxy, checksums of other modules are checked
// as usual, and a fresh module cache keeps the run from reusing anything.
func TestREADMETutorial(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	steps, err := readmeSteps(string(b))
	if err != nil {
		t.Fatal(err)
	}

	tmp := t.TempDir()
	proxyDir := filepath.Join(tmp, "proxy")
	version := writeModuleProxy(t, root, proxyDir)
	env := downstreamEnv(t, proxyDir, filepath.Join(tmp, "modcache"))
	t.Cleanup(func() {
		// The module cache is read-only; go clean is how one removes it.
		cmd := exec.Command("go", "clean", "-modcache")
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go clean -modcache: %v\n%s", err, out)
		}
	})
	t.Logf("module proxy serves github.com/rpcgen/rpcgen %s", version)

	t.Run("go get -tool", func(t *testing.T) {
		work := filepath.Join(tmp, "tool", "calcdemo")
		walkREADME(t, steps, work, env, func(line string) []string { return []string{line} })

		// Run from elsewhere, the client cannot find ./calc-server and
		// says so, rather than panicking.
		client := filepath.Join(tmp, "tool", "calc-client")
		build := exec.Command("go", "build", "-o", client, "./client")
		build.Dir, build.Env = work, env
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build ./client: %v\n%s", err, out)
		}
		elsewhere := exec.Command(client)
		elsewhere.Dir = tmp
		out, err := elsewhere.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "transport: spawn ./calc-server: executable not found") || strings.Contains(string(out), "panic") {
			t.Errorf("the client run away from calc-server: %v\n%s\nwant exit status 1 and an error saying ./calc-server was not found", err, out)
		}
	})

	t.Run("go run", func(t *testing.T) {
		var other []string
		for _, st := range steps {
			if st.kind == "other way" {
				other = append(other, strings.Split(strings.ReplaceAll(st.body, "VERSION", version), "\n")...)
			}
		}
		walkREADME(t, steps, filepath.Join(tmp, "run", "calcdemo"), env, func(line string) []string {
			switch {
			case strings.HasPrefix(line, "go get -tool "):
				return nil
			case line == "go generate ./...":
				return other
			}
			return []string{line}
		})
	})
}

// walkREADME writes the README's files into the new directory work and
// runs its commands there, each line as rewrite turns it, and compares
// every output block with what the last command printed on stdout.
func walkREADME(t *testing.T, steps []readmeStep, work string, env []string, rewrite func(string) []string) {
	t.Helper()
	start := time.Now()
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	var last, lastCmd string
	for _, st := range steps {
		switch st.kind {
		case "file":
			p := filepath.Join(work, filepath.FromSlash(st.name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(st.body), 0o644); err != nil {
				t.Fatal(err)
			}
		case "commands":
			for _, readmeLine := range strings.Split(st.body, "\n") {
				for _, line := range rewrite(strings.TrimSpace(readmeLine)) {
					line = strings.TrimSpace(line)
					if line == "" || strings.HasPrefix(line, "#") {
						continue
					}
					var stdout, stderr bytes.Buffer
					cmd := exec.Command("sh", "-c", line)
					cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = work, env, &stdout, &stderr
					began := time.Now()
					if err := cmd.Run(); err != nil {
						t.Fatalf("README.md:%d: %s: %v\nstdout:\n%s\nstderr:\n%s", st.line, line, err, stdout.String(), stderr.String())
					}
					t.Logf("%s (%.1fs)", line, time.Since(began).Seconds())
					last, lastCmd = stdout.String(), line
				}
			}
		case "output":
			if strings.TrimSpace(last) != strings.TrimSpace(st.body) {
				t.Errorf("README.md:%d: %s printed\n%s\nthe README shows\n%s", st.line, lastCmd, last, st.body)
			}
		}
	}
	t.Logf("README walked in %.1fs", time.Since(start).Seconds())
}

// downstreamEnv is the environment of the reader's commands: this
// process's, with the module proxy in front of the usual one, checksum
// database lookups skipped for this module alone (the proxy's zip is not
// in the public database), a module cache of its own, and none of the
// settings that would hide a missing go.sum entry (GOFLAGS) or bring in
// this repository's workspace (GOWORK).
func downstreamEnv(t *testing.T, proxyDir, modCache string) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOPROXY", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	vals := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(vals) != 2 {
		t.Fatalf("go env printed %q", out)
	}
	// The host's module cache holds, in proxy layout, the modules this
	// repository's tests have downloaded; serving them from there saves
	// the network. Their checksums are still checked against the
	// database, like any proxy's.
	proxies := []string{fileURL(proxyDir), fileURL(filepath.Join(vals[1], "cache", "download"))}
	if vals[0] != "" && vals[0] != "off" {
		proxies = append(proxies, vals[0])
	}
	var env []string
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "GOFLAGS", "GOWORK", "GOPROXY", "GOMODCACHE", "GONOSUMDB", "GONOPROXY", "GOPRIVATE", "GOINSECURE":
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"GOPROXY="+strings.Join(proxies, ","),
		"GONOSUMDB=github.com/rpcgen/rpcgen",
		"GOMODCACHE="+modCache,
	)
}

func fileURL(dir string) string { return "file://" + filepath.ToSlash(dir) }

// writeModuleProxy writes, in dir, a module proxy (the layout GOPROXY
// file:// URLs read) serving this working tree as github.com/rpcgen/rpcgen
// at a pseudo-version made from HEAD, and returns that version. The zip
// holds the files git knows of (tracked, or untracked and not ignored) as
// they are on disk, minus those of nested modules, as the module zip rules
// say.
func writeModuleProxy(t *testing.T, root, dir string) string {
	t.Helper()
	const module = "github.com/rpcgen/rpcgen"
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	head := strings.Fields(git("log", "-1", "--format=%H %ct"))
	secs, err := strconv.ParseInt(head[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Unix(secs, 0).UTC()
	version := "v0.0.0-" + at.Format("20060102150405") + "-" + head[0][:12]

	names := strings.Split(strings.TrimRight(git("ls-files", "-z", "--cached", "--others", "--exclude-standard"), "\x00"), "\x00")
	var nested []string // directories of other modules, with a trailing slash
	for _, n := range names {
		if path.Base(n) == "go.mod" && n != "go.mod" {
			nested = append(nested, path.Dir(n)+"/")
		}
	}
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	seen := map[string]bool{}
files:
	for _, n := range names {
		for _, d := range nested {
			if strings.HasPrefix(n, d) {
				continue files
			}
		}
		if seen[n] {
			continue
		}
		seen[n] = true
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(n)))
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the working tree, or a symlink
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(n)))
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(module + "@" + version + "/" + n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	goMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, at})
	if err != nil {
		t.Fatal(err)
	}
	v := filepath.Join(dir, filepath.FromSlash(module), "@v")
	if err := os.MkdirAll(v, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string][]byte{
		filepath.Join(v, "list"):          nil, // no tagged versions
		filepath.Join(v, version+".info"): info,
		filepath.Join(v, version+".mod"):  goMod,
		filepath.Join(v, version+".zip"):  zbuf.Bytes(),
		filepath.Join(v, "..", "@latest"): info,
	} {
		if err := os.WriteFile(name, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return version
}
