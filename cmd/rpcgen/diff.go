package main

import (
	"fmt"
	"strings"
)

// diffContext is how many unchanged lines surround each change.
const diffContext = 3

// maxEdits bounds the edit distance diffLines searches for; beyond it the
// differing middle is shown as removed, then added.
const maxEdits = 2000

// op is one line of an edit script: ' ' kept, '-' removed, '+' added.
type op struct {
	kind byte
	line string
}

// unifiedDiff returns the unified diff from a (labelled from) to b
// (labelled to), or "" when they are equal.
func unifiedDiff(from, to string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	ops := diffLines(splitKeepEOL(string(a)), splitKeepEOL(string(b)))
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", from, to)
	// Each hunk runs from diffContext lines before a change to
	// diffContext lines after the last change closer than 2*diffContext.
	ai, bi := 0, 0 // lines of a and b before ops[i]
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			ai, bi = ai+1, bi+1
			i++
			continue
		}
		start := max(0, i-diffContext)
		end := i
		for j, gap := i, 0; j < len(ops) && gap <= 2*diffContext; j++ {
			if ops[j].kind == ' ' {
				gap++
			} else {
				gap, end = 0, j
			}
		}
		end = min(len(ops), end+1+diffContext)
		a0, b0 := ai-(i-start), bi-(i-start)
		var na, nb int
		var body strings.Builder
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				na++
			}
			if o.kind != '-' {
				nb++
			}
			body.WriteByte(o.kind)
			body.WriteString(o.line)
			if !strings.HasSuffix(o.line, "\n") {
				body.WriteString("\n\\ No newline at end of file\n")
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n%s", hunkRange(a0, na), hunkRange(b0, nb), body.String())
		for _, o := range ops[i:end] {
			if o.kind != '+' {
				ai++
			}
			if o.kind != '-' {
				bi++
			}
		}
		i = end
	}
	return out.String()
}

// hunkRange formats the start (0-based) and length of a hunk's side.
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// splitKeepEOL splits s into lines, each with its newline but perhaps
// the last.
func splitKeepEOL(s string) []string {
	var lines []string
	for s != "" {
		i := strings.IndexByte(s, '\n') + 1
		if i == 0 {
			i = len(s)
		}
		lines = append(lines, s[:i])
		s = s[i:]
	}
	return lines
}

// diffLines returns an edit script from a to b: the common prefix and
// suffix, and between them a shortest script (Myers' algorithm) when it
// takes at most maxEdits edits.
func diffLines(a, b []string) []op {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []op
	for _, l := range a[:pre] {
		ops = append(ops, op{' ', l})
	}
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, op{' ', l})
	}
	return ops
}

// myers returns a shortest edit script from a to b, or every line of a
// removed then every line of b added when that takes more than maxEdits.
func myers(a, b []string) []op {
	n, m := len(a), len(b)
	limit := min(n+m, maxEdits)
	v := make([]int, 2*limit+3) // v[off+k]: furthest x on diagonal k
	off := limit + 1
	var trace [][]int // trace[d]: v[off-d : off+d+1] after round d
	found := false
	for d := 0; d <= limit && !found; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = true
				break
			}
		}
		trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
	}
	if !found {
		ops := make([]op, 0, n+m)
		for _, l := range a {
			ops = append(ops, op{'-', l})
		}
		for _, l := range b {
			ops = append(ops, op{'+', l})
		}
		return ops
	}
	var rev []op
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d-1] // diagonals -(d-1)..d-1
		at := func(k int) int { return prev[k+d-1] }
		k := x - y
		var pk int
		if k == -d || k != d && at(k-1) < at(k+1) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			rev = append(rev, op{' ', a[x-1]})
			x, y = x-1, y-1
		}
		if x == px {
			rev = append(rev, op{'+', b[y-1]})
			y--
		} else {
			rev = append(rev, op{'-', a[x-1]})
			x--
		}
	}
	for x > 0 && y > 0 {
		rev = append(rev, op{' ', a[x-1]})
		x, y = x-1, y-1
	}
	ops := make([]op, len(rev))
	for i, o := range rev {
		ops[len(rev)-1-i] = o
	}
	return ops
}
