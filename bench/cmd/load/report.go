package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/bench/internal/memtrend"
)

// info returns the run's context: date, machine, Go version, commit
// (commit "" asks git for the current one).
func info(commit string) runInfo {
	if commit == "" {
		commit = "unknown"
		if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
			commit = strings.TrimSpace(string(out))
		}
	}
	return runInfo{Date: time.Now().UTC().Format("2006-01-02 15:04 UTC"), CPU: cpuModel(), Cores: runtime.NumCPU(),
		Go: runtime.Version(), OSArch: runtime.GOOS + "/" + runtime.GOARCH, Commit: commit}
}

// header is the run's context line: date, machine, Go version, commit.
func header(i runInfo) string {
	return fmt.Sprintf("%s, %s (%d cores), %s, commit %s", i.Date, i.CPU, i.Cores, i.Go, i.Commit)
}

// cpuModel returns the processor's name from /proc/cpuinfo.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

// ms formats a duration in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/1e6) }

// mib formats bytes in MiB.
func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// kb formats bytes in KB (1,000 bytes, as the issue counts).
func kb(b float64) string { return fmt.Sprintf("%.1f KB", b/1000) }

func writeThroughput(w io.Writer, h string, calls, conns int, rs []*throughputResult) {
	fmt.Fprintf(w, "#### Throughput: %d ping calls over %d connections\n\n%s. Server in a child process; it and the load tool share the machine.\n\n", calls, conns, h)
	fmt.Fprintln(w, "| server | calls/s | p50 | p99 | p999 | max | errors | calls/s ÷ minimal's |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
	var minimal float64
	for _, r := range rs {
		if r.impl == implMinimal {
			minimal = r.rate()
		}
	}
	for _, r := range rs {
		ratio := "–"
		if minimal > 0 {
			ratio = fmt.Sprintf("%.2f", r.rate()/minimal)
		}
		fmt.Fprintf(w, "| %s | %.0f | %s | %s | %s | %s | %d | %s |\n", r.impl, r.rate(),
			ms(r.hist.percentile(0.50)), ms(r.hist.percentile(0.99)), ms(r.hist.percentile(0.999)),
			ms(time.Duration(r.hist.max)), r.errors, ratio)
	}
	fmt.Fprintln(w)
}

func writeScale(w io.Writer, h string, limit uint64, interval, duration time.Duration, rs []*scaleResult) {
	for _, r := range rs {
		lim := ""
		if r.memLimit != "" {
			lim = ", GOMEMLIMIT=" + r.memLimit
		}
		fmt.Fprintf(w, "#### Scale: %d connections, one ping each per %s for %s (%s server%s)\n\n%s; open-file limit %d. Server in a child process; it and the load tool share the machine.\n\n",
			r.conns, interval, duration, r.impl, lim, h, limit)
		offered := float64(r.conns) / interval.Seconds()
		achieved := float64(r.hist.count()) / r.elapsed.Seconds()
		fmt.Fprintf(w, "%d calls, %d errors, in %.1f s: %.0f calls/s of the %.0f offered.\n\n", r.hist.count(), r.errors, r.elapsed.Seconds(), achieved, offered)
		fmt.Fprintln(w, "| latency | p50 | p99 | p999 | max |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|")
		for _, l := range []struct {
			name string
			h    *histogram
		}{{"from sending", &r.hist}, {"from when due", &r.late}} {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", l.name,
				ms(l.h.percentile(0.50)), ms(l.h.percentile(0.99)), ms(l.h.percentile(0.999)), ms(time.Duration(l.h.max)))
		}
		fmt.Fprintln(w)
		writeMemory(w, r.samples)
		fmt.Fprintln(w, "| time | server RSS | Go heap in use | live heap at the last GC | GCs | goroutine stacks | goroutines |")
		fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|")
		for _, s := range r.samples {
			fmt.Fprintf(w, "| %.0f s | %s | %s | %s | %d | %s | %d |\n", s.at.Seconds(), mib(s.rss), mib(s.stats.HeapInuse),
				mib(s.stats.HeapLive), s.stats.GCCycles, mib(s.stats.StackInuse), s.stats.Goroutines)
		}
		fmt.Fprintln(w)
	}
}

// writeMemory summarises a scale run's memory samples: each quantity's
// range, the trend that judges it flat (see package memtrend) and, for
// comparison, the change from the first sample to the last.
func writeMemory(w io.Writer, samples []memSample) {
	if len(samples) == 0 {
		return
	}
	rss, heap, live := summaries(samples)
	fmt.Fprintf(w, "Memory, sampled every %.0f s without forcing a GC (%d samples). Flat means the mean of the last third of the samples "+
		"is at most %.0f %% above the mean of the middle third, for RSS and heap in use; the first third is the warm-up.\n\n",
		sampleStep(samples), len(samples), flatLimit)
	fmt.Fprintln(w, "| | min | median | max | middle third | last third | trend | first → last |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, q := range []struct {
		name string
		s    memtrend.Summary
	}{{"server RSS", rss}, {"Go heap in use", heap}, {"live heap at the last GC", live}} {
		trend := "—"
		if q.s.Judged {
			trend = fmt.Sprintf("%+.1f %%", q.s.Trend)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s → %s (%+.1f %%) |\n", q.name, mibf(q.s.Min), mibf(q.s.Median), mibf(q.s.Max),
			mibf(q.s.Middle), mibf(q.s.Late), trend, mibf(q.s.First), mibf(q.s.Last), q.s.FirstToLast)
	}
	fmt.Fprintf(w, "\nFlat: %v. GCs during the run: %d.\n\n", memtrend.Flat(flatLimit, rss, heap),
		samples[len(samples)-1].stats.GCCycles-samples[0].stats.GCCycles)
}

// flatLimit is the most the mean of the last third of a run's samples may
// exceed the mean of its middle third for memory to count as flat, in
// percent.
const flatLimit = 10.0

// summaries summarises the samples' RSS, heap in use and live heap.
func summaries(samples []memSample) (rss, heap, live memtrend.Summary) {
	var r, h, l []float64
	for _, s := range samples {
		r = append(r, float64(s.rss))
		h = append(h, float64(s.stats.HeapInuse))
		l = append(l, float64(s.stats.HeapLive))
	}
	return memtrend.Summarise(r), memtrend.Summarise(h), memtrend.Summarise(l)
}

// sampleStep is the mean time between two samples, in seconds.
func sampleStep(samples []memSample) float64 {
	if len(samples) < 2 {
		return 0
	}
	return (samples[len(samples)-1].at - samples[0].at).Seconds() / float64(len(samples)-1)
}

// mibf formats bytes in MiB.
func mibf(b float64) string { return fmt.Sprintf("%.1f MiB", b/(1<<20)) }

func writeIdle(w io.Writer, h string, limit uint64, rs []*idleResult) error {
	for _, r := range rs {
		fmt.Fprintf(w, "#### Idle connections after hello (%s server)\n\n%s; open-file limit %d. Server in a child process at Go's default heap-profiling rate. "+
			"Per connection, minus the same with no connection (RSS %s, after FreeOSMemory %s, live heap %s, heap in use %s): "+
			"RSS as the server holds it after the settle; RSS once the server has collected its garbage and returned its free pages (debug.FreeOSMemory); "+
			"the live heap the GC marked, heap in use and stacks, after that GC.\n\n",
			r.impl, h, limit, mib(r.base.rss), mib(r.baseFreed), mib(r.base.stats.HeapLive), mib(r.base.stats.HeapInuse))
		fmt.Fprintln(w, "| connections | server RSS | RSS / conn | RSS after FreeOSMemory / conn | live heap / conn | Go heap in use / conn | goroutine stacks / conn | goroutines / conn |")
		fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|")
		for _, lv := range r.levels {
			fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %s | %s | %.2f |\n", lv.conns, mib(lv.rss), kb(lv.rssPer), kb(lv.rssFreedPer),
				kb(lv.livePer), kb(lv.heapPer), kb(lv.stackPer), float64(lv.goroutines-r.base.stats.Goroutines)/float64(lv.conns))
		}
		sites, err := summariseHeap(r.profile)
		if err != nil {
			return err
		}
		n := float64(r.levels[len(r.levels)-1].conns)
		fmt.Fprintf(w, "\nLive heap at %.0f idle connections by allocation site (heap profile of a second server with a finer profiling rate, scaled from its samples):\n\n", n)
		fmt.Fprintln(w, "| allocated by | from | bytes / conn | objects / conn |")
		fmt.Fprintln(w, "|---|---|---:|---:|")
		for i, s := range sites {
			if i == 12 || s.bytes/n < 16 {
				break
			}
			fmt.Fprintf(w, "| `%s` | `%s` | %.0f | %.2f |\n", s.leaf, s.owner, s.bytes/n, s.objects/n)
		}
		fmt.Fprintf(w, "\nGoroutines at %.0f idle connections by where they wait:\n\n", n)
		fmt.Fprintln(w, "| waiting in | goroutines / conn |")
		fmt.Fprintln(w, "|---|---:|")
		for _, g := range summariseGoroutines(r.goroutines) {
			if float64(g.count)/n < 0.01 {
				break
			}
			fmt.Fprintf(w, "| `%s` | %.2f |\n", g.where, float64(g.count)/n)
		}
		fmt.Fprintln(w)
	}
	return nil
}
