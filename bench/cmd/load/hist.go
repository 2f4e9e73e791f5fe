package main

import (
	"math"
	"math/bits"
	"time"
)

// subBits sets the histogram's precision: every power of two is split
// into 2^subBits linear buckets, so a reported percentile is within
// 1/2^subBits (about 3 %) of the true value.
const subBits = 5

const (
	subCount = 1 << subBits
	// nBuckets covers every uint64: values below 2*subCount have a bucket
	// each, then subCount buckets per power of two.
	nBuckets = 2*subCount + (64-subBits-1)*subCount
)

// histogram is a log-linear histogram of durations in nanoseconds. It is
// not safe for concurrent use: give each worker its own and merge them.
type histogram struct {
	counts [nBuckets]uint64
	n      uint64
	max    uint64
}

// bucket returns the index of the bucket holding v.
func bucket(v uint64) int {
	if v < 2*subCount {
		return int(v)
	}
	shift := bits.Len64(v) - subBits - 1 // v>>shift is in [subCount, 2*subCount)
	return 2*subCount + (shift-1)*subCount + int(v>>shift) - subCount
}

// bucketHigh returns the largest value bucket i holds.
func bucketHigh(i int) uint64 {
	if i < 2*subCount {
		return uint64(i)
	}
	shift := (i-2*subCount)/subCount + 1
	mant := uint64((i-2*subCount)%subCount + subCount)
	return (mant+1)<<shift - 1
}

// record adds one duration (negative counts as zero).
func (h *histogram) record(d time.Duration) {
	v := uint64(max(d, 0))
	h.counts[bucket(v)]++
	h.n++
	h.max = max(h.max, v)
}

// merge adds every value of o to h.
func (h *histogram) merge(o *histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.max = max(h.max, o.max)
}

// count returns how many values were recorded.
func (h *histogram) count() uint64 { return h.n }

// percentile returns the value below which a fraction q (0 to 1) of the
// recorded values fall: the top of the bucket holding that rank, never
// above the largest value recorded. It is 0 for an empty histogram.
func (h *histogram) percentile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = min(max(rank, 1), h.n)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return time.Duration(min(bucketHigh(i), h.max))
		}
	}
	return time.Duration(h.max)
}
