// Command report reads the output of bench/'s benchmarks, the generator's
// and the load tool's, and writes their tables into a Markdown file,
// between the lines "<!-- results:begin -->" and "<!-- results:end -->".
//
//	go run ./cmd/report -in results/rpc.txt,results/mcp.txt -load results/load.jsonl -readme README.md
//
// With -readme - it prints the tables on standard output instead.
//
// It writes a header (date, machine, Go version, commit), how many of the
// performance issue's targets are met and which are not, then one table per
// part: for each ceiling row (op, framing, transport, callers) every
// implementation's median ns/op and allocs/op and rpcgen's time ÷ the
// preencoded ceiling, ÷ the fastest peer and ÷ stdjson; the MCP rows, rpcgen
// against the faster of the two MCP SDKs; the MCP tools/call rows over
// Streamable HTTP against the official SDK; the LSP rows against
// x/exp/jsonrpc2; the generator's timings and memory; and the load tool's
// throughput, idle-connection and scale runs.
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
	ceilingSmall     = 1.5     // rpcgen ns/op ÷ preencoded's, for add and notify
	ceilingPayload   = 3.0     // rpcgen ns/op ÷ preencoded's, for the rows with a payload
	timeTarget       = 0.5     // rpcgen ns/op ÷ fastest peer's
	allocsTarget     = 0.5     // rpcgen allocs/op ÷ leanest peer's
	stdjsonTarget    = 1.0     // rpcgen ns/op ÷ stdjson's (stretch)
	addAllocsTarget  = 10      // rpcgen allocs per add (stretch)
	protocolsTargetS = 1.0     // seconds to generate every shipped protocol
	lspTargetS       = 1.0     // seconds to generate the LSP protocol
	syntheticTargetS = 2.0     // seconds to generate the 500-type synthetic protocol
	synth2000TargetS = 3.0     // seconds to generate the 2,000-type synthetic protocol
	mcpTimeTarget    = 1.0 / 3 // rpcgen ns/op ÷ the faster MCP SDK's
	mcpAllocsTarget  = 1.0 / 5 // rpcgen allocs/op ÷ the faster MCP SDK's
	idleTargetBytes  = 10_000  // server memory per idle connection, RSS and heap
	idleGoroutines   = 1.0     // goroutines per idle connection: the reader only
	flatTarget       = 10.0    // % growth of RSS and heap in use from the middle third of a scale run to its last third (package memtrend)
	scaleConns       = 10_000  // connections of the scale run
	scaleSeconds     = 60      // its length
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
	in := flag.String("in", "results/rpc.txt", "comma-separated benchmark output `files`")
	load := flag.String("load", "", "the load tool's -json output (`file`), if any")
	readme := flag.String("readme", "README.md", "Markdown `file` to update between the markers; - prints the tables instead")
	flag.Parse()
	if err := run(strings.Split(*in, ","), *load, *readme, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

// run reads the benchmark outputs ins and the load tool's output load
// (none when ""), and writes the tables into readme, or to stdout when
// readme is "-".
func run(ins []string, load, readme string, stdout io.Writer) error {
	res := newResults()
	for _, in := range ins {
		if in == "" {
			continue
		}
		f, err := os.Open(in)
		if err != nil {
			return fmt.Errorf("open results: %w", err)
		}
		err = res.parse(f, in)
		f.Close()
		if err != nil {
			return fmt.Errorf("parse %s: %w", in, err)
		}
	}
	if load != "" {
		f, err := os.Open(load)
		if err != nil {
			return fmt.Errorf("open the load tool's results: %w", err)
		}
		res.load, err = parseLoad(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("parse %s: %w", load, err)
		}
	}
	if len(res.names) == 0 && len(res.load) == 0 {
		return errors.New("no benchmark results")
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

// results is parsed benchmark output, of one or more files.
type results struct {
	config map[string]string  // "cpu", "goos", "go", ..., as the first file gives them
	parts  []part             // each file's date and commit
	names  []string           // benchmark names, in order of appearance
	byName map[string]*sample // name without the -GOMAXPROCS suffix
	load   []loadRecord       // the load tool's results
}

// part is one file of benchmark output.
type part struct {
	file, date, commit string
}

func newResults() *results {
	return &results{config: map[string]string{}, byName: map[string]*sample{}}
}

var (
	benchLine  = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)
	configLine = regexp.MustCompile(`^([a-z][a-zA-Z0-9_-]*):\s*(.*)$`)
)

// parse reads Go benchmark output (one file) into res.
func (res *results) parse(r io.Reader, file string) error {
	p := part{file: file}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := configLine.FindStringSubmatch(line); m != nil {
			if _, seen := res.config[m[1]]; !seen {
				res.config[m[1]] = strings.TrimSpace(m[2])
			}
			switch m[1] {
			case "date":
				p.date = m[2]
			case "commit":
				p.commit = m[2]
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
				return fmt.Errorf("%q: bad value %q", line, fields[i])
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
		return err
	}
	res.parts = append(res.parts, p)
	return nil
}

// parse reads one file of Go benchmark output.
func parse(r io.Reader) (*results, error) {
	res := newResults()
	if err := res.parse(r, ""); err != nil {
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

// mcpOpRows groups the BenchmarkMCP results (initialize, tools/list,
// tools/call and progress over stdio and HTTP) by workload, in order of
// appearance.
func (res *results) mcpOpRows() []*row { return res.rowsOf("BenchmarkMCP/") }

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
