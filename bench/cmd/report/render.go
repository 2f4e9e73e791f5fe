package main

import (
	"errors"
	"fmt"
	"strings"
)

// render returns the Markdown between the markers.
func render(res *results) string {
	var b strings.Builder
	c := res.config
	fmt.Fprintf(&b, "Measured %s on %s, %s cores, %s, %s/%s", or(c["date"], "(date not recorded)"),
		or(c["cpu"], "an unknown CPU"), or(c["cores"], "?"), or(c["go"], "an unknown Go version"),
		or(c["goos"], "?"), or(c["goarch"], "?"))
	if c["commit"] != "" {
		fmt.Fprintf(&b, ", rpcgen at %s", c["commit"])
	}
	fmt.Fprintf(&b, ". Medians of %s runs each.\n\n", runs(res))
	rows := res.rows()
	if len(rows) > 0 {
		renderRPC(&b, rows)
	}
	if mcp := res.mcpRows(); len(mcp) > 0 {
		renderMCP(&b, mcp)
	}
	if lsp := res.lspRows(); len(lsp) > 0 {
		renderLSP(&b, lsp)
	}
	renderGenerator(&b, res)
	return b.String()
}

// renderRPC writes the side-by-side table and its summary.
func renderRPC(b *strings.Builder, rows []*row) {
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
				if i == 4 {
					mark := "✗"
					if ch.ratio <= 1 {
						mark = "✓"
					}
					cols[5] = fmt.Sprintf("%.0f %s", g.allocs, mark)
					continue
				}
				cols[i+1] = verdict(ch.ratio, ch.target)
			}
		}
		for _, s := range cols {
			fmt.Fprintf(b, " %s |", s)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "\nTargets met: time ÷ ceiling in %d of %d rows, time ÷ fastest peer in %d of %d, allocs ÷ leanest peer in %d of %d, "+
		"time ÷ stdjson in %d of %d, allocs per add in %d of %d.\n",
		met[0], total[0], met[1], total[1], met[2], total[2], met[3], total[3], met[4], total[4])
}

// renderMCP writes the MCP rows: rpcgen's generated mcp package on
// runtime/streamhttp against the official MCP Go SDK, each as server and
// client of a tools/call over HTTP.
func renderMCP(b *strings.Builder, rows []*row) {
	b.WriteString("\nMCP `tools/call` over Streamable HTTP (loopback server, server and client of the same implementation; ")
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
