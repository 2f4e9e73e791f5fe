package main

import (
	"errors"
	"fmt"
	"strings"
)

// target is one of the performance issue's targets and whether the
// results meet it.
type target struct {
	name   string
	met    bool
	detail string // the measurement behind the verdict, e.g. "10 of 12 rows"
}

// targets collects the targets as the tables are written.
type targets []target

func (ts *targets) add(t ...target) { *ts = append(*ts, t...) }

// mark is ✓ or ✗.
func mark(ok bool) string {
	if ok {
		return "✓"
	}
	return "✗"
}

// render returns the Markdown between the markers.
func render(res *results) string {
	var body strings.Builder
	var ts targets
	if rows := res.rows(); len(rows) > 0 {
		renderRPC(&body, rows, &ts)
	}
	if mcp := res.mcpOpRows(); len(mcp) > 0 {
		renderMCPOps(&body, mcp, &ts)
	}
	if mcp := res.mcpRows(); len(mcp) > 0 {
		renderMCP(&body, mcp)
	}
	if lsp := res.lspRows(); len(lsp) > 0 {
		renderLSP(&body, lsp)
	}
	renderGenerator(&body, res, &ts)
	renderLoad(&body, res.load, &ts)

	var b strings.Builder
	renderHeader(&b, res)
	met := 0
	var notMet []target
	for _, t := range ts {
		if t.met {
			met++
		} else {
			notMet = append(notMet, t)
		}
	}
	fmt.Fprintf(&b, "**Targets met: %d of %d.**", met, len(ts))
	if len(notMet) > 0 {
		b.WriteString(" Not met:\n\n")
		for _, t := range notMet {
			fmt.Fprintf(&b, "- %s: %s\n", t.name, t.detail)
		}
	} else {
		b.WriteString("\n")
	}
	b.WriteString(body.String())
	return b.String()
}

// renderHeader writes when (the first to the last date of the inputs), on
// what and at which commit the results were measured; inputs measured at
// another commit than the first are named.
func renderHeader(b *strings.Builder, res *results) {
	c := res.config
	type stamp struct{ what, date, commit string }
	var stamps []stamp
	for _, p := range res.parts {
		stamps = append(stamps, stamp{"`" + p.file + "`", p.date, p.commit})
	}
	if len(res.load) > 0 {
		r := res.load[0].Run
		stamps = append(stamps, stamp{"the load tool", r.Date, r.Commit})
	}
	var first, last, commit string
	for _, s := range stamps {
		if s.date != "" && (first == "" || s.date < first) {
			first = s.date
		}
		last = max(last, s.date)
		if commit == "" {
			commit = s.commit
		}
	}
	cpu, cores, goVersion, osArch := c["cpu"], c["cores"], c["go"], ""
	if c["goos"] != "" {
		osArch = c["goos"] + "/" + c["goarch"]
	}
	if len(res.load) > 0 {
		r := res.load[0].Run
		cpu, goVersion, osArch = or(cpu, r.CPU), or(goVersion, r.Go), or(osArch, r.OSArch)
		if cores == "" && r.Cores > 0 {
			cores = fmt.Sprint(r.Cores)
		}
	}
	when := or(first, "(date not recorded)")
	if last != first {
		when += " to " + last
	}
	fmt.Fprintf(b, "Measured %s on %s, %s cores, %s, %s", when,
		or(cpu, "an unknown CPU"), or(cores, "?"), or(goVersion, "an unknown Go version"), or(osArch, "?/?"))
	if commit != "" {
		fmt.Fprintf(b, ", rpcgen at %s", commit)
	}
	var others []string
	for _, s := range stamps {
		if s.commit != commit {
			others = append(others, fmt.Sprintf("%s at %s", s.what, or(s.commit, "an unrecorded commit")))
		}
	}
	if len(others) > 0 {
		fmt.Fprintf(b, " (%s)", strings.Join(others, ", "))
	}
	if len(res.names) > 0 {
		fmt.Fprintf(b, ". Benchmarks: medians of %s runs each", runs(res))
		if fewestRuns(res) < fullRuns {
			fmt.Fprintf(b, " (a short run: a full one has %d)", fullRuns)
		}
	}
	b.WriteString(".\n\n")
}

// renderRPC writes the side-by-side table and its summary, and adds its
// targets to ts: per op, time ÷ the ceiling in every row; time ÷ the fastest
// peer and ÷ stdjson in every row.
func renderRPC(b *strings.Builder, rows []*row, ts *targets) {
	b.WriteString("\n### Close to the ceiling\n\n")
	b.WriteString("Each cell is median time per op / allocations per op. ")
	b.WriteString("Time is compared with the preencoded ceiling, the fastest peer and stdjson, allocations with the peer that allocates least; ")
	fmt.Fprintf(b, "targets: time ≤ %.1f× the ceiling for add and notify, ≤ %.0f× for the rows with a payload, ", ceilingSmall, ceilingPayload)
	fmt.Fprintf(b, "time ≤ %.2f× the fastest peer, ≤ %.2f× stdjson, allocs ≤ %.2f× the leanest peer, ≤ %d allocs per add. ",
		timeTarget, stdjsonTarget, allocsTarget, addAllocsTarget)
	b.WriteString("Rows: echo is 1 KiB of ASCII, echo64k and echo1m 64 KiB and 1 MiB, escape 1 KiB that needs escaping, ")
	b.WriteString("didopen a notification carrying a 100 KB source file in several scripts.\n\n")
	b.WriteString("| op | framing | transport | callers |")
	for _, im := range columns {
		fmt.Fprintf(b, " %s |", im)
	}
	b.WriteString(" fastest peer | time ÷ ceiling | time ÷ peer | allocs ÷ peer | time ÷ stdjson | allocs/add |\n|")
	for range 4 + len(columns) + 6 {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	var met, total [5]int
	unreachable := 0 // rows missing the peer target where the ceiling misses it too
	var ops []string
	opMet, opTotal := map[string]int{}, map[string]int{}
	for _, r := range rows {
		b.WriteString("|")
		for _, part := range strings.Split(r.key, "/") {
			_, v, _ := strings.Cut(part, "=")
			fmt.Fprintf(b, " %s |", v)
		}
		for _, im := range columns {
			if c, ok := r.cells[im]; ok && c.ok {
				fmt.Fprintf(b, " %s / %.0f |", duration(c.ns), c.allocs)
			} else {
				b.WriteString(" — |")
			}
		}
		g, ok := r.cells["rpcgen"]
		fastest, peerNS, okT := r.best(func(c cell) float64 { return c.ns })
		_, peerAllocs, okA := r.best(func(c cell) float64 { return c.allocs })
		std, okS := r.cells["stdjson"]
		pre, okP := r.cells["preencoded"]
		cols := []string{"—", "—", "—", "—", "—", "—"}
		if okT {
			cols[0] = fastest
		}
		if ok && g.ok {
			checks := []struct {
				have   bool
				ratio  float64
				target float64
			}{
				{okP && pre.ok, ratioOf(g.ns, pre.ns), ceilingTarget(r.op)},
				{okT, ratioOf(g.ns, peerNS), timeTarget},
				{okA, ratioOf(g.allocs, peerAllocs), allocsTarget},
				{okS && std.ok, ratioOf(g.ns, std.ns), stdjsonTarget},
				{r.op == "add", g.allocs / addAllocsTarget, 1},
			}
			for i, ch := range checks {
				if !ch.have {
					continue
				}
				total[i]++
				if ch.ratio <= ch.target {
					met[i]++
				}
				if i == 0 {
					if opTotal[r.op] == 0 {
						ops = append(ops, r.op)
					}
					opTotal[r.op]++
					if ch.ratio <= ch.target {
						opMet[r.op]++
					}
				}
				if i == 4 {
					mark := "✗"
					if ch.ratio <= 1 {
						mark = "✓"
					}
					cols[5] = fmt.Sprintf("%.0f %s", g.allocs, mark)
					continue
				}
				cols[i+1] = verdict(ch.ratio, ch.target)
				if i == 1 && ch.ratio > ch.target && okP && pre.ok && ratioOf(pre.ns, peerNS) > ch.target {
					// Not even the ceiling meets this target in this row.
					unreachable++
					cols[i+1] += fmt.Sprintf(" (ceiling %.2f)", ratioOf(pre.ns, peerNS))
				}
			}
		}
		for _, s := range cols {
			fmt.Fprintf(b, " %s |", s)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "\nRows meeting each ratio: time ÷ ceiling in %d of %d rows, time ÷ fastest peer in %d of %d, allocs ÷ leanest peer in %d of %d, "+
		"time ÷ stdjson in %d of %d, allocs per add in %d of %d.\n",
		met[0], total[0], met[1], total[1], met[2], total[2], met[3], total[3], met[4], total[4])
	if unreachable > 0 {
		fmt.Fprintf(b, "In %d of the rows missing time ÷ fastest peer the preencoded ceiling itself is above %.2f× that peer (shown in brackets): no implementation can meet the target there.\n",
			unreachable, timeTarget)
	}
	for _, op := range ops {
		ts.add(target{name: fmt.Sprintf("%s: time ≤ %.1f× the preencoded ceiling in every row", op, ceilingTarget(op)),
			met: opMet[op] == opTotal[op], detail: fmt.Sprintf("%d of %d rows", opMet[op], opTotal[op])})
	}
	for _, t := range []struct {
		i    int
		name string
	}{{1, fmt.Sprintf("time ≤ %.1f× the fastest peer library in every row", timeTarget)}, {3, "no slower than stdjson in every row"}} {
		if total[t.i] > 0 {
			detail := fmt.Sprintf("%d of %d rows", met[t.i], total[t.i])
			if t.i == 1 && unreachable > 0 {
				detail += fmt.Sprintf("; in %d of the misses the ceiling itself is above %.2f×", unreachable, timeTarget)
			}
			ts.add(target{name: t.name, met: met[t.i] == total[t.i], detail: detail})
		}
	}
}

// renderMCP writes the MCP rows: rpcgen's generated mcp package on
// runtime/streamhttp against the official MCP Go SDK, each as server and
// client of a tools/call over HTTP.
func renderMCP(b *strings.Builder, rows []*row) {
	b.WriteString("\n### MCP tools/call over HTTP against the official SDK\n\nMCP `tools/call` over Streamable HTTP (loopback server, server and client of the same implementation; ")
	b.WriteString("see `mcphttp.go`). Each cell is median time per call / allocations per call.\n\n")
	b.WriteString("| op | transport | callers | rpcgen | gosdk | time ÷ gosdk | allocs ÷ gosdk |\n|---|---|---|---|---|---|---|\n")
	renderPairRows(b, rows, "gosdk")
}

// renderPairRows writes one table line per row: the row's key values,
// rpcgen's and peer's median time / allocations, and their ratios.
func renderPairRows(b *strings.Builder, rows []*row, peer string) {
	for _, r := range rows {
		b.WriteString("|")
		for _, part := range strings.Split(r.key, "/") {
			_, v, _ := strings.Cut(part, "=")
			fmt.Fprintf(b, " %s |", v)
		}
		g, okG := r.cells["rpcgen"]
		p, okP := r.cells[peer]
		for _, c := range []cell{g, p} {
			if c.ok {
				fmt.Fprintf(b, " %s / %.0f |", duration(c.ns), c.allocs)
			} else {
				b.WriteString(" — |")
			}
		}
		if okG && okP && g.ok && p.ok {
			fmt.Fprintf(b, " %.2f | %.2f |\n", ratioOf(g.ns, p.ns), ratioOf(g.allocs, p.allocs))
		} else {
			b.WriteString(" — | — |\n")
		}
	}
}

// fullRuns is the runs of each benchmark in a full `make bench`.
const fullRuns = 6

// fewestRuns returns the fewest runs any benchmark has.
func fewestRuns(res *results) int {
	lo := -1
	for _, s := range res.byName {
		if lo < 0 || len(s.ns) < lo {
			lo = len(s.ns)
		}
	}
	return lo
}

// runs describes how many runs each benchmark has.
func runs(res *results) string {
	lo, hi := -1, 0
	for _, s := range res.byName {
		n := len(s.ns)
		if lo < 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}

// or returns s, or def when s is empty.
func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// splice replaces what lies between the markers in doc with body.
func splice(doc, body string) (string, error) {
	i := strings.Index(doc, beginMarker)
	j := strings.Index(doc, endMarker)
	if i < 0 || j < i {
		return "", errors.New("no " + beginMarker + " ... " + endMarker + " section")
	}
	return doc[:i+len(beginMarker)] + "\n" + body + doc[j:], nil
}
