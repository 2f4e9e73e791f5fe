package idl

import "math"

// Random numbers of the property test: widths and bounds.

// bounded returns a random integer, int32, uint32 or number type with a
// minimum and a maximum, sometimes nullable.
func (g *propGen) bounded() *ptype {
	t := &ptype{kind: []string{"integer", "int32", "uint32", "number"}[g.r.Intn(4)], bounded: true, nullable: g.r.Intn(4) == 0}
	t.lo = int64(g.r.Intn(100))
	if t.kind != "uint32" {
		t.lo -= 50
	}
	t.hi = t.lo + int64(g.r.Intn(1000))
	return t
}

// number returns a random valid value of an integer, int32, uint32 or
// number type: its bounds and values near them, or the edges of its range.
func (g *propGen) number(t *ptype) any {
	if t.bounded {
		v := []int64{t.lo, t.hi, (t.lo + t.hi) / 2}[g.r.Intn(3)]
		if t.kind == "number" && v < t.hi && g.r.Intn(2) == 0 {
			return float64(v) + 0.5
		}
		return v
	}
	switch t.kind {
	case "int32":
		return []int64{0, 1, -1, math.MaxInt32, math.MinInt32}[g.r.Intn(5)]
	case "uint32":
		return []int64{0, 1, 42, math.MaxUint32}[g.r.Intn(4)]
	case "number":
		return []float64{0, 1.5, -2.25, 1e-7, 3.0e20}[g.r.Intn(5)]
	}
	return []int64{0, 1, -1, 42, 1 << 53, -(1 << 53)}[g.r.Intn(6)]
}
