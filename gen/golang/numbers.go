package golang

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/idl"
)

// intType returns the Go type of an integer of width w.
func intType(w idl.IntWidth) *jen.Statement {
	switch w {
	case idl.Int32:
		return jen.Int32()
	case idl.Uint32:
		return jen.Uint32()
	}
	return jen.Int64()
}

// checked reports whether decoding a value of the scalar type t (not a
// reference) checks a range: its bounds, or the width of an integer
// narrower than int64.
func checked(t *idl.Type) bool {
	switch t.Kind {
	case idl.KindInteger:
		return t.Width != idl.Int64 || t.Minimum != nil || t.Maximum != nil
	case idl.KindNumber:
		return t.Minimum != nil || t.Maximum != nil
	}
	return false
}

// rangeDecoder returns the call decoding src into dst, a pointer to a
// value of the checked scalar type t, with the runtime decoder that
// enforces t's range.
func rangeDecoder(t *idl.Type, src, dst jen.Code) *jen.Statement {
	if t.Kind == idl.KindNumber {
		return impl("DecodeFloatIn").Call(src, dst, floatBound(t.Minimum, -1), floatBound(t.Maximum, 1))
	}
	return impl("DecodeIntIn").Call(src, dst, intBound(t, t.Minimum, true), intBound(t, t.Maximum, false))
}

// rangeFunc returns a func([]byte, *T) error decoding a value of the
// checked scalar type t into its Go type T.
func rangeFunc(t *idl.Type) jen.Code {
	return jen.Func().Params(jen.Id("b").Index().Byte(), jen.Id("v").Op("*").Add(baseType(t))).Error().Block(
		jen.Return(rangeDecoder(t, jen.Id("b"), jen.Id("v"))),
	)
}

// intBound returns the lower (low) or upper bound of the integer type t as
// Go code: the bound written in the IDL, else the limit of t's width.
func intBound(t *idl.Type, v *idl.Value, low bool) jen.Code {
	if v != nil {
		if n, err := strconv.ParseInt(string(v.JSON), 10, 64); err == nil {
			return jen.Lit(int(n))
		}
	}
	names := map[idl.IntWidth][2]string{
		idl.Int64:  {"MinInt64", "MaxInt64"},
		idl.Int32:  {"MinInt32", "MaxInt32"},
		idl.Uint32: {"", "MaxUint32"},
	}[t.Width]
	name := names[1]
	if low {
		name = names[0]
	}
	if name == "" {
		return jen.Lit(0)
	}
	return jen.Qual("math", name)
}

// floatBound returns a bound of a number type as Go code, or the infinity
// of sign when none is written.
func floatBound(v *idl.Value, sign int) jen.Code {
	if v != nil {
		if f, err := strconv.ParseFloat(string(v.JSON), 64); err == nil && !math.IsInf(f, 0) {
			if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
				return jen.Lit(int(f)) // an untyped constant reads better: 1, not 1.0
			}
			return jen.Lit(f)
		}
	}
	return jen.Qual("math", "Inf").Call(jen.Lit(sign))
}

// rangeText describes the range a member's values must lie in, for its
// doc comment, or returns "".
func rangeText(t *idl.Type) string {
	if t.Kind != idl.KindInteger && t.Kind != idl.KindNumber {
		return ""
	}
	lo, hi := t.Minimum, t.Maximum
	switch {
	case lo != nil && hi != nil:
		return fmt.Sprintf("From %s to %s.", lo.JSON, hi.JSON)
	case lo != nil:
		return fmt.Sprintf("At least %s.", lo.JSON)
	case hi != nil:
		return fmt.Sprintf("At most %s.", hi.JSON)
	}
	return ""
}
