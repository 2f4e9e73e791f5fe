package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rpcgen/rpcgen/bench/internal/memtrend"
)

// loadRecord is one line of the load tool's -json output (bench/cmd/load):
// one server's result in one mode.
type loadRecord struct {
	Mode   string `json:"mode"` // throughput, idle or scale
	Server string `json:"server"`
	Run    struct {
		Date, CPU, Go, OSArch, Commit string
		Cores                         int
	} `json:"run"`
	Conns     int          `json:"conns"`
	Calls     uint64       `json:"calls"`
	Errors    uint64       `json:"errors"`
	Seconds   float64      `json:"seconds"`
	Rate      float64      `json:"calls_per_s"`
	Latency   latency      `json:"latency"`
	LateBy    latency      `json:"latency_from_due"`
	IntervalS float64      `json:"interval_s"`
	DurationS float64      `json:"duration_s"`
	Offered   float64      `json:"offered_per_s"`
	MemLimit  string       `json:"mem_limit"` // the server's GOMEMLIMIT in a scale run, or ""
	Samples   []memSample  `json:"samples"`
	Levels    []idleLevel  `json:"levels"`
	BaseRSS   uint64       `json:"base_rss"`
	BaseHeap  uint64       `json:"base_heap"`
	HeapSites []heapSite   `json:"heap_sites"`
	Waiting   []waitingSum `json:"goroutines_waiting"`
}

// latency is a histogram's percentiles, in milliseconds.
type latency struct {
	P50  float64 `json:"p50_ms"`
	P99  float64 `json:"p99_ms"`
	P999 float64 `json:"p999_ms"`
	Max  float64 `json:"max_ms"`
}

// memSample is the server's memory at one moment of a scale run.
type memSample struct {
	AtS        float64 `json:"at_s"`
	RSS        uint64  `json:"rss"`
	HeapInuse  uint64  `json:"heap_inuse"`
	HeapLive   uint64  `json:"heap_live"`
	GCs        uint64  `json:"gcs"`
	Goroutines int     `json:"goroutines"`
}

// idleLevel is the server's memory with some idle connections open. RSS
// is as the server holds it after the settle; RSSFreed (0 in runs from
// before it was measured) after the server's debug.FreeOSMemory.
type idleLevel struct {
	Conns             int     `json:"conns"`
	RSS               uint64  `json:"rss"`
	RSSFreed          uint64  `json:"rss_freed"`
	RSSPerConn        float64 `json:"rss_per_conn"`
	RSSFreedPerConn   float64 `json:"rss_freed_per_conn"`
	LivePerConn       float64 `json:"live_heap_per_conn"`
	HeapPerConn       float64 `json:"heap_per_conn"`
	StackPerConn      float64 `json:"stack_per_conn"`
	GoroutinesPerConn float64 `json:"goroutines_per_conn"`
}

// heapSite is an allocation site's share of the idle heap, per connection.
type heapSite struct {
	Leaf    string  `json:"leaf"`
	Owner   string  `json:"owner"`
	Bytes   float64 `json:"bytes_per_conn"`
	Objects float64 `json:"objects_per_conn"`
}

// waitingSum is where idle goroutines wait, per connection.
type waitingSum struct {
	Where   string  `json:"where"`
	PerConn float64 `json:"per_conn"`
}

// parseLoad reads the load tool's JSON lines.
func parseLoad(r io.Reader) ([]loadRecord, error) {
	var out []loadRecord
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var rec loadRecord
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		switch rec.Mode {
		case "throughput", "idle", "scale":
		default:
			return nil, fmt.Errorf("line %d: unknown mode %q", n, rec.Mode)
		}
		if rec.Mode == "idle" && len(rec.Levels) == 0 {
			return nil, fmt.Errorf("line %d: an idle record with no levels", n)
		}
		out = append(out, rec)
	}
	return out, sc.Err()
}

// recordsOf returns the records of mode, in order.
func recordsOf(recs []loadRecord, mode string) []loadRecord {
	var out []loadRecord
	for _, r := range recs {
		if r.Mode == mode {
			out = append(out, r)
		}
	}
	return out
}

// mb formats bytes in MiB; kb in KB (1,000 bytes, as the issue counts).
func mb(b uint64) string   { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
func kb(b float64) string  { return fmt.Sprintf("%.1f KB", b/1000) }
func msf(v float64) string { return fmt.Sprintf("%.2f ms", v) }

// renderLoad writes the load tool's tables and adds their targets to ts.
func renderLoad(b *strings.Builder, recs []loadRecord, ts *targets) {
	if len(recs) == 0 {
		return
	}
	r0 := recs[0].Run
	fmt.Fprintf(b, "\n### At scale: the load tool\n\n`bench/cmd/load`, run %s at %s; the server is a child process playing the Supex runtime role "+
		"(`rpcgen`: generated/supex on `transport.Server`; `minimal`: a hand-written encoding/json server, one goroutine per connection), "+
		"over TCP on 127.0.0.1. The tool and the server share the machine.\n", r0.Date, r0.Commit)
	if th := recordsOf(recs, "throughput"); len(th) > 0 {
		var minimal float64
		for _, r := range th {
			if r.Server == "minimal" {
				minimal = r.Rate
			}
		}
		fmt.Fprintf(b, "\nThroughput: %d ping calls over %d connections, one in flight on each; latency percentiles from a histogram.\n\n", th[0].Calls, th[0].Conns)
		b.WriteString("| server | calls/s | p50 | p99 | p999 | max | errors | calls/s ÷ minimal's |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, r := range th {
			ratio := "—"
			if minimal > 0 {
				ratio = fmt.Sprintf("%.2f", r.Rate/minimal)
			}
			fmt.Fprintf(b, "| %s | %.0f | %s | %s | %s | %s | %d | %s |\n", r.Server, r.Rate,
				msf(r.Latency.P50), msf(r.Latency.P99), msf(r.Latency.P999), msf(r.Latency.Max), r.Errors, ratio)
		}
	}
	if idle := recordsOf(recs, "idle"); len(idle) > 0 {
		renderIdle(b, idle, ts)
	}
	if sc := recordsOf(recs, "scale"); len(sc) > 0 {
		renderScale(b, sc, ts)
	}
}

// worstLevel returns the level with the largest value of v: the one
// furthest from a target that bounds v from above.
func worstLevel(levels []idleLevel, v func(idleLevel) float64) idleLevel {
	w := levels[0]
	for _, lv := range levels[1:] {
		if v(lv) > v(w) {
			w = lv
		}
	}
	return w
}

// renderIdle writes the memory per idle connection; rpcgen's server is
// held to the targets.
func renderIdle(b *strings.Builder, recs []loadRecord, ts *targets) {
	fmt.Fprintf(b, "\nIdle connections after hello and a second without messages (the load tool's `-settle`): the server's memory minus the same with no connection, per connection. "+
		"RSS is the server's as it holds it then; RSS freed is the same once the server has collected its garbage and returned its free pages to the system (`debug.FreeOSMemory`), "+
		"what the connections themselves hold; the live heap (marked by that GC), heap in use and stacks are after that GC. "+
		"Targets (rpcgen): RSS (the first column, not the freed one) and Go heap in use ≤ %s each, ≤ %.0f goroutine (the reader).\n\n", kb(idleTargetBytes), idleGoroutines)
	b.WriteString("| server | connections | server RSS | RSS / conn | RSS freed / conn | live heap / conn | heap / conn | stacks / conn | goroutines / conn |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range recs {
		rss, heap, gor := target{name: "idle RSS per connection ≤ 10 KB (rpcgen)", met: true},
			target{name: "idle Go heap per connection ≤ 10 KB (rpcgen)", met: true},
			target{name: "no goroutine per idle connection beyond the reader (rpcgen)", met: true}
		for _, lv := range r.Levels {
			cells := []string{kb(lv.RSSPerConn), kb(lv.HeapPerConn), fmt.Sprintf("%.2f", lv.GoroutinesPerConn)}
			if r.Server == "rpcgen" {
				for i, ch := range []struct {
					t     *target
					v, tg float64
				}{{&rss, lv.RSSPerConn, idleTargetBytes}, {&heap, lv.HeapPerConn, idleTargetBytes}, {&gor, lv.GoroutinesPerConn, idleGoroutines}} {
					ok := ch.v <= ch.tg
					ch.t.met = ch.t.met && ok
					cells[i] += " " + mark(ok)
				}
			}
			freed, live := "—", "—" // not measured in runs from before
			if lv.RSSFreed != 0 {
				freed, live = kb(lv.RSSFreedPerConn), kb(lv.LivePerConn)
			}
			fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", r.Server, lv.Conns, mb(lv.RSS), cells[0], freed, live, cells[1], kb(lv.StackPerConn), cells[2])
		}
		if r.Server == "rpcgen" {
			// Each verdict names the level furthest from its target.
			rssAt := worstLevel(r.Levels, func(lv idleLevel) float64 { return lv.RSSPerConn })
			heapAt := worstLevel(r.Levels, func(lv idleLevel) float64 { return lv.HeapPerConn })
			gorAt := worstLevel(r.Levels, func(lv idleLevel) float64 { return lv.GoroutinesPerConn })
			rss.detail = fmt.Sprintf("%s at %d connections", kb(rssAt.RSSPerConn), rssAt.Conns)
			heap.detail = fmt.Sprintf("%s at %d connections", kb(heapAt.HeapPerConn), heapAt.Conns)
			gor.detail = fmt.Sprintf("%.2f per connection at %d connections", gorAt.GoroutinesPerConn, gorAt.Conns)
			ts.add(rss, heap, gor)
		}
	}
	for _, r := range recs {
		if r.Server != "rpcgen" || len(r.HeapSites) == 0 {
			continue
		}
		fmt.Fprintf(b, "\nWhere rpcgen's idle heap goes at %d connections (heap profile; sites of 16 bytes per connection or more):\n\n", r.Conns)
		b.WriteString("| allocated by | from | bytes / conn |\n|---|---|---:|\n")
		for i, s := range r.HeapSites {
			if i == 8 {
				break
			}
			owner := "—"
			if s.Owner != "" {
				owner = "`" + s.Owner + "`"
			}
			fmt.Fprintf(b, "| `%s` | %s | %.0f |\n", s.Leaf, owner, s.Bytes)
		}
	}
}

// renderScale writes the scale runs: many connections each calling once per
// interval, their latency, errors and the server's memory. Memory is
// judged by its trend over the run (package memtrend): the mean of the
// last third of the samples against the mean of the middle third.
func renderScale(b *strings.Builder, recs []loadRecord, ts *targets) {
	fmt.Fprintf(b, "\nScale: connections each doing hello, then one ping per interval; the server's memory is sampled at a steady pace "+
		"without forcing a GC. A Go heap swings within each GC cycle between the live heap and the GC goal, so two single samples "+
		"say where in its cycle each fell, not whether memory grows: memory is flat when the mean of the last third of the samples "+
		"is at most %.0f %% above the mean of the middle third, for RSS and for Go heap in use (the first third is the warm-up; "+
		"at least %d samples). First → last is shown as well. A row with a GOMEMLIMIT is the same run with the server's memory "+
		"limit set, shown beside the default and not held to the targets. Targets (rpcgen, no limit): no error, flat memory, "+
		"over %d connections for %d s or more.\n\n", flatTarget, memtrend.MinSamples, scaleConns, scaleSeconds)
	b.WriteString("| server | GOMEMLIMIT | connections | calls (s) | calls/s of offered | errors | p50 | p99 | p99 from due | RSS min / median / max | RSS trend | heap in use min / median / max | heap in use trend | RSS first → last | heap in use first → last | live heap first → last | GCs | flat |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, r := range recs {
		n := len(r.Samples)
		if n == 0 {
			continue
		}
		first, last := r.Samples[0], r.Samples[n-1]
		var rssV, heapV []float64
		for _, s := range r.Samples {
			rssV = append(rssV, float64(s.RSS))
			heapV = append(heapV, float64(s.HeapInuse))
		}
		rss, heap := memtrend.Summarise(rssV), memtrend.Summarise(heapV)
		flat := memtrend.Flat(flatTarget, rss, heap)
		limit := cmp.Or(r.MemLimit, "—")
		fmt.Fprintf(b, "| %s | %s | %d | %d (%.0f s) | %.0f of %.0f | %d | %s | %s | %s | %s | %s | %s | %s | %s → %s (%+.1f %%) | %s → %s (%+.1f %%) | %s → %s | %d | %s |\n",
			r.Server, limit, r.Conns, r.Calls, r.Seconds, r.Rate, r.Offered, r.Errors, msf(r.Latency.P50), msf(r.Latency.P99), msf(r.LateBy.P99),
			spread(rss), trend(rss), spread(heap), trend(heap),
			mb(first.RSS), mb(last.RSS), rss.FirstToLast, mb(first.HeapInuse), mb(last.HeapInuse), heap.FirstToLast,
			mb(first.HeapLive), mb(last.HeapLive), last.GCs-first.GCs, mark(flat))
		if r.Server != "rpcgen" || r.MemLimit != "" {
			continue
		}
		full := r.Conns >= scaleConns && r.DurationS >= scaleSeconds
		size := fmt.Sprintf("%d connections × %.0f s", r.Conns, r.DurationS)
		if !full {
			size += fmt.Sprintf(", shorter than the target's %d × %d s", scaleConns, scaleSeconds)
		}
		ts.add(target{name: "scale: no error (rpcgen)", met: full && r.Errors == 0,
			detail: fmt.Sprintf("%d errors, %.0f of %.0f calls/s offered, %s", r.Errors, r.Rate, r.Offered, size)},
			target{name: "scale: server memory flat (rpcgen)", met: full && flat,
				detail: fmt.Sprintf("trend RSS %s, heap in use %s (first → last: %+.1f %%, %+.1f %%), %s", trend(rss), trend(heap), rss.FirstToLast, heap.FirstToLast, size)})
	}
}

// spread formats a summary's minimum, median and maximum in MiB.
func spread(s memtrend.Summary) string {
	return fmt.Sprintf("%.1f / %.1f / %.1f MiB", s.Min/(1<<20), s.Median/(1<<20), s.Max/(1<<20))
}

// trend formats a summary's trend, or a dash when there were too few
// samples to judge it.
func trend(s memtrend.Summary) string {
	if !s.Judged {
		return "—"
	}
	return fmt.Sprintf("%+.1f %%", s.Trend)
}
