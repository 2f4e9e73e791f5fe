package rpcimpl

import (
	"fmt"
	"strconv"
)

// This file holds the decoders of numbers with bounds: integers of a
// given width (int32, uint32) and members declared with a minimum or a
// maximum. Their errors say which bound a value breaks, as in
// "1.5 is above the maximum 1"; generated decoders add the member's path.

// DecodeIntIn decodes the JSON integer b into *v, refusing a value below
// lo or above hi. The bounds must lie within T's range; a T narrower than
// int64 is decoded with its own range as bounds ([math.MinInt32],
// [math.MaxUint32], ...). Like encoding/json, it leaves *v unchanged for
// null.
func DecodeIntIn[T ~int32 | ~int64 | ~uint32](b []byte, v *T, lo, hi int64) error {
	b = trimSpace(b)
	if string(b) == "null" {
		return nil
	}
	n, ok := plainInt(b)
	if !ok {
		if !isInteger(b) {
			var x int64
			if err := unmarshalInto(b, &x); err != nil {
				return err
			}
			n = x
		} else if x, err := strconv.ParseInt(string(b), 10, 64); err == nil {
			n = x
		} else if b[0] == '-' {
			return fmt.Errorf("%s is below the minimum %d", b, lo)
		} else {
			return fmt.Errorf("%s is above the maximum %d", b, hi)
		}
	}
	switch {
	case n < lo:
		return fmt.Errorf("%s is below the minimum %d", b, lo)
	case n > hi:
		return fmt.Errorf("%s is above the maximum %d", b, hi)
	}
	*v = T(n)
	return nil
}

// isInteger reports whether b is a JSON number without fraction or
// exponent.
func isInteger(b []byte) bool {
	if !isNumber(b) {
		return false
	}
	for _, c := range b {
		if c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	return true
}

// DecodeFloatIn decodes the JSON number b into *v, refusing a value below
// lo or above hi; [math.Inf] leaves a side unbounded. Like encoding/json,
// it leaves *v unchanged for null.
func DecodeFloatIn[T ~float32 | ~float64](b []byte, v *T, lo, hi float64) error {
	b = trimSpace(b)
	if string(b) == "null" {
		return nil
	}
	var f float64
	if err := DecodeFloat(b, &f); err != nil {
		return err
	}
	switch {
	case f < lo:
		return fmt.Errorf("%s is below the minimum %s", b, formatBound(lo))
	case f > hi:
		return fmt.Errorf("%s is above the maximum %s", b, formatBound(hi))
	}
	*v = T(f)
	return nil
}

// formatBound writes a bound as the shortest JSON number that reads back
// as it.
func formatBound(f float64) string {
	return strconv.FormatFloat(f, 'g', -1, 64)
}
