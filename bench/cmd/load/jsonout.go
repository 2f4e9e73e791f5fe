package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// runInfo is the context of a run that each JSON record carries.
type runInfo struct {
	Date   string `json:"date"`
	CPU    string `json:"cpu"`
	Cores  int    `json:"cores"`
	Go     string `json:"go"`
	OSArch string `json:"osarch"`
	Commit string `json:"commit"`
}

// latency is a histogram's summary, in milliseconds.
type latency struct {
	P50  float64 `json:"p50_ms"`
	P99  float64 `json:"p99_ms"`
	P999 float64 `json:"p999_ms"`
	Max  float64 `json:"max_ms"`
}

func latencyOf(h *histogram) latency {
	f := func(d time.Duration) float64 { return float64(d) / 1e6 }
	return latency{f(h.percentile(0.50)), f(h.percentile(0.99)), f(h.percentile(0.999)), f(time.Duration(h.max))}
}

// record is one line of -json output: one server's result in one mode.
// Only the members of its mode are set.
type record struct {
	Mode   string  `json:"mode"` // throughput, idle or scale
	Server string  `json:"server"`
	Run    runInfo `json:"run"`

	// throughput and scale
	Conns   int      `json:"conns"`
	Calls   uint64   `json:"calls,omitempty"`
	Errors  uint64   `json:"errors"`
	Seconds float64  `json:"seconds,omitempty"`
	Rate    float64  `json:"calls_per_s,omitempty"`
	Latency *latency `json:"latency,omitempty"`

	// scale
	MemLimit  string       `json:"mem_limit,omitempty"` // the server's GOMEMLIMIT
	IntervalS float64      `json:"interval_s,omitempty"`
	DurationS float64      `json:"duration_s,omitempty"`
	Offered   float64      `json:"offered_per_s,omitempty"`
	LateBy    *latency     `json:"latency_from_due,omitempty"`
	Samples   []sampleJSON `json:"samples,omitempty"`
	Levels    []levelJSON  `json:"levels,omitempty"`    // idle
	BaseRSS   uint64       `json:"base_rss,omitempty"`  // idle: with no connection
	BaseHeap  uint64       `json:"base_heap,omitempty"` // idle
	// idle: with no connection, RSS after debug.FreeOSMemory and the
	// live heap
	BaseRSSFreed uint64        `json:"base_rss_freed,omitempty"`
	BaseLive     uint64        `json:"base_live_heap,omitempty"`
	HeapSites    []siteJSON    `json:"heap_sites,omitempty"`
	Waiting      []waitingJSON `json:"goroutines_waiting,omitempty"`
}

// sampleJSON is the server's memory at one moment of a scale run.
type sampleJSON struct {
	AtS        float64 `json:"at_s"`
	RSS        uint64  `json:"rss"`
	HeapInuse  uint64  `json:"heap_inuse"`
	HeapLive   uint64  `json:"heap_live"`
	GCs        uint64  `json:"gcs"`
	Stack      uint64  `json:"stack"`
	Goroutines int     `json:"goroutines"`
}

// levelJSON is the server's memory with some idle connections open: RSS
// as the server holds it after the settle, RSS after the server's
// debug.FreeOSMemory, the live heap the GC marked, heap in use.
type levelJSON struct {
	Conns             int     `json:"conns"`
	RSS               uint64  `json:"rss"`
	RSSFreed          uint64  `json:"rss_freed"`
	Heap              uint64  `json:"heap"`
	Live              uint64  `json:"live_heap"`
	RSSPerConn        float64 `json:"rss_per_conn"`
	RSSFreedPerConn   float64 `json:"rss_freed_per_conn"`
	LivePerConn       float64 `json:"live_heap_per_conn"`
	HeapPerConn       float64 `json:"heap_per_conn"`
	StackPerConn      float64 `json:"stack_per_conn"`
	GoroutinesPerConn float64 `json:"goroutines_per_conn"`
}

// siteJSON is an allocation site's share of the idle heap, per connection.
type siteJSON struct {
	Leaf    string  `json:"leaf"`
	Owner   string  `json:"owner"`
	Bytes   float64 `json:"bytes_per_conn"`
	Objects float64 `json:"objects_per_conn"`
}

// waitingJSON is where idle goroutines wait, per connection.
type waitingJSON struct {
	Where   string  `json:"where"`
	PerConn float64 `json:"per_conn"`
}

// writeJSON writes one record per line.
func writeJSON(w io.Writer, recs []record) error {
	enc := json.NewEncoder(w)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("writing the %s record: %w", r.Mode, err)
		}
	}
	return nil
}

func throughputRecords(info runInfo, conns int, rs []*throughputResult) []record {
	var out []record
	for _, r := range rs {
		l := latencyOf(&r.hist)
		out = append(out, record{Mode: "throughput", Server: r.impl, Run: info, Conns: conns, Calls: r.calls,
			Errors: r.errors, Seconds: r.elapsed.Seconds(), Rate: r.rate(), Latency: &l})
	}
	return out
}

func scaleRecords(info runInfo, interval, duration time.Duration, rs []*scaleResult) []record {
	var out []record
	for _, r := range rs {
		l, late := latencyOf(&r.hist), latencyOf(&r.late)
		rec := record{Mode: "scale", Server: r.impl, MemLimit: r.memLimit, Run: info, Conns: r.conns, Calls: r.hist.count(), Errors: r.errors,
			Seconds: r.elapsed.Seconds(), Rate: float64(r.hist.count()) / r.elapsed.Seconds(), Latency: &l, LateBy: &late,
			IntervalS: interval.Seconds(), DurationS: duration.Seconds(), Offered: float64(r.conns) / interval.Seconds()}
		for _, s := range r.samples {
			rec.Samples = append(rec.Samples, sampleJSON{AtS: s.at.Seconds(), RSS: s.rss, HeapInuse: s.stats.HeapInuse,
				HeapLive: s.stats.HeapLive, GCs: s.stats.GCCycles, Stack: s.stats.StackInuse, Goroutines: s.stats.Goroutines})
		}
		out = append(out, rec)
	}
	return out
}

func idleRecords(info runInfo, rs []*idleResult) ([]record, error) {
	var out []record
	for _, r := range rs {
		rec := record{Mode: "idle", Server: r.impl, Run: info, BaseRSS: r.base.rss, BaseHeap: r.base.stats.HeapInuse,
			BaseRSSFreed: r.baseFreed, BaseLive: r.base.stats.HeapLive}
		for _, lv := range r.levels {
			rec.Levels = append(rec.Levels, levelJSON{Conns: lv.conns, RSS: lv.rss, RSSFreed: lv.rssFreed, Heap: lv.heap, Live: lv.live,
				RSSPerConn: lv.rssPer, RSSFreedPerConn: lv.rssFreedPer, LivePerConn: lv.livePer, HeapPerConn: lv.heapPer, StackPerConn: lv.stackPer,
				GoroutinesPerConn: float64(lv.goroutines-r.base.stats.Goroutines) / float64(lv.conns)})
		}
		n := float64(r.levels[len(r.levels)-1].conns)
		rec.Conns = int(n)
		sites, err := summariseHeap(r.profile)
		if err != nil {
			return nil, err
		}
		for i, s := range sites {
			if i == 12 || s.bytes/n < 16 {
				break
			}
			rec.HeapSites = append(rec.HeapSites, siteJSON{Leaf: s.leaf, Owner: s.owner, Bytes: s.bytes / n, Objects: s.objects / n})
		}
		for _, g := range summariseGoroutines(r.goroutines) {
			if float64(g.count)/n < 0.01 {
				break
			}
			rec.Waiting = append(rec.Waiting, waitingJSON{Where: g.where, PerConn: float64(g.count) / n})
		}
		out = append(out, rec)
	}
	return out, nil
}
