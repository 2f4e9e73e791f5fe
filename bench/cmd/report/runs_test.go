package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/report.md from the testdata runs")

// The testdata are the output of a short real `make bench` (BENCHCOUNT=2,
// a few iterations per row, the load tool on 1,000 connections for 10 s) on
// a loaded 2-core machine; rpc.txt keeps four of its workloads.
var (
	testIns  = []string{"testdata/generate.txt", "testdata/rpc.txt", "testdata/lsp.txt", "testdata/mcp.txt"}
	testLoad = "testdata/load.jsonl"
)

func renderRuns(t *testing.T) string {
	t.Helper()
	var out bytes.Buffer
	if err := run(testIns, testLoad, "-", &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestReportOfRuns checks the tables made from real runs: lines worked out
// by hand from the testdata's numbers, and the whole against
// testdata/report.md (go test -update rewrites it).
func TestReportOfRuns(t *testing.T) {
	got := renderRuns(t)
	for _, want := range []string{
		// Inputs measured at two commits, over five minutes.
		"Measured 2026-11-25 07:00 UTC to 2026-11-25 07:05 UTC on Oxide Virtual Turin-like Processor, 2 cores, go1.26.8, linux/amd64, rpcgen at 44eb012 " +
			"(`testdata/lsp.txt` at 2019bd4, `testdata/mcp.txt` at 2019bd4, the load tool at 2019bd4). Benchmarks: medians of 2 runs each (a short run: a full one has 6).",
		// add, medians of two runs: rpcgen (28876+13061)/2 = 20968.5 ns,
		// preencoded 12983.5 ns: 1.62 > 1.5 ✗; fastest peer xexp 31588.5 ns:
		// 0.66 > 0.5 ✗; leanest peer xexp 61.5 allocs: 12 ÷ 61.5 = 0.20 ✓;
		// stdjson 23164.5 ns: 0.91 ✓; 12 allocs per add > 10 ✗.
		"| add | cl | pipe | 1 | 21.0µs / 12 | 31.6µs / 62 | 60.4µs / 124 | 37.7µs / 145 | 23.2µs / 36 | 13.0µs / 3 | xexp | 1.62 ✗ | 0.66 ✗ | 0.20 ✓ | 0.91 ✓ | 12 ✗ |",
		// echo1m: rpcgen 125.3 ms ÷ preencoded 34.6 ms = 3.62 > 3 ✗;
		// fastest peer jrpc2 55.1 ms: 2.27 ✗; stdjson 111.3 ms: 1.13 ✗.
		"| echo1m | ndjson | tcp | 64 | 125.26ms / 139 | 167.92ms / 163 | 55.14ms / 216 | 334.48ms / 255 | 111.28ms / 138 | 34.56ms / 92 | jrpc2 | 3.62 ✗ | 2.27 ✗ (ceiling 0.63) |",
		// tools-list over stdio: mcpgo is the faster SDK (7.54 ms):
		// 1.70 ÷ 7.54 = 0.23 ✓; 4552 ÷ 8252 allocs = 0.55 ✗.
		"| tools-list | stdio | 1.70ms / 4552 | 18.54ms / 8671 | 7.54ms / 8252 | — | mcpgo | 0.23 ✓ | 0.55 ✗ |",
		// mcpgo cannot run progress over HTTP: gosdk is the only SDK. These
		// runs have no floor: no column, no bracket.
		"| progress | http | 14.23ms / 28162 | 407.40ms / 44447 | — | — | gosdk | 0.03 ✓ | 0.63 ✗ |",
		"| change-complete | cl | ospipe | 1 | 23.19ms / 4920 | 9.94ms / 4981 | 2.33 | 0.99 |",
		// lsp: (1011203328+1197846060)/2 ns, B/op and peak RSS likewise.
		"| the LSP protocol (protocols/lsp.yaml) | 1.10s | 3928713 | 218 MB | 77 MB | < 1s ✗ |",
		"| a synthetic protocol of 2,000 types and 1,000 methods | 16.21s | 28222486 | 1503 MB | 652 MB | < 3s ✗ |",
		// 15422 ÷ 30456 calls/s.
		"| rpcgen | 15422 | 2.49 ms | 20.97 ms | 50.18 ms | 50.18 ms | 0 | 0.51 |",
		"| rpcgen | 1000 | 76.0 MiB | 70.7 KB ✗ | — | — | 78.0 KB ✗ | 19.0 KB | 4.00 ✗ |",
		"| minimal | 1000 | 29.1 MiB | 20.9 KB | — | — | 9.2 KB | 8.3 KB | 1.00 |",
		"| `bufio.NewWriterSize` | `github.com/rpcgen/rpcgen/runtime/jsonrpc.NewConn` | 32812 |",
		// Five samples (taken 5 s apart then): too few to judge a trend.
		"| rpcgen | — | 1000 | 10000 (10 s) | 1000 of 1000 | 0 | 0.18 ms | 5.77 ms | 19.40 ms | 72.4 / 74.0 / 75.3 MiB | — | 75.1 / 76.4 / 77.6 MiB | — | 72.4 MiB → 75.3 MiB (+4.1 %) | 75.1 MiB → 77.6 MiB (+3.4 %) | 62.4 MiB → 62.4 MiB | 0 | ✗ |",
		"- notify: time ≤ 1.5× the preencoded ceiling in every row: 0 of 1 rows\n",
		"- scale: no error (rpcgen): 0 errors, 1000 of 1000 calls/s offered, 1000 connections × 10 s, shorter than the target's 10000 × 60 s\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks\n%s", want)
		}
	}
	// One target per ceiling op (4), peer and stdjson (2), MCP (2),
	// generator (2), idle (3), scale (2); the short runs meet none of them.
	if !strings.Contains(got, "**Targets met: 0 of 15.** Not met:") {
		t.Errorf("summary is not 0 of 15:\n%s", got[:min(len(got), 600)])
	}
	if *update {
		if err := os.WriteFile("testdata/report.md", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/report.md")
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("report differs from testdata/report.md (go test -update rewrites it); got:\n%s", got)
	}
}

// TestRenderTwiceStable checks that the report replaces only its own
// section of the README, and that running it again changes nothing.
func TestRenderTwiceStable(t *testing.T) {
	readme := filepath.Join(t.TempDir(), "README.md")
	before, after := "# Benchmarks\n\nProse that mentions results:begin in passing.\n\n", "\n## After\n\nMore prose.\n"
	doc := before + beginMarker + "\nan old table\n" + endMarker + after
	if err := os.WriteFile(readme, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(testIns, testLoad, readme, nil); err != nil {
		t.Fatal(err)
	}
	once, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	want := before + beginMarker + "\n" + renderRuns(t) + endMarker + after
	if string(once) != want {
		t.Errorf("README after one run:\n%s\nwant:\n%s", once, want)
	}
	if err := run(testIns, testLoad, readme, nil); err != nil {
		t.Fatal(err)
	}
	twice, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(once, twice) {
		t.Errorf("a second run changed the README:\n%s", twice)
	}
}
