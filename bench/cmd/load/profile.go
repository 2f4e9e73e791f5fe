package main

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// site is where the heap profile's live bytes were allocated.
type site struct {
	leaf    string // the allocating function, past the runtime's allocator
	owner   string // the first frame in rpcgen's code or the server, if any
	objects float64
	bytes   float64
}

// allocator reports whether fn is part of the runtime's allocation path
// rather than the code that asked for memory.
func allocator(fn string) bool {
	return strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "internal/runtime/")
}

// owned reports whether fn is rpcgen's code or the load tool's server.
func owned(fn string) bool {
	return strings.HasPrefix(fn, "github.com/rpcgen/") || strings.HasPrefix(fn, "main.")
}

// summariseHeap reads a heap profile in its text form (debug=1) and
// returns its live allocations grouped by site, largest first. Sampled
// counts are scaled back as pprof does: by 1/(1-exp(-size/rate)).
func summariseHeap(profile []byte) ([]site, error) {
	sc := bufio.NewScanner(bytes.NewReader(profile))
	sc.Buffer(make([]byte, 64*1024), 4<<20)
	if !sc.Scan() {
		return nil, fmt.Errorf("empty heap profile")
	}
	header := sc.Text()
	i := strings.LastIndex(header, "@ heap/")
	if i < 0 {
		return nil, fmt.Errorf("heap profile header %q has no sampling rate", header)
	}
	rate2, err := strconv.ParseFloat(strings.TrimSpace(header[i+len("@ heap/"):]), 64)
	if err != nil {
		return nil, fmt.Errorf("heap profile header %q: %w", header, err)
	}
	rate := rate2 / 2 // the header gives twice runtime.MemProfileRate
	sites := map[[2]string]*site{}
	var cur *site
	flush := func() {
		if cur == nil || cur.objects == 0 {
			cur = nil
			return
		}
		if rate > 1 {
			scale := 1 / (1 - math.Exp(-cur.bytes/cur.objects/rate))
			cur.objects *= scale
			cur.bytes *= scale
		}
		key := [2]string{cur.leaf, cur.owner}
		if s, ok := sites[key]; ok {
			s.objects += cur.objects
			s.bytes += cur.bytes
		} else {
			sites[key] = cur
		}
		cur = nil
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "#\t"):
			if cur == nil {
				continue
			}
			f := strings.Fields(line)
			if len(f) < 3 {
				continue
			}
			fn, _, _ := strings.Cut(f[2], "+0x")
			if cur.leaf == "" && !allocator(fn) {
				cur.leaf = fn
			}
			if cur.owner == "" && owned(fn) {
				cur.owner = fn
			}
		case strings.Contains(line, " @ "):
			flush()
			var objs, byts, aobjs, abyts float64
			if _, err := fmt.Sscanf(line, "%g: %g [%g: %g] @", &objs, &byts, &aobjs, &abyts); err != nil {
				continue
			}
			cur = &site{objects: objs, bytes: byts}
		case line == "" || strings.HasPrefix(line, "# runtime.MemStats"):
			flush()
			if strings.HasPrefix(line, "# runtime.MemStats") {
				return sorted(sites), nil
			}
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading heap profile: %w", err)
	}
	return sorted(sites), nil
}

func sorted(m map[[2]string]*site) []site {
	out := make([]site, 0, len(m))
	for _, s := range m {
		if s.leaf == "" {
			s.leaf = "runtime"
		}
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b site) int {
		return cmp.Or(cmp.Compare(b.bytes, a.bytes), cmp.Compare(a.leaf, b.leaf), cmp.Compare(a.owner, b.owner))
	})
	return out
}

// goroutineGroup is a number of goroutines parked in the same function.
type goroutineGroup struct {
	where string // the first frame in rpcgen's code or the server, else the first outside the runtime
	count int
}

// summariseGoroutines reads a goroutine profile in its text form
// (debug=1) and returns its goroutines grouped by where they wait,
// largest group first.
func summariseGoroutines(profile []byte) []goroutineGroup {
	counts := map[string]int{}
	var n int
	var first, own string
	flush := func() {
		if n > 0 {
			counts[cmp.Or(own, first, "runtime")] += n
		}
		n, first, own = 0, "", ""
	}
	for line := range strings.Lines(string(profile)) {
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "#\t"):
			f := strings.Fields(line)
			if n == 0 || len(f) < 3 {
				continue
			}
			fn, _, _ := strings.Cut(f[2], "+0x")
			if first == "" && !allocator(fn) && !strings.HasPrefix(fn, "internal/") {
				first = fn
			}
			if own == "" && owned(fn) {
				own = fn
			}
		case strings.Contains(line, " @ "):
			flush()
			fmt.Sscanf(line, "%d @", &n) // n stays 0
		case line == "":
			flush()
		}
	}
	flush()
	out := make([]goroutineGroup, 0, len(counts))
	for w, c := range counts {
		out = append(out, goroutineGroup{where: w, count: c})
	}
	slices.SortFunc(out, func(a, b goroutineGroup) int { return cmp.Or(b.count-a.count, strings.Compare(a.where, b.where)) })
	return out
}
