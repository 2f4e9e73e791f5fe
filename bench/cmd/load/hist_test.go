package main

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// exactPercentile is the nearest-rank percentile of sorted values.
func exactPercentile(sorted []uint64, q float64) uint64 {
	rank := int(math.Ceil(q * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// checkPercentiles records values and compares the histogram's
// percentiles with the exact ones: never below, and above by at most the
// bucket's width (1/32 of the value).
func checkPercentiles(t *testing.T, name string, values []uint64) {
	t.Helper()
	var h histogram
	for _, v := range values {
		h.record(time.Duration(v))
	}
	sorted := slices.Sorted(slices.Values(values))
	for _, q := range []float64{0, 0.5, 0.9, 0.99, 0.999, 1} {
		want := exactPercentile(sorted, q)
		got := uint64(h.percentile(q))
		if got < want || float64(got-want) > float64(want)/subCount {
			t.Errorf("%s: p%g = %d, want %d within 1/%d", name, q*100, got, want, subCount)
		}
	}
	if h.count() != uint64(len(values)) {
		t.Errorf("%s: count = %d, want %d", name, h.count(), len(values))
	}
}

func TestHistogramPercentiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	uniform := make([]uint64, 100_000)
	for i := range uniform {
		uniform[i] = uint64(i+1) * 1000 // 1 µs to 100 ms
	}
	checkPercentiles(t, "uniform", uniform)

	exp := make([]uint64, 50_000)
	for i := range exp {
		exp[i] = uint64(rng.ExpFloat64() * 700_000) // mean 0.7 ms
	}
	checkPercentiles(t, "exponential", exp)

	// A long tail: 99 % at about 1 ms, 1 % at about 50 ms.
	tail := make([]uint64, 10_000)
	for i := range tail {
		tail[i] = 1_000_000 + uint64(rng.IntN(1000))
		if i%100 == 0 {
			tail[i] = 50_000_000 + uint64(rng.IntN(1000))
		}
	}
	checkPercentiles(t, "tail", tail)

	small := make([]uint64, 64)
	for i := range small {
		small[i] = uint64(i)
	}
	checkPercentiles(t, "small", small)
}

func TestHistogramExactBelow64(t *testing.T) {
	var h histogram
	for v := range 64 {
		h.record(time.Duration(v))
	}
	if got := h.percentile(0.5); got != 31 {
		t.Errorf("p50 of 0..63 = %d, want 31", got)
	}
	if got := h.percentile(1); got != 63 {
		t.Errorf("p100 of 0..63 = %d, want 63", got)
	}
}

func TestHistogramConstant(t *testing.T) {
	var h histogram
	for range 1000 {
		h.record(1234567 * time.Nanosecond)
	}
	for _, q := range []float64{0.5, 0.99, 0.999} {
		if got := h.percentile(q); got != 1234567 {
			t.Errorf("p%g of a constant = %d, want 1234567 (clamped to the maximum)", q*100, got)
		}
	}
}

func TestHistogramEmptyAndNegative(t *testing.T) {
	var h histogram
	if got := h.percentile(0.99); got != 0 {
		t.Errorf("p99 of nothing = %v, want 0", got)
	}
	h.record(-time.Second)
	if got := h.percentile(1); got != 0 {
		t.Errorf("a negative duration counts as %v, want 0", got)
	}
}

func TestHistogramMerge(t *testing.T) {
	var a, b, all histogram
	for i := range 1000 {
		d := time.Duration(i*i) * time.Microsecond
		all.record(d)
		if i%3 == 0 {
			a.record(d)
		} else {
			b.record(d)
		}
	}
	a.merge(&b)
	if a != all {
		t.Error("merging two halves differs from recording everything in one")
	}
}

func TestBucketBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	check := func(v uint64) {
		i := bucket(v)
		if i < 0 || i >= nBuckets {
			t.Fatalf("bucket(%d) = %d, out of [0, %d)", v, i, nBuckets)
		}
		if bucketHigh(i) < v || (i > 0 && bucketHigh(i-1) >= v) {
			t.Fatalf("bucket(%d) = %d holds (%d, %d]", v, i, bucketHigh(i-1), bucketHigh(i))
		}
	}
	for v := range uint64(5000) {
		check(v)
	}
	for range 100_000 {
		check(rng.Uint64() >> rng.IntN(64))
	}
	check(math.MaxUint64)
}
