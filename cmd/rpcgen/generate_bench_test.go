package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
		if err := os.WriteFile(path, syntheticIDL(1, types, methods), 0o644); err != nil {
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
	src := syntheticIDL(1, 2000, 1000)
	if !bytes.Equal(src, syntheticIDL(1, 2000, 1000)) {
		t.Fatal("the same seed gave two different protocols")
	}
	if n := bytes.Count(src, []byte("\n  T")); n != 2000 {
		t.Errorf("%d types, want 2000", n)
	}
	if n := bytes.Count(src, []byte("\n  m")); n != 1000 {
		t.Errorf("%d methods, want 1000", n)
	}
	src = syntheticIDL(2, 200, 100)
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

// syntheticIDL returns a protocol of types named types T0... and methods
// m0..., drawn from a generator seeded with seed: objects of three to eight
// members of mixed kinds (scalars, lists, maps, optional and nullable
// members, references to earlier types), string and integer enums, and
// unions told apart by JSON kind; requests and notifications from both
// sides.
func syntheticIDL(seed uint64, types, methods int) []byte {
	r := rand.New(rand.NewPCG(seed, 2000))
	var s strings.Builder
	s.WriteString("protocol:\n  name: synthetic\n  version: 1.0.0\n  doc: A large generated protocol to time the generator.\n" +
		"  roles:\n    client: Starts the connection.\n    server: Answers it.\n  framing: content-length\n  timeout: 5s\ntypes:\n")
	objects := []int{}     // indices of object types, which params and results can use
	ref := func() string { // an earlier object, or a scalar before the first
		if len(objects) == 0 {
			return "string"
		}
		return fmt.Sprintf("T%d", objects[r.IntN(len(objects))])
	}
	for i := range types {
		switch k := r.IntN(20); {
		case k == 0:
			fmt.Fprintf(&s, "  T%d: \"'red%d' | 'green%d' | 'blue%d' | 'cyan%d'\"\n", i, i, i, i, i)
			continue
		case k == 1:
			fmt.Fprintf(&s, "  T%d:\n    type: enum\n    base: int32\n    doc: Synthetic enum %d.\n    values:\n", i, i)
			for v := 1; v <= 4; v++ {
				fmt.Fprintf(&s, "      - {value: %d, name: V%dx%d}\n", v, i, v)
			}
			continue
		case k == 2 && len(objects) > 0:
			fmt.Fprintf(&s, "  T%d: \"string | %s | []integer\"\n", i, ref())
			continue
		}
		fmt.Fprintf(&s, "  T%d:\n    doc: Synthetic object %d.\n    fields:\n      id: integer\n", i, i)
		for f := range 2 + r.IntN(6) {
			name := fmt.Sprintf("f%d", f)
			switch r.IntN(9) {
			case 0:
				fmt.Fprintf(&s, "      %s: {type: string, doc: Member %d of %d.}\n", name, f, i)
			case 1:
				fmt.Fprintf(&s, "      %s?: number\n", name)
			case 2:
				fmt.Fprintf(&s, "      %s: \"[]string\"\n", name)
			case 3:
				fmt.Fprintf(&s, "      %s?: \"map<string, integer>\"\n", name)
			case 4:
				fmt.Fprintf(&s, "      %s: boolean?\n", name)
			case 5:
				fmt.Fprintf(&s, "      %s?: %s\n", name, ref())
			case 6:
				fmt.Fprintf(&s, "      %s?: \"[]%s\"\n", name, ref())
			case 7:
				fmt.Fprintf(&s, "      %s: \"integer | string\"\n", name)
			default:
				fmt.Fprintf(&s, "      %s?: uint32\n", name)
			}
		}
		objects = append(objects, i)
	}
	s.WriteString("methods:\n")
	for i := range methods {
		from := "client"
		if r.IntN(2) == 1 {
			from = "server"
		}
		param := fmt.Sprintf("T%d", objects[r.IntN(len(objects))])
		if r.IntN(4) == 0 {
			fmt.Fprintf(&s, "  m%d:\n    from: %s\n    kind: notification\n    doc: Notification %d.\n    params: %s\n", i, from, i, param)
			continue
		}
		fmt.Fprintf(&s, "  m%d:\n    from: %s\n    kind: request\n    doc: Request %d.\n    params: %s\n", i, from, i, param)
		fmt.Fprintf(&s, "    result: {fields: {item: T%d, items: \"[]T%d\", ok: boolean}}\n",
			objects[r.IntN(len(objects))], objects[r.IntN(len(objects))])
	}
	return []byte(s.String())
}
