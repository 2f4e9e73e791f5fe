package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rpcgen/rpcgen/internal/synthidl"
)

// childIDL and childOut, when set, make the test binary run `rpcgen
// generate -out $childOut $childIDL` and exit, so that a benchmark can read
// the peak memory of one generation from the operating system.
const (
	childIDL = "RPCGEN_BENCH_GENERATE_IDL"
	childOut = "RPCGEN_BENCH_GENERATE_OUT"
)

func TestMain(m *testing.M) {
	if idlPath := os.Getenv(childIDL); idlPath != "" {
		os.Exit(run([]string{"generate", "-out", os.Getenv(childOut), idlPath}, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// BenchmarkGenerate times `rpcgen generate` (load, check, Go, JSON Schemas,
// Markdown, OpenRPC, write) in process, with its memory: B/op and, from one
// more run in a child process, peak-RSS-MB, the child's maximum resident
// set (the test binary's own start-up included, a few MB). Protocols:
// every shipped one together (all), the LSP IDL alone (lsp), and seeded
// synthetic protocols of 500 types and 200 methods and of 2,000 types and
// 1,000 methods.
func BenchmarkGenerate(b *testing.B) {
	dir := b.TempDir()
	synthetic := func(types, methods int) []string {
		path := filepath.Join(dir, fmt.Sprintf("synthetic-%d.yaml", types))
		if err := os.WriteFile(path, synthidl.Protocol(1, types, methods), 0o644); err != nil {
			b.Fatal(err)
		}
		return []string{path}
	}
	all, err := filepath.Glob("../../protocols/*.yaml")
	if err != nil || len(all) == 0 {
		b.Fatalf("no protocols found: %v", err)
	}
	for _, c := range []struct {
		name string
		idls []string
	}{
		{"all", all},
		{"lsp", []string{"../../protocols/lsp.yaml"}},
		{"synthetic-500", synthetic(500, 200)},
		{"synthetic-2000", synthetic(2000, 1000)},
	} {
		b.Run("protocol="+c.name, func(b *testing.B) {
			out := b.TempDir()
			outOf := func(idlPath string) string {
				return filepath.Join(out, strings.TrimSuffix(filepath.Base(idlPath), ".yaml"))
			}
			b.ReportAllocs()
			for b.Loop() {
				for _, f := range c.idls {
					generate(b, f, outOf(f))
				}
			}
			b.StopTimer()
			if len(c.idls) == 1 {
				b.ReportMetric(peakRSS(b, c.idls[0], outOf(c.idls[0])), "peak-RSS-MB")
			}
		})
	}
}

// generate runs `rpcgen generate -out out idl` and fails b if it fails.
func generate(b *testing.B, idl, out string) {
	var stdout, stderr bytes.Buffer
	if status := run([]string{"generate", "-out", out, idl}, &stdout, &stderr); status != exitOK {
		b.Fatalf("rpcgen generate %s = %d: %s", idl, status, stderr.String())
	}
}

// peakRSS runs `rpcgen generate -out out idl` in a child process and
// returns its maximum resident set in MB.
func peakRSS(b *testing.B, idl, out string) float64 {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childIDL+"="+idl, childOut+"="+out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("rpcgen generate %s in a child process: %v: %s", idl, err, stderr.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		b.Fatal("no resource usage for the child process")
	}
	return float64(ru.Maxrss) / 1024 // Linux reports kilobytes
}

// TestSyntheticIDL checks that the synthetic protocols have the announced
// numbers of types and methods, include enums, unions and methods of both
// directions, and are valid (a smaller one, to keep the test quick under
// -race: BenchmarkGenerate fails on an invalid large one); and that a seed
// always gives the same file.
func TestSyntheticIDL(t *testing.T) {
	src := synthidl.Protocol(1, 2000, 1000)
	if !bytes.Equal(src, synthidl.Protocol(1, 2000, 1000)) {
		t.Fatal("the same seed gave two different protocols")
	}
	if n := bytes.Count(src, []byte("\n  T")); n != 2000 {
		t.Errorf("%d types, want 2000", n)
	}
	if n := bytes.Count(src, []byte("\n  m")); n != 1000 {
		t.Errorf("%d methods, want 1000", n)
	}
	src = synthidl.Protocol(2, 200, 100)
	for _, want := range []string{"type: enum", " | ", "from: client", "from: server", "kind: notification", "kind: request"} {
		if !bytes.Contains(src, []byte(want)) {
			t.Errorf("the synthetic protocol has no %q", want)
		}
	}
	path := filepath.Join(t.TempDir(), "synthetic.yaml")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if status := run([]string{"check", path}, &stdout, &stderr); status != exitOK {
		t.Fatalf("rpcgen check = %d: %s", status, stderr.String())
	}
}
