package main

import (
	"fmt"
	"strings"
)

// mcpSDKs are the MCP SDKs rpcgen's generated mcp package is compared with.
var mcpSDKs = []string{"gosdk", "mcpgo"}

// mcpFloor is the implementation name of the MCP rows' floor: the same
// exchanges with byte templates and no MCP or JSON-RPC library
// (bench/mcp_preencoded.go).
const mcpFloor = "preencoded"

// renderMCPOps writes the BenchmarkMCP rows, rpcgen against the faster of
// the two SDKs in each row, and adds the two MCP targets (time and
// allocations, every row) to ts. A ratio that misses its target is
// followed by the floor's own ratio to the same SDK when the floor misses
// the target too: no implementation on that transport can meet it there.
func renderMCPOps(b *strings.Builder, rows []*row, ts *targets) {
	b.WriteString("\n### MCP at protocol level\n\n")
	b.WriteString("rpcgen's generated `mcp` package against the official Go SDK (`gosdk`) and mark3labs/mcp-go (`mcpgo`), ")
	b.WriteString("each as server and client of itself in one process (`mcp_work.go`): `initialize` is a whole session, ")
	b.WriteString("`tools-list` answers 50 tools with input schemas, `tools-call` answers structured content, ")
	b.WriteString("`progress` is one call during which the server sends 1,000 progress notifications. ")
	b.WriteString("`floor` is the preencoded floor (`mcp_preencoded.go`): the same messages in the same order with no MCP or JSON-RPC library, ")
	b.WriteString("each a byte template with the id (and the progress token and counter) spliced in and checked byte for byte by its client, ")
	b.WriteString("over the same OS pipes, or a plain net/http handler and http.Client: what the transport and net/http cost alone. ")
	b.WriteString("Each cell is median time per op / allocations per op; — is a row an implementation cannot run (the benchmark says why). ")
	fmt.Fprintf(b, "Targets: rpcgen's time ≤ %.2f× and allocations ≤ %.2f× the faster SDK's (by time) in every row; ", mcpTimeTarget, mcpAllocsTarget)
	b.WriteString("a ratio that misses its target is followed by the floor's (in brackets) when the floor misses it too.\n\n")
	b.WriteString("| op | transport | rpcgen | gosdk | mcpgo | floor | faster SDK | time ÷ SDK | allocs ÷ SDK |\n|---|---|---|---|---|---|---|---|---|\n")
	var metT, metA, total, belowT, belowA int
	for _, r := range rows {
		b.WriteString("|")
		for _, part := range strings.Split(r.key, "/") {
			_, v, _ := strings.Cut(part, "=")
			fmt.Fprintf(b, " %s |", v)
		}
		for _, im := range append([]string{"rpcgen"}, append(mcpSDKs, mcpFloor)...) {
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
		floor, okF := r.cells[mcpFloor]
		okF = okF && floor.ok
		cols := [2]string{}
		for i, ch := range []struct {
			ratio, floor, target float64
			met, below           *int
		}{
			{ratioOf(g.ns, fc.ns), ratioOf(floor.ns, fc.ns), mcpTimeTarget, &metT, &belowT},
			{ratioOf(g.allocs, fc.allocs), ratioOf(floor.allocs, fc.allocs), mcpAllocsTarget, &metA, &belowA},
		} {
			cols[i] = verdict(ch.ratio, ch.target)
			switch {
			case ch.ratio <= ch.target:
				*ch.met++
			case okF && ch.floor > ch.target:
				// Not even the floor meets this target in this row.
				*ch.below++
				cols[i] += fmt.Sprintf(" (floor %.2f)", ch.floor)
			}
		}
		fmt.Fprintf(b, " %s | %s | %s |\n", faster, cols[0], cols[1])
		total++
	}
	if total == 0 {
		return
	}
	if belowT+belowA > 0 {
		fmt.Fprintf(b, "\nThe floor itself is above the target in %d of the rows missing the time target and in %d of those missing the allocation target (shown in brackets): "+
			"no implementation on that transport can meet the target there.\n", belowT, belowA)
	}
	detail := func(met, below int, target float64) string {
		d := fmt.Sprintf("%d of %d rows", met, total)
		if below > 0 {
			d += fmt.Sprintf("; in %d of the misses the floor itself is above %.2f×", below, target)
		}
		return d
	}
	ts.add(target{name: "MCP: time ≤ 1/3 of the faster SDK's in every row", met: metT == total, detail: detail(metT, belowT, mcpTimeTarget)},
		target{name: "MCP: allocations ≤ 1/5 of the faster SDK's in every row", met: metA == total, detail: detail(metA, belowA, mcpAllocsTarget)})
}
