package memtrend

import (
	"math"
	"testing"
)

// A heap that swings between its live size and its GC goal, starting
// from a sample just after a collection, is flat: its first-to-last
// growth is large, its trend is not.
func TestSawtoothIsFlat(t *testing.T) {
	var xs []float64
	for i := range 61 {
		xs = append(xs, 100+float64(i%7)*10) // 100 … 160, then back
	}
	s := Summarise(xs)
	if s.FirstToLast < 20 {
		t.Fatalf("first to last %+.1f %%: the sample should start low and end high", s.FirstToLast)
	}
	if !s.Judged || math.Abs(s.Trend) > 5 || !Flat(10, s) {
		t.Errorf("trend %+.1f %% (judged %v): want a flat sawtooth", s.Trend, s.Judged)
	}
	if s.Min != 100 || s.Max != 160 || s.Median != 130 {
		t.Errorf("min %v, median %v, max %v: want 100, 130, 160", s.Min, s.Median, s.Max)
	}
}

// Memory that keeps growing is not flat, however it swings.
func TestGrowthIsNotFlat(t *testing.T) {
	var xs []float64
	for i := range 60 {
		xs = append(xs, 100+float64(i)*2+float64(i%5)) // +2 per sample
	}
	s := Summarise(xs)
	// middle third 20..39: mean about 160; last third 40..59: about 200.
	if s.Trend < 20 || Flat(10, s) {
		t.Errorf("trend %+.1f %%: want growth above 20 %%, not flat", s.Trend)
	}
}

// Thirds: the first is the warm-up and is not judged.
func TestWarmUpNotJudged(t *testing.T) {
	xs := []float64{10, 50, 100, 100, 100, 100, 100, 100, 100}
	s := Summarise(xs)
	if s.Middle != 100 || s.Late != 100 || s.Trend != 0 {
		t.Errorf("middle %v, late %v, trend %v: want 100, 100, 0", s.Middle, s.Late, s.Trend)
	}
}

// Too few samples to judge a trend are never flat.
func TestTooFewSamples(t *testing.T) {
	s := Summarise([]float64{100, 100, 100, 100, 100})
	if s.Judged || Flat(10, s) {
		t.Errorf("%d samples judged flat", 5)
	}
	if Flat(10) {
		t.Error("no summaries judged flat")
	}
	if (Summarise(nil) != Summary{}) {
		t.Error("no samples: want the zero Summary")
	}
}
