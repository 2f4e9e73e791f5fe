package main

import (
	"strings"
	"testing"
)

// mcpSample has rows at the edges of the MCP targets. Times and
// allocations are chosen so the ratios are exact.
const mcpSample = `BenchmarkMCP/op=tools-list/transport=stdio/impl=rpcgen-2  100  100000 ns/op  10 B/op  20 allocs/op
BenchmarkMCP/op=tools-list/transport=stdio/impl=gosdk-2   100  300000 ns/op  10 B/op  100 allocs/op
BenchmarkMCP/op=tools-list/transport=stdio/impl=mcpgo-2   100  400000 ns/op  10 B/op  50 allocs/op
BenchmarkMCP/op=progress/transport=http/impl=rpcgen-2     100  100000 ns/op  10 B/op  21 allocs/op
BenchmarkMCP/op=progress/transport=http/impl=gosdk-2      100  290000 ns/op  10 B/op  100 allocs/op
BenchmarkMCP/op=progress/transport=http/impl=mcpgo-2      100  200000 ns/op  10 B/op  500 allocs/op
BenchmarkMCP/op=initialize/transport=stdio/impl=rpcgen-2  100  100000 ns/op  10 B/op  20 allocs/op
`

func TestMCPTargets(t *testing.T) {
	res, err := parse(strings.NewReader(mcpSample))
	if err != nil {
		t.Fatal(err)
	}
	got := render(res)
	for _, want := range []string{
		// gosdk is faster than mcpgo: 100 ÷ 300 = 0.33 ✓ (1/3 exactly),
		// 20 ÷ 100 = 0.20 ✓ (1/5 exactly), though mcpgo allocates less.
		"| tools-list | stdio | 100.0µs / 20 | 300.0µs / 100 | 400.0µs / 50 | — | gosdk | 0.33 ✓ | 0.20 ✓ |",
		// mcpgo is faster: 100 ÷ 200 = 0.50 ✗, 21 ÷ 500 = 0.04 ✓.
		"| progress | http | 100.0µs / 21 | 290.0µs / 100 | 200.0µs / 500 | — | mcpgo | 0.50 ✗ | 0.04 ✓ |",
		// no SDK ran: no ratio, not counted.
		"| initialize | stdio | 100.0µs / 20 | — | — | — | — | — | — |",
		"**Targets met: 1 of 2.** Not met:\n\n- MCP: time ≤ 1/3 of the faster SDK's in every row: 1 of 2 rows\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks\n%s\ngot:\n%s", want, got)
		}
	}
}

// loadSample has the load tool's records at the edges of the targets.
const loadSample = `{"mode":"throughput","server":"rpcgen","run":{"date":"2026-11-25 07:00 UTC","cpu":"Test CPU","cores":2,"go":"go1.26.0","osarch":"linux/amd64","commit":"abc1234"},"conns":64,"calls":100000,"errors":0,"seconds":2,"calls_per_s":50000,"latency":{"p50_ms":1.25,"p99_ms":4,"p999_ms":9.5,"max_ms":12}}
{"mode":"throughput","server":"minimal","run":{"date":"2026-11-25 07:00 UTC","cpu":"Test CPU","cores":2,"go":"go1.26.0","osarch":"linux/amd64","commit":"abc1234"},"conns":64,"calls":100000,"errors":0,"seconds":2.5,"calls_per_s":40000,"latency":{"p50_ms":1.5,"p99_ms":5,"p999_ms":10,"max_ms":20}}
{"mode":"idle","server":"rpcgen","run":{"date":"2026-11-25 07:00 UTC","cpu":"Test CPU","cores":2,"go":"go1.26.0","osarch":"linux/amd64","commit":"abc1234"},"conns":2000,"errors":0,"levels":[{"conns":1000,"rss":20971520,"rss_freed":15728640,"heap":1,"rss_per_conn":10000,"rss_freed_per_conn":7000,"live_heap_per_conn":4500,"heap_per_conn":9000,"stack_per_conn":2000,"goroutines_per_conn":1},{"conns":2000,"rss":41943040,"rss_freed":31457280,"heap":1,"rss_per_conn":10001,"rss_freed_per_conn":6500,"live_heap_per_conn":4000,"heap_per_conn":8000,"stack_per_conn":2000,"goroutines_per_conn":1}],"base_rss":1,"base_heap":1,"heap_sites":[{"leaf":"bufio.NewReaderSize","owner":"main.serve","bytes_per_conn":4096,"objects_per_conn":1}]}
{"mode":"idle","server":"minimal","run":{"date":"2026-11-25 07:00 UTC","cpu":"Test CPU","cores":2,"go":"go1.26.0","osarch":"linux/amd64","commit":"abc1234"},"conns":2000,"errors":0,"levels":[{"conns":2000,"rss":41943040,"heap":1,"rss_per_conn":50000,"heap_per_conn":50000,"stack_per_conn":8000,"goroutines_per_conn":3}]}
{"mode":"scale","server":"rpcgen","run":{"date":"2026-11-25 07:00 UTC","cpu":"Test CPU","cores":2,"go":"go1.26.0","osarch":"linux/amd64","commit":"abc1234"},"conns":10000,"calls":600000,"errors":0,"seconds":60.5,"calls_per_s":9917,"latency":{"p50_ms":0.5,"p99_ms":150,"p999_ms":400,"max_ms":500},"interval_s":1,"duration_s":60,"offered_per_s":10000,"latency_from_due":{"p50_ms":0.75,"p99_ms":160,"p999_ms":410,"max_ms":510},"samples":[{"at_s":0.0,"rss":62914560,"heap_inuse":62914560,"heap_live":52428800,"gcs":3,"stack":1,"goroutines":10005},{"at_s":7.5,"rss":157286400,"heap_inuse":104857600,"heap_live":52428800,"gcs":4,"stack":1,"goroutines":10005},{"at_s":15.0,"rss":209715200,"heap_inuse":104857600,"heap_live":52428800,"gcs":5,"stack":1,"goroutines":10005},{"at_s":22.5,"rss":104857600,"heap_inuse":104857600,"heap_live":52428800,"gcs":6,"stack":1,"goroutines":10005},{"at_s":30.0,"rss":104857600,"heap_inuse":104857600,"heap_live":52428800,"gcs":7,"stack":1,"goroutines":10005},{"at_s":37.5,"rss":104857600,"heap_inuse":104857600,"heap_live":52428800,"gcs":8,"stack":1,"goroutines":10005},{"at_s":45.0,"rss":115343360,"heap_inuse":104857600,"heap_live":52428800,"gcs":9,"stack":1,"goroutines":10005},{"at_s":52.5,"rss":115343360,"heap_inuse":104857600,"heap_live":52428800,"gcs":10,"stack":1,"goroutines":10005},{"at_s":60.0,"rss":115343360,"heap_inuse":104857600,"heap_live":52428800,"gcs":11,"stack":1,"goroutines":10005}]}
{"mode":"scale","server":"rpcgen","run":{"date":"2026-11-25 07:00 UTC","cpu":"Test CPU","cores":2,"go":"go1.26.0","osarch":"linux/amd64","commit":"abc1234"},"conns":10000,"calls":600000,"errors":0,"seconds":60.5,"calls_per_s":9917,"latency":{"p50_ms":0.5,"p99_ms":150,"p999_ms":400,"max_ms":500},"interval_s":1,"duration_s":60,"offered_per_s":10000,"latency_from_due":{"p50_ms":0.75,"p99_ms":160,"p999_ms":410,"max_ms":510},"samples":[{"at_s":0.0,"rss":104857600,"heap_inuse":104857600,"heap_live":52428800,"gcs":3,"stack":1,"goroutines":10005},{"at_s":7.5,"rss":104857600,"heap_inuse":104857600,"heap_live":52428800,"gcs":4,"stack":1,"goroutines":10005},{"at_s":15.0,"rss":104857600,"heap_inuse":104857600,"heap_live":52428800,"gcs":5,"stack":1,"goroutines":10005},{"at_s":22.5,"rss":104857600,"heap_inuse":104857600,"heap_live":52428800,"gcs":6,"stack":1,"goroutines":10005},{"at_s":30.0,"rss":104857600,"heap_inuse":104857600,"heap_live":52428800,"gcs":7,"stack":1,"goroutines":10005},{"at_s":37.5,"rss":104857600,"heap_inuse":104857600,"heap_live":52428800,"gcs":8,"stack":1,"goroutines":10005},{"at_s":45.0,"rss":209715200,"heap_inuse":104857600,"heap_live":52428800,"gcs":9,"stack":1,"goroutines":10005},{"at_s":52.5,"rss":209715200,"heap_inuse":104857600,"heap_live":52428800,"gcs":10,"stack":1,"goroutines":10005},{"at_s":60.0,"rss":209715200,"heap_inuse":104857600,"heap_live":52428800,"gcs":11,"stack":1,"goroutines":10005}],"mem_limit":"128MiB"}
{"mode":"scale","server":"minimal","run":{"date":"2026-11-25 07:00 UTC","cpu":"Test CPU","cores":2,"go":"go1.26.0","osarch":"linux/amd64","commit":"abc1234"},"conns":1000,"calls":10000,"errors":2,"seconds":10,"calls_per_s":1000,"latency":{"p50_ms":0.25,"p99_ms":2,"p999_ms":3,"max_ms":4},"interval_s":1,"duration_s":10,"offered_per_s":1000,"latency_from_due":{"p50_ms":0.3,"p99_ms":2.5,"p999_ms":3,"max_ms":4},"samples":[{"at_s":0,"rss":104857600,"heap_inuse":104857600,"heap_live":1,"gcs":3,"stack":1,"goroutines":1},{"at_s":8,"rss":209715200,"heap_inuse":104857600,"heap_live":1,"gcs":3,"stack":1,"goroutines":1}]}
`

func renderLoadSample(t *testing.T, sample string) string {
	t.Helper()
	recs, err := parseLoad(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	res := newResults()
	res.load = recs
	return render(res)
}

func TestLoadTargets(t *testing.T) {
	got := renderLoadSample(t, loadSample)
	for _, want := range []string{
		"Measured 2026-11-25 07:00 UTC on Test CPU, 2 cores, go1.26.0, linux/amd64, rpcgen at abc1234.",
		// 50,000 ÷ 40,000 calls/s.
		"| rpcgen | 50000 | 1.25 ms | 4.00 ms | 9.50 ms | 12.00 ms | 0 | 1.25 |",
		"| minimal | 40000 | 1.50 ms | 5.00 ms | 10.00 ms | 20.00 ms | 0 | 1.00 |",
		// 10,000 bytes is the limit, met; 10,001 is not, whatever the
		// RSS once the server has returned its free pages (6.5 KB).
		"| rpcgen | 1000 | 20.0 MiB | 10.0 KB ✓ | 7.0 KB | 4.5 KB | 9.0 KB ✓ | 2.0 KB | 1.00 ✓ |",
		"| rpcgen | 2000 | 40.0 MiB | 10.0 KB ✗ | 6.5 KB | 4.0 KB | 8.0 KB ✓ | 2.0 KB | 1.00 ✓ |",
		// the minimal server is shown, not held to the targets; a run
		// from before the freed RSS was measured shows none.
		"| minimal | 2000 | 40.0 MiB | 50.0 KB | — | — | 50.0 KB | 8.0 KB | 3.00 |",
		"| `bufio.NewReaderSize` | `main.serve` | 4096 |",
		// RSS: the middle third's mean 100 MiB, the last third's 110 MiB:
		// +10.0 %, at the limit, flat, although first → last is +83 %.
		"| rpcgen | — | 10000 | 600000 (60 s) | 9917 of 10000 | 0 | 0.50 ms | 150.00 ms | 160.00 ms | 60.0 / 110.0 / 200.0 MiB | +10.0 % | 60.0 / 100.0 / 100.0 MiB | +0.0 % | 60.0 MiB → 110.0 MiB (+83.3 %) | 60.0 MiB → 100.0 MiB (+66.7 %) | 50.0 MiB → 50.0 MiB | 8 | ✓ |",
		// With a memory limit: a row of its own, not held to the targets.
		"| rpcgen | 128MiB | 10000 | 600000 (60 s) | 9917 of 10000 | 0 | 0.50 ms | 150.00 ms | 160.00 ms | 100.0 / 100.0 / 200.0 MiB | +100.0 % |",
		// Two samples: too few to judge, not flat; the minimal server's
		// targets are not counted.
		"| minimal | — | 1000 | 10000 (10 s) | 1000 of 1000 | 2 | 0.25 ms | 2.00 ms | 2.50 ms | 100.0 / 150.0 / 200.0 MiB | — | 100.0 / 100.0 / 100.0 MiB | — | 100.0 MiB → 200.0 MiB (+100.0 %) |",
		"**Targets met: 4 of 5.** Not met:\n\n- idle RSS per connection ≤ 10 KB (rpcgen): 10.0 KB at 2000 connections\n\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks\n%s\ngot:\n%s", want, got)
		}
	}
}

// TestScaleShortRun checks that a scale run shorter or smaller than the
// issue's meets neither scale target, however good it is.
func TestScaleShortRun(t *testing.T) {
	var short []string
	for _, line := range strings.Split(strings.TrimSpace(loadSample), "\n") {
		if strings.Contains(line, `"mode":"scale","server":"rpcgen"`) && !strings.Contains(line, "mem_limit") {
			short = append(short, strings.Replace(line, `"duration_s":60`, `"duration_s":10`, 1))
		}
	}
	got := renderLoadSample(t, strings.Join(short, "\n"))
	for _, want := range []string{
		"**Targets met: 0 of 2.** Not met:\n\n",
		"- scale: no error (rpcgen): 0 errors, 9917 of 10000 calls/s offered, 10000 connections × 10 s, shorter than the target's 10000 × 60 s\n",
		"- scale: server memory flat (rpcgen): trend RSS +10.0 %, heap in use +0.0 % (first → last: +83.3 %, +66.7 %), 10000 connections × 10 s, shorter than the target's 10000 × 60 s\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks\n%s\ngot:\n%s", want, got)
		}
	}
}

func TestParseLoadRejects(t *testing.T) {
	for _, bad := range []string{
		`{"mode":"burst","server":"rpcgen"}`,
		`{"mode":"idle","server":"rpcgen","levels":[]}`,
		`{"mode":"throughput",`,
	} {
		if _, err := parseLoad(strings.NewReader(bad + "\n")); err == nil {
			t.Errorf("parseLoad(%s) accepted it", bad)
		}
	}
}

// TestFullRunHeader checks that a run with the full count is not called
// short.
func TestFullRunHeader(t *testing.T) {
	in := "date: 2026-11-25 07:00 UTC\ncommit: abc1234\n" +
		strings.Repeat("BenchmarkLSP/op=change-complete/framing=cl/transport=ospipe/callers=1/impl=rpcgen-2  10  100 ns/op  1 allocs/op\n", 6)
	res, err := parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := render(res); !strings.Contains(got, "rpcgen at abc1234. Benchmarks: medians of 6 runs each.\n") {
		t.Errorf("header of a full run:\n%s", got)
	}
}

// TestRenderFloorAboveMCPTarget checks that an MCP ratio missing its
// target is marked when the preencoded floor misses it too, and counted
// so; that the floor is never taken for the faster SDK; and that a row
// rpcgen meets gets no mark.
func TestRenderFloorAboveMCPTarget(t *testing.T) {
	const out = `BenchmarkMCP/op=initialize/transport=http/impl=rpcgen-2      100  500000 ns/op  10 B/op  440 allocs/op
BenchmarkMCP/op=initialize/transport=http/impl=gosdk-2       100  2000000 ns/op  10 B/op  700 allocs/op
BenchmarkMCP/op=initialize/transport=http/impl=mcpgo-2       100  300000 ns/op  10 B/op  500 allocs/op
BenchmarkMCP/op=initialize/transport=http/impl=preencoded-2  100  200000 ns/op  10 B/op  240 allocs/op
BenchmarkMCP/op=tools-call/transport=http/impl=rpcgen-2      100  150000 ns/op  10 B/op  300 allocs/op
BenchmarkMCP/op=tools-call/transport=http/impl=mcpgo-2       100  300000 ns/op  10 B/op  500 allocs/op
BenchmarkMCP/op=tools-call/transport=http/impl=preencoded-2  100  90000 ns/op  10 B/op  80 allocs/op
BenchmarkMCP/op=tools-list/transport=stdio/impl=rpcgen-2     100  100000 ns/op  10 B/op  10 allocs/op
BenchmarkMCP/op=tools-list/transport=stdio/impl=mcpgo-2      100  400000 ns/op  10 B/op  100 allocs/op
BenchmarkMCP/op=tools-list/transport=stdio/impl=preencoded-2 100  150000 ns/op  10 B/op  30 allocs/op
`
	res, err := parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	got := render(res)
	for _, want := range []string{
		// mcpgo is the faster SDK: 500 ÷ 300 = 1.67 ✗ and the floor
		// 200 ÷ 300 = 0.67; 440 ÷ 500 = 0.88 ✗ and the floor 240 ÷ 500 = 0.48.
		"| initialize | http | 500.0µs / 440 | 2.00ms / 700 | 300.0µs / 500 | 200.0µs / 240 | mcpgo | 1.67 ✗ (floor 0.67) | 0.88 ✗ (floor 0.48) |",
		// The floor meets both (90 ÷ 300 = 0.30, 80 ÷ 500 = 0.16): no mark,
		// and the floor, faster than mcpgo, is not the faster SDK.
		"| tools-call | http | 150.0µs / 300 | — | 300.0µs / 500 | 90.0µs / 80 | mcpgo | 0.50 ✗ | 0.60 ✗ |",
		// rpcgen meets both: no mark though the floor (0.38) misses time.
		"| tools-list | stdio | 100.0µs / 10 | — | 400.0µs / 100 | 150.0µs / 30 | mcpgo | 0.25 ✓ | 0.10 ✓ |",
		"The floor itself is above the target in 1 of the rows missing the time target and in 1 of those missing the allocation target (shown in brackets)",
		"- MCP: time ≤ 1/3 of the faster SDK's in every row: 1 of 3 rows; in 1 of the misses the floor itself is above 0.33×\n",
		"- MCP: allocations ≤ 1/5 of the faster SDK's in every row: 1 of 3 rows; in 1 of the misses the floor itself is above 0.20×\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks\n%s\ngot:\n%s", want, got)
		}
	}
}

// TestIdleVerdictNamesWorstLevel checks that a missed idle target names
// the level that misses it, not the last level measured.
func TestIdleVerdictNamesWorstLevel(t *testing.T) {
	recs := []loadRecord{{Mode: "idle", Server: "rpcgen", Levels: []idleLevel{
		{Conns: 1000, RSSPerConn: 12000, HeapPerConn: 4000, GoroutinesPerConn: 1},
		{Conns: 5000, RSSPerConn: 8000, HeapPerConn: 4500, GoroutinesPerConn: 1},
		{Conns: 10000, RSSPerConn: 7000, HeapPerConn: 3900, GoroutinesPerConn: 1},
	}}}
	var b strings.Builder
	var ts targets
	renderIdle(&b, recs, &ts)
	want := map[string]string{
		"idle RSS per connection ≤ 10 KB (rpcgen)":     "12.0 KB at 1000 connections",
		"idle Go heap per connection ≤ 10 KB (rpcgen)": "4.5 KB at 5000 connections",
	}
	for _, tg := range ts {
		if w, ok := want[tg.name]; ok && tg.detail != w {
			t.Errorf("%s: detail %q, want %q", tg.name, tg.detail, w)
		}
	}
}
