package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sampleOutput = `go: go1.26.0
cores: 2
date: 2026-11-22
commit: abc1234
goos: linux
goarch: amd64
pkg: github.com/rpcgen/rpcgen/bench
cpu: Test CPU
BenchmarkRPC/op=add/framing=cl/transport=pipe/callers=1/impl=rpcgen-2   1000  3000 ns/op  100 B/op  8 allocs/op
BenchmarkRPC/op=add/framing=cl/transport=pipe/callers=1/impl=rpcgen-2   1000  5000 ns/op  100 B/op  8 allocs/op
BenchmarkRPC/op=add/framing=cl/transport=pipe/callers=1/impl=rpcgen-2   1000  4000 ns/op  100 B/op  9 allocs/op
BenchmarkRPC/op=add/framing=cl/transport=pipe/callers=1/impl=xexp-2     1000  8000 ns/op  100 B/op  60 allocs/op
BenchmarkRPC/op=add/framing=cl/transport=pipe/callers=1/impl=jrpc2-2    1000  10000 ns/op 100 B/op  16 allocs/op
BenchmarkRPC/op=add/framing=cl/transport=pipe/callers=1/impl=stdjson-2  1000  5000 ns/op  100 B/op  30 allocs/op
BenchmarkRPC/op=add/framing=cl/transport=pipe/callers=1/impl=preencoded-2  1000  2000 ns/op  0 B/op  2 allocs/op
BenchmarkRPC/op=echo/framing=ndjson/transport=tcp/callers=64/impl=rpcgen-2  1000  9000 ns/op  100 B/op  40 allocs/op
BenchmarkRPC/op=echo/framing=ndjson/transport=tcp/callers=64/impl=sourcegraph-2  1000  10000 ns/op  100 B/op  50 allocs/op
BenchmarkRPC/op=echo/framing=ndjson/transport=tcp/callers=64/impl=preencoded-2  1000  3500 ns/op  100 B/op  4 allocs/op
BenchmarkRPC/op=notify/framing=cl/transport=pipe/callers=1/impl=rpcgen-2  1000  1400 ns/op  10 B/op  3 allocs/op
BenchmarkRPC/op=notify/framing=cl/transport=pipe/callers=1/impl=preencoded-2  1000  1000 ns/op  0 B/op  1 allocs/op
BenchmarkRPC/op=echo1m/framing=cl/transport=tcp/callers=1/impl=rpcgen-2  10  3100000 ns/op  100 B/op  40 allocs/op
BenchmarkRPC/op=echo1m/framing=cl/transport=tcp/callers=1/impl=xexp-2  10  9000000 ns/op  100 B/op  90 allocs/op
BenchmarkRPC/op=echo1m/framing=cl/transport=tcp/callers=1/impl=stdjson-2  10  3000000 ns/op  100 B/op  30 allocs/op
BenchmarkRPC/op=echo1m/framing=cl/transport=tcp/callers=1/impl=preencoded-2  10  1000000 ns/op  100 B/op  4 allocs/op
BenchmarkRPC/op=didopen/framing=ndjson/transport=pipe/callers=64/impl=rpcgen-2  100  250000 ns/op  100 B/op  8 allocs/op
BenchmarkRPC/op=didopen/framing=ndjson/transport=pipe/callers=64/impl=preencoded-2  100  100000 ns/op  100 B/op  3 allocs/op
BenchmarkRPCMCP/op=tools-call/transport=http/callers=1/impl=rpcgen-2  1000  200000 ns/op  20000 B/op  270 allocs/op
BenchmarkRPCMCP/op=tools-call/transport=http/callers=1/impl=gosdk-2  1000  800000 ns/op  300000 B/op  250 allocs/op
BenchmarkLSP/op=change-complete/framing=cl/transport=ospipe/callers=1/impl=rpcgen-2  100  300000 ns/op  90000 B/op  900 allocs/op
BenchmarkLSP/op=change-complete/framing=cl/transport=ospipe/callers=1/impl=xexp-2  100  400000 ns/op  120000 B/op  1800 allocs/op
BenchmarkGenerate/protocol=all-2   3   600000000 ns/op   1000 B/op   5000 allocs/op
BenchmarkGenerate/protocol=lsp-2   1   1500000000 ns/op   45.0 peak-RSS-MB   250000000 B/op   7000 allocs/op
BenchmarkGenerate/protocol=synthetic-500-2   3   2500000000 ns/op  1000 B/op   9000 allocs/op
`

func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{7}, 7},
	} {
		if got, ok := median(tt.in); !ok || got != tt.want {
			t.Errorf("median(%v) = %v, %v; want %v", tt.in, got, ok, tt.want)
		}
	}
	if _, ok := median(nil); ok {
		t.Error("median(nil) reported a value")
	}
}

func TestRender(t *testing.T) {
	res, err := parse(strings.NewReader(sampleOutput))
	if err != nil {
		t.Fatal(err)
	}
	got := render(res)
	for _, want := range []string{
		"Measured 2026-11-22 on Test CPU, 2 cores, go1.26.0, linux/amd64, rpcgen at abc1234. Benchmarks: medians of 1 to 3 runs each (a short run: a full one has 6).",
		// median 4000 ns and 8 allocs; ceiling 2000 ns: 2.00 > 1.5 ✗;
		// fastest peer xexp (8000 ns): 0.50 ✓; leanest peer jrpc2 (16
		// allocs): 0.50 ✓; stdjson 5000 ns: 0.80 ✓.
		"| add | cl | pipe | 1 | 4.0µs / 8 | 8.0µs / 60 | 10.0µs / 16 | — | 5.0µs / 30 | 2.0µs / 2 | xexp | 2.00 ✗ | 0.50 ✓ | 0.50 ✓ | 0.80 ✓ | 8 ✓ |",
		// ceiling 9000 ÷ 3500 = 2.57 ≤ 3 ✓, 9000 ÷ 10000 = 0.90 ✗,
		// 40 ÷ 50 = 0.80 ✗, no stdjson, not an add.
		"| echo | ndjson | tcp | 64 | 9.0µs / 40 | — | — | 10.0µs / 50 | — | 3.5µs / 4 | sourcegraph | 2.57 ✓ | 0.90 ✗ | 0.80 ✗ | — | — |",
		// a notification against the 1.5 target: 1.40 ✓; no peer.
		"| notify | cl | pipe | 1 | 1.4µs / 3 | — | — | — | — | 1.0µs / 1 | — | 1.40 ✓ | — | — | — | — |",
		// a payload row: 3.10 > 3 ✗; 3.1 ms ÷ 9 ms = 0.34 ✓; 3.1 ÷ 3.0 = 1.03 ✗.
		"| echo1m | cl | tcp | 1 | 3.10ms / 40 | 9.00ms / 90 | — | — | 3.00ms / 30 | 1.00ms / 4 | xexp | 3.10 ✗ | 0.34 ✓ | 0.44 ✓ | 1.03 ✗ | — |",
		// didopen is held to the payload target: 2.50 ✓.
		"| didopen | ndjson | pipe | 64 | 250.0µs / 8 | — | — | — | — | 100.0µs / 3 | — | 2.50 ✓ | — | — | — | — |",
		"Rows meeting each ratio: time ÷ ceiling in 3 of 5 rows, time ÷ fastest peer in 2 of 3, allocs ÷ leanest peer in 2 of 3, time ÷ stdjson in 1 of 2, allocs per add in 1 of 1.",
		// 200 µs ÷ 800 µs = 0.25; 270 ÷ 250 = 1.08.
		"| tools-call | http | 1 | 200.0µs / 270 | 800.0µs / 250 | 0.25 | 1.08 |",
		// 300 µs ÷ 400 µs = 0.75; 900 ÷ 1800 = 0.50.
		"| change-complete | cl | ospipe | 1 | 300.0µs / 900 | 400.0µs / 1800 | 0.75 | 0.50 |",
		"| every protocol in protocols/ | 600.00ms | 5000 | 0 MB | — | < 1s ✓ |",
		"| the LSP protocol (protocols/lsp.yaml) | 1.50s | 7000 | 250 MB | 45 MB | < 1s ✗ |",
		"| a synthetic protocol of 500 types and 200 methods | 2.50s | 9000 | 0 MB | — | < 2s ✗ |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks\n%s\ngot:\n%s", want, got)
		}
	}
}

func TestRunSplicesBetweenMarkers(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "latest.txt")
	readme := filepath.Join(dir, "README.md")
	if err := os.WriteFile(in, []byte(sampleOutput), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := "# Title\n\nbefore\n" + beginMarker + "\nold table\n" + endMarker + "\nafter\n"
	if err := os.WriteFile(readme, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{in}, "", readme, io.Discard); err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if strings.Contains(s, "old table") || !strings.HasPrefix(s, "# Title\n\nbefore\n"+beginMarker+"\n") ||
		!strings.HasSuffix(s, endMarker+"\nafter\n") || !strings.Contains(s, "| add | cl | pipe | 1 |") {
		t.Errorf("README after the report:\n%s", s)
	}
	var stdout bytes.Buffer
	if err := run([]string{in}, "", "-", &stdout); err != nil || !strings.Contains(stdout.String(), "| add | cl | pipe | 1 |") {
		t.Errorf("report -readme - = %v, printed:\n%s", err, stdout.String())
	}
	if err := os.WriteFile(readme, []byte("no markers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{in}, "", readme, io.Discard); err == nil {
		t.Error("a README without markers was accepted")
	}
}

func TestCeilingTarget(t *testing.T) {
	for op, want := range map[string]float64{
		"add": 1.5, "notify": 1.5, "echo": 3, "echo64k": 3, "echo1m": 3, "escape": 3, "didopen": 3,
	} {
		if got := ceilingTarget(op); got != want {
			t.Errorf("ceilingTarget(%q) = %v, want %v", op, got, want)
		}
	}
}

// TestRenderCeilingAbovePeerTarget checks that a row missing the fastest
// peer target is marked when the ceiling misses it too, and counted so.
func TestRenderCeilingAbovePeerTarget(t *testing.T) {
	const out = `go: go1.26.0
cores: 2
date: 2026-11-22
commit: abc1234
goos: linux
goarch: amd64
cpu: Test CPU
BenchmarkRPC/op=add/framing=cl/transport=tcp/callers=1/impl=rpcgen-2  1000  7000 ns/op  100 B/op  8 allocs/op
BenchmarkRPC/op=add/framing=cl/transport=tcp/callers=1/impl=xexp-2  1000  10000 ns/op  100 B/op  60 allocs/op
BenchmarkRPC/op=add/framing=cl/transport=tcp/callers=1/impl=preencoded-2  1000  6000 ns/op  0 B/op  2 allocs/op
BenchmarkRPC/op=add/framing=cl/transport=tcp/callers=64/impl=rpcgen-2  1000  7000 ns/op  100 B/op  8 allocs/op
BenchmarkRPC/op=add/framing=cl/transport=tcp/callers=64/impl=xexp-2  1000  10000 ns/op  100 B/op  60 allocs/op
BenchmarkRPC/op=add/framing=cl/transport=tcp/callers=64/impl=preencoded-2  1000  4000 ns/op  0 B/op  2 allocs/op
`
	res, err := parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	got := render(res)
	for _, want := range []string{
		// 7000 ÷ 10000 = 0.70 ✗, and the ceiling 6000 ÷ 10000 = 0.60.
		"| add | cl | tcp | 1 | 7.0µs / 8 | 10.0µs / 60 | — | — | — | 6.0µs / 2 | xexp | 1.17 ✓ | 0.70 ✗ (ceiling 0.60) |",
		// The ceiling 4000 ÷ 10000 = 0.40 meets the target: no mark.
		"| add | cl | tcp | 64 | 7.0µs / 8 | 10.0µs / 60 | — | — | — | 4.0µs / 2 | xexp | 1.75 ✗ | 0.70 ✗ | ",
		"In 1 of the rows missing time ÷ fastest peer the preencoded ceiling itself is above 0.50× that peer",
		"0 of 2 rows; in 1 of the misses the ceiling itself is above 0.50×",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks\n%s\ngot:\n%s", want, got)
		}
	}
}
