// Package memtrend judges whether a server's memory stayed flat over a
// run, from samples taken at a steady pace (the load tool's scale mode
// takes one a second).
//
// A Go server's heap in use, and with it its RSS, swings within every GC
// cycle: from the live heap just after a collection up to the GC goal
// (twice the live heap with GOGC=100) just before the next. Two single
// samples, such as the first (taken right after the connections' start,
// with little garbage yet) and the last (taken wherever the last cycle
// happened to be), measure where in its cycle each fell rather than
// growth. A leak shows as a trend over the run instead, so "flat" compares
// means over stretches of the run once the heap has reached its steady
// state: the mean of the last third of the samples against the mean of
// the middle third. The first third is the warm-up (the first GC cycles
// under load, the heap growing to its goal) and is not judged.
package memtrend

import (
	"slices"
)

// MinSamples is the fewest samples Trend judges: two in each third.
const MinSamples = 6

// Summary is one quantity (RSS, say) over a run's samples.
type Summary struct {
	First, Last      float64
	Min, Median, Max float64
	// Middle and Late are the means of the middle and the last third of
	// the samples.
	Middle, Late float64
	// Trend is Late against Middle in percent; FirstToLast is Last
	// against First in percent.
	Trend, FirstToLast float64
	// Judged is false with fewer than MinSamples samples: then Trend is 0.
	Judged bool
}

// Summarise summarises samples taken at a steady pace, in order.
func Summarise(samples []float64) Summary {
	n := len(samples)
	if n == 0 {
		return Summary{}
	}
	s := Summary{First: samples[0], Last: samples[n-1], FirstToLast: growth(samples[0], samples[n-1])}
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	s.Min, s.Max = sorted[0], sorted[n-1]
	if n%2 == 1 {
		s.Median = sorted[n/2]
	} else {
		s.Median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	if n < MinSamples {
		return s
	}
	third := n / 3
	s.Middle = mean(samples[third : 2*third])
	s.Late = mean(samples[n-third:])
	s.Trend = growth(s.Middle, s.Late)
	s.Judged = true
	return s
}

// Flat reports whether every summary was judged and its trend is at most
// limit percent.
func Flat(limit float64, ss ...Summary) bool {
	for _, s := range ss {
		if !s.Judged || s.Trend > limit {
			return false
		}
	}
	return len(ss) > 0
}

func mean(xs []float64) float64 {
	var t float64
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

// growth is b against a in percent (0 when a is 0).
func growth(a, b float64) float64 {
	if a == 0 {
		return 0
	}
	return (b - a) / a * 100
}
