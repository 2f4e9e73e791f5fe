package main

import (
	"fmt"
	"strings"
)

// renderLSP writes the LSP rows: a textDocument/didChange then a
// textDocument/completion of 200 items, rpcgen's generated lsp package
// against a hand-written x/exp/jsonrpc2 pair on the same generated types.
func renderLSP(b *strings.Builder, rows []*row) {
	b.WriteString("\n### LSP\n\nLSP `textDocument/didChange` (one incremental edit of a 2,000-line Go file) + `textDocument/completion` ")
	b.WriteString("(200 items with Markdown documentation and text edits) over OS pipes, Content-Length framing; ")
	b.WriteString("rpcgen's generated `lsp` package against a hand-written `x/exp/jsonrpc2` pair on the same types ")
	b.WriteString("(see `lsp_impls.go`). Each cell is median time per pair / allocations per pair. The issue sets no ratio for this row.\n\n")
	b.WriteString("| op | framing | transport | callers | rpcgen | xexp | time ÷ xexp | allocs ÷ xexp |\n|---|---|---|---|---|---|---|---|\n")
	renderPairRows(b, rows, "xexp")
}

// renderGenerator writes the generator's timings and memory against their
// targets, and adds the performance issue's two (LSP, synthetic-2000) to ts.
func renderGenerator(b *strings.Builder, res *results, ts *targets) {
	gens := []struct {
		name, what string
		target     float64
		issue      bool // a target of the performance issue, counted in the summary
	}{
		{"BenchmarkGenerate/protocol=all", "every protocol in protocols/", protocolsTargetS, false},
		{"BenchmarkGenerate/protocol=lsp", "the LSP protocol (protocols/lsp.yaml)", lspTargetS, true},
		{"BenchmarkGenerate/protocol=synthetic-500", "a synthetic protocol of 500 types and 200 methods", syntheticTargetS, false},
		{"BenchmarkGenerate/protocol=synthetic-2000", "a synthetic protocol of 2,000 types and 1,000 methods", synth2000TargetS, true},
	}
	var lines []string
	for _, g := range gens {
		s, ok := res.byName[g.name]
		if !ok {
			continue
		}
		ns, ok := median(s.ns)
		if !ok {
			continue
		}
		allocs, _ := median(s.allocs)
		fast := ns/1e9 < g.target
		if g.issue {
			ts.add(target{name: fmt.Sprintf("generator: %s in under %.0f s", g.what, g.target), met: fast, detail: duration(ns)})
		}
		mem := "—"
		if bytes, ok := median(s.bytes); ok {
			mem = fmt.Sprintf("%.0f MB", bytes/1e6)
		}
		rss := "—"
		if mb, ok := median(s.rssMB); ok {
			rss = fmt.Sprintf("%.0f MB", mb)
		}
		lines = append(lines, fmt.Sprintf("| %s | %s | %.0f | %s | %s | < %.0fs %s |", g.what, duration(ns), allocs, mem, rss, g.target, mark(fast)))
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("\n### The generator\n\nThe generator (`rpcgen generate`: load, check, Go, JSON Schemas, Markdown, OpenRPC, write; ")
	b.WriteString("peak RSS of one more run in a child process). The targets for every protocol and for 500 types are an earlier issue's, not counted above:\n\n")
	b.WriteString("| generating | median time | allocs | allocated | peak RSS | target |\n|---|---|---|---|---|---|\n")
	b.WriteString(strings.Join(lines, "\n"))
	b.WriteString("\n")
}
