package idl

import (
	"fmt"
	"math/big"
)

// numFacets resolves the width and the bounds of an integer or number
// type.
func (r *resolver) numFacets(ts *tspec, t *Type) {
	if t.Kind == KindInteger {
		t.Width = ts.width
	}
	if t.Kind != KindInteger && t.Kind != KindNumber {
		return // kindKeysApply reported minimum: and maximum:
	}
	t.Minimum = r.bound(ts.minimum, t, "minimum")
	t.Maximum = r.bound(ts.maximum, t, "maximum")
	if t.Minimum == nil || t.Maximum == nil {
		return
	}
	if lo, hi := ratOf(t.Minimum.JSON), ratOf(t.Maximum.JSON); lo != nil && hi != nil && lo.Cmp(hi) > 0 {
		r.errs.add(ts.minimum.pos, "minimum %s is above the maximum %s, so no value fits; swap them", t.Minimum.JSON, t.Maximum.JSON)
	}
}

// bound resolves the minimum or maximum n of type t, checking that it is a
// number of t's kind within t's range; it returns nil after reporting.
func (r *resolver) bound(n *node, t *Type, key string) *Value {
	if n == nil {
		return nil
	}
	switch {
	case t.Kind == KindInteger && n.kind == nInt && n.intOK:
		if lo, hi := t.Width.Range(); n.i < lo || n.i > hi {
			r.errs.add(n.pos, "%s %s is out of range for %s (%d to %d); write a bound within it", key, n.raw, t.Width, lo, hi)
			return nil
		}
	case t.Kind == KindInteger && n.kind == nInt:
		r.errs.add(n.pos, "%s %s", key, outOfRange(n))
		return nil
	case t.Kind == KindInteger:
		r.errs.add(n.pos, "%s of an %s type must be an integer, not %s; use a whole number, or make the type number", key, t.Width, describeNode(n))
		return nil
	case n.kind == nInt, n.kind == nFloat && !n.bad:
	default:
		r.errs.add(n.pos, "%s must be a finite number, not %s", key, describeNode(n))
		return nil
	}
	return r.value(n)
}

// ratOf returns the exact value of a JSON number, or nil.
func ratOf(text []byte) *big.Rat {
	x, ok := new(big.Rat).SetString(string(text))
	if !ok {
		return nil
	}
	return x
}

// checkNumber reports where the written number n, already known to be of
// t's kind, is outside t's width or bounds.
func (r *resolver) checkNumber(n *node, t *Type, path string) {
	x := ratOf(r.toJSON(n))
	if x == nil {
		return
	}
	if t.Kind == KindInteger && t.Width != Int64 {
		if lo, hi := t.Width.Range(); x.Cmp(big.NewRat(lo, 1)) < 0 || x.Cmp(big.NewRat(hi, 1)) > 0 {
			r.errs.add(n.pos, "%s: %s is out of range for %s (%d to %d)", path, numText(n), t.Width, lo, hi)
			return
		}
	}
	if t.Minimum != nil {
		if lo := ratOf(t.Minimum.JSON); lo != nil && x.Cmp(lo) < 0 {
			r.errs.add(n.pos, "%s: %s is below the minimum %s", path, numText(n), t.Minimum.JSON)
			return
		}
	}
	if t.Maximum != nil {
		if hi := ratOf(t.Maximum.JSON); hi != nil && x.Cmp(hi) > 0 {
			r.errs.add(n.pos, "%s: %s is above the maximum %s", path, numText(n), t.Maximum.JSON)
		}
	}
}

// numText is a written number as written.
func numText(n *node) string {
	if n.raw != "" {
		return n.raw
	}
	return n.str
}

// enumBase resolves the base of an enum: from base: when written, else
// from its first value.
func (r *resolver) enumBase(ts *tspec, t *Type) {
	switch ts.base.name {
	case "string":
		t.EnumBase = KindString
	case "integer":
		t.EnumBase = KindInteger
	case "int32":
		t.EnumBase, t.Width = KindInteger, Int32
	case "uint32":
		t.EnumBase, t.Width = KindInteger, Uint32
	}
}

// checkEnumValue reports an enum value that does not fit the base written
// with base:, and returns whether it fits.
func (r *resolver) checkEnumValue(ts *tspec, t *Type, vs *vspec) bool {
	if ts.base.name == "" {
		return true
	}
	i, isInt := vs.value.(int64)
	switch {
	case isInt != (t.EnumBase == KindInteger):
		r.errs.add(vs.pos, "enum value %s is not %s, as base: %s says; write the value as one, or change base:", describeValue(vs.value), map[bool]string{true: "an integer", false: "a string"}[t.EnumBase == KindInteger], ts.base.name)
		return false
	case isInt:
		if lo, hi := t.Width.Range(); i < lo || i > hi {
			r.errs.add(vs.pos, "enum value %d is out of range for %s (%d to %d); remove it, or widen base:", i, t.Width, lo, hi)
			return false
		}
	}
	return true
}

// describeValue writes an enum value for messages.
func describeValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}
