package main

import (
	"fmt"
	"strings"
)

// mcpSDKs are the MCP SDKs rpcgen's generated mcp package is compared with.
var mcpSDKs = []string{"gosdk", "mcpgo"}

// renderMCPOps writes the BenchmarkMCP rows, rpcgen against the faster of
// the two SDKs in each row, and adds the two MCP targets (time and
// allocations, every row) to ts.
func renderMCPOps(b *strings.Builder, rows []*row, ts *targets) {
	b.WriteString("\n### MCP at protocol level\n\n")
	b.WriteString("rpcgen's generated `mcp` package against the official Go SDK (`gosdk`) and mark3labs/mcp-go (`mcpgo`), ")
	b.WriteString("each as server and client of itself in one process (`mcp_work.go`): `initialize` is a whole session, ")
	b.WriteString("`tools-list` answers 50 tools with input schemas, `tools-call` answers structured content, ")
	b.WriteString("`progress` is one call during which the server sends 1,000 progress notifications. ")
	b.WriteString("Each cell is median time per op / allocations per op; — is a row an SDK cannot run (the benchmark says why). ")
	fmt.Fprintf(b, "Targets: rpcgen's time ≤ %.2f× and allocations ≤ %.2f× the faster SDK's (by time) in every row.\n\n", mcpTimeTarget, mcpAllocsTarget)
	b.WriteString("| op | transport | rpcgen | gosdk | mcpgo | faster SDK | time ÷ SDK | allocs ÷ SDK |\n|---|---|---|---|---|---|---|---|\n")
	var metT, metA, total int
	for _, r := range rows {
		b.WriteString("|")
		for _, part := range strings.Split(r.key, "/") {
			_, v, _ := strings.Cut(part, "=")
			fmt.Fprintf(b, " %s |", v)
		}
		for _, im := range append([]string{"rpcgen"}, mcpSDKs...) {
			if c, ok := r.cells[im]; ok && c.ok {
				fmt.Fprintf(b, " %s / %.0f |", duration(c.ns), c.allocs)
			} else {
				b.WriteString(" — |")
			}
		}
		faster, fc, found := "", cell{}, false
		for _, sdk := range mcpSDKs {
			if c, ok := r.cells[sdk]; ok && c.ok && (!found || c.ns < fc.ns) {
				faster, fc, found = sdk, c, true
			}
		}
		g, ok := r.cells["rpcgen"]
		if !found || !ok || !g.ok {
			b.WriteString(" — | — | — |\n")
			continue
		}
		rt, ra := ratioOf(g.ns, fc.ns), ratioOf(g.allocs, fc.allocs)
		fmt.Fprintf(b, " %s | %s | %s |\n", faster, verdict(rt, mcpTimeTarget), verdict(ra, mcpAllocsTarget))
		total++
		if rt <= mcpTimeTarget {
			metT++
		}
		if ra <= mcpAllocsTarget {
			metA++
		}
	}
	if total == 0 {
		return
	}
	ts.add(target{name: "MCP: time ≤ 1/3 of the faster SDK's in every row", met: metT == total, detail: fmt.Sprintf("%d of %d rows", metT, total)},
		target{name: "MCP: allocations ≤ 1/5 of the faster SDK's in every row", met: metA == total, detail: fmt.Sprintf("%d of %d rows", metA, total)})
}
