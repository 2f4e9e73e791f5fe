// Command report reads the output of the side-by-side benchmarks and writes
// their summary table into a Markdown file, between the lines
// "<!-- results:begin -->" and "<!-- results:end -->".
//
//	go run ./cmd/report -in results/latest.txt -readme README.md
//
// With -readme - it prints the table on standard output instead.
//
// For each row (op, framing, transport, callers) it gives every
// implementation's median ns/op and allocs/op, the fastest peer library, and
// how rpcgen compares with the targets (time ÷ the preencoded ceiling, ÷ the
// fastest peer and ÷ stdjson, allocations ÷ the leanest peer); then the MCP
// tools/call rows over Streamable HTTP, rpcgen against the official MCP Go
// SDK; then the LSP didChange + completion rows, rpcgen against
// x/exp/jsonrpc2; then the generator's timings and memory.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Markers delimit the generated part of the README.
const (
	beginMarker = "<!-- results:begin -->"
	endMarker   = "<!-- results:end -->"
)

// Targets of the performance issue.
const (
	ceilingSmall     = 1.5 // rpcgen ns/op ÷ preencoded's, for add and notify
	ceilingPayload   = 3.0 // rpcgen ns/op ÷ preencoded's, for the rows with a payload
	timeTarget       = 0.5 // rpcgen ns/op ÷ fastest peer's
	allocsTarget     = 0.5 // rpcgen allocs/op ÷ leanest peer's
	stdjsonTarget    = 1.0 // rpcgen ns/op ÷ stdjson's (stretch)
	addAllocsTarget  = 10  // rpcgen allocs per add (stretch)
	protocolsTargetS = 1.0 // seconds to generate every shipped protocol
	lspTargetS       = 1.0 // seconds to generate the LSP protocol
	syntheticTargetS = 2.0 // seconds to generate the 500-type synthetic protocol
	synth2000TargetS = 3.0 // seconds to generate the 2,000-type synthetic protocol
)

// ceilingTarget returns the largest ratio of rpcgen's time to the ceiling's
// (preencoded) the issue accepts for op: add and notify carry a few numbers,
// the echoes and didopen a string payload.
func ceilingTarget(op string) float64 {
	if op == "add" || op == "notify" {
		return ceilingSmall
	}
	return ceilingPayload
}

// peers are the other libraries; the rest are baselines or rpcgen.
var peers = []string{"xexp", "jrpc2", "sourcegraph"}

// columns is the order of implementations in the table.
var columns = []string{"rpcgen", "xexp", "jrpc2", "sourcegraph", "stdjson", "preencoded"}

func main() {
	in := flag.String("in", "results/latest.txt", "benchmark output `file`")
	readme := flag.String("readme", "README.md", "Markdown `file` to update between the markers; - prints the table instead")
	flag.Parse()
	if err := run(*in, *readme, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func run(in, readme string, stdout io.Writer) error {
	f, err := os.Open(in)
	if err != nil {
		return fmt.Errorf("open results: %w", err)
	}
	defer f.Close()
	res, err := parse(f)
	if err != nil {
		return fmt.Errorf("parse %s: %w", in, err)
	}
	if readme == "-" {
		_, err := io.WriteString(stdout, render(res))
		return err
	}
	doc, err := os.ReadFile(readme)
	if err != nil {
		return fmt.Errorf("read readme: %w", err)
	}
	out, err := splice(string(doc), render(res))
	if err != nil {
		return fmt.Errorf("%s: %w", readme, err)
	}
	if err := os.WriteFile(readme, []byte(out), 0o644); err != nil {
		return fmt.Errorf("write readme: %w", err)
	}
	return nil
}

// sample holds the measurements of one benchmark, one entry per run.
type sample struct {
	ns     []float64
	allocs []float64
	bytes  []float64 // B/op
	rssMB  []float64 // peak-RSS-MB, reported by the generator's benchmarks
}

// results is a parsed benchmark output.
type results struct {
	config map[string]string  // "cpu", "goos", "go", ...
	names  []string           // benchmark names, in order of appearance
	byName map[string]*sample // name without the -GOMAXPROCS suffix
}

var (
	benchLine  = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)
	configLine = regexp.MustCompile(`^([a-z][a-zA-Z0-9_-]*):\s*(.*)$`)
)

// parse reads Go benchmark output.
func parse(r io.Reader) (*results, error) {
	res := &results{config: map[string]string{}, byName: map[string]*sample{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := configLine.FindStringSubmatch(line); m != nil {
			if _, seen := res.config[m[1]]; !seen {
				res.config[m[1]] = m[2]
			}
			continue
		}
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := res.byName[m[1]]
		if s == nil {
			s = &sample{}
			res.byName[m[1]] = s
			res.names = append(res.names, m[1])
		}
		fields := strings.Fields(m[2])
		for i := 0; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%q: bad value %q", line, fields[i])
			}
			switch fields[i+1] {
			case "ns/op":
				s.ns = append(s.ns, v)
			case "allocs/op":
				s.allocs = append(s.allocs, v)
			case "B/op":
				s.bytes = append(s.bytes, v)
			case "peak-RSS-MB":
				s.rssMB = append(s.rssMB, v)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(res.names) == 0 {
		return nil, errors.New("no benchmark results")
	}
	return res, nil
}

// median returns the median of vs, or NaN-free 0 and false when empty.
func median(vs []float64) (float64, bool) {
	if len(vs) == 0 {
		return 0, false
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2], true
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2, true
}

// cell is one implementation's medians in one row.
type cell struct {
	ns, allocs float64
	ok         bool
}

// row is one line of the table: a workload and its cells by implementation.
type row struct {
	key   string // op=add/framing=cl/transport=pipe/callers=1
	op    string
	cells map[string]cell
}

// rows groups the BenchmarkRPC results by workload, in order of appearance.
func (res *results) rows() []*row { return res.rowsOf("BenchmarkRPC/") }

// mcpRows groups the BenchmarkRPCMCP results (MCP tools/call over HTTP) by
// workload, in order of appearance.
func (res *results) mcpRows() []*row { return res.rowsOf("BenchmarkRPCMCP/") }

// lspRows groups the BenchmarkLSP results (didChange + completion) by
// workload, in order of appearance.
func (res *results) lspRows() []*row { return res.rowsOf("BenchmarkLSP/") }

// rowsOf groups the results of the benchmark whose names start with prefix
// by workload, in order of appearance.
func (res *results) rowsOf(prefix string) []*row {
	var out []*row
	byKey := map[string]*row{}
	for _, name := range res.names {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		i := strings.LastIndex(rest, "/impl=")
		if i < 0 {
			continue
		}
		key, im := rest[:i], rest[i+len("/impl="):]
		r := byKey[key]
		if r == nil {
			op, _, _ := strings.Cut(key, "/")
			r = &row{key: key, op: strings.TrimPrefix(op, "op="), cells: map[string]cell{}}
			byKey[key] = r
			out = append(out, r)
		}
		s := res.byName[name]
		ns, ok1 := median(s.ns)
		allocs, ok2 := median(s.allocs)
		r.cells[im] = cell{ns: ns, allocs: allocs, ok: ok1 && ok2}
	}
	return out
}

// best returns the peer with the lowest value of get, and that value.
func (r *row) best(get func(cell) float64) (string, float64, bool) {
	name, v, found := "", 0.0, false
	for _, p := range peers {
		c, ok := r.cells[p]
		if !ok || !c.ok {
			continue
		}
		if !found || get(c) < v {
			name, v, found = p, get(c), true
		}
	}
	return name, v, found
}

// verdict formats a ratio and whether it meets target.
func verdict(ratio, target float64) string {
	mark := "✗"
	if ratio <= target {
		mark = "✓"
	}
	return fmt.Sprintf("%.2f %s", ratio, mark)
}

// ratioOf divides a by b, guarding against a zero divisor.
func ratioOf(a, b float64) float64 {
	if b == 0 {
		if a == 0 {
			return 1
		}
		return a / 0.5 // a peer with no allocations: compare with half of one
	}
	return a / b
}

// duration formats nanoseconds for a table.
func duration(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.2fs", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.2fms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1fµs", ns/1e3)
	}
	return fmt.Sprintf("%.0fns", ns)
}
