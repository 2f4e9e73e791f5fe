package idl

import (
	"fmt"
	"strings"
)

// objectVariant returns the object type a union variant refers to, or nil
// when the variant is not a non-nullable reference to an object type.
func objectVariant(t *Type) *Type {
	if t == nil || t.Kind != KindRef || nullableChain(t) {
		return nil
	}
	if u := underlying(t); u != nil && u.Kind == KindObject {
		return u
	}
	return nil
}

// maxSubsets bounds the work spent looking for a variant that can never be
// chosen because several others, together, take every object it matches.
const maxSubsets = 1 << 14

// shadowedVariants reports the object choices of the untagged union def
// that can never be chosen under the decision rule (see [ChooseObject]):
// for every object such a choice B matches, a choice A listed before it
// matches too and leaves no more members unexplained. Only choices of
// other variants of def are looked at as A: a nested union reports its
// own. The first such B is reported, with a count of the others, so that
// a union of many equal variants gives one bounded error. Variants in
// listed repeat an earlier one and are left out.
func (r *resolver) shadowedVariants(def *TypeDef, listed map[*Variant]bool) {
	var choices []Choice
	for _, c := range Choices(def.Type) {
		if !listed[def.Type.Variants[c.Variant]] {
			choices = append(choices, c) // a repeated variant is reported as such
		}
	}
	var first *Variant
	var msg string
	var others []string
	for j, b := range choices {
		if b.Object == nil {
			continue
		}
		by := shadowers(choices[:j], b)
		if by == nil {
			continue
		}
		if first != nil {
			others = append(others, b.Label())
			continue
		}
		first = def.Type.Variants[b.Variant]
		name := b.Label()
		if u := unionDef(def.Type.Variants[b.Variant].Type); u != nil {
			name += " (in " + u.Name + ")"
		}
		if len(by) == 1 {
			msg = fmt.Sprintf("object variant %s of union %s can never be chosen: %s, listed before it, matches every object %s matches and declares every member %s declares; give %s a required member that %s does not declare, or remove %s", name, def.Name, by[0], b.Label(), b.Label(), b.Label(), by[0], b.Label())
		} else {
			msg = fmt.Sprintf("object variant %s of union %s can never be chosen: every object it matches is matched by %s, listed before it, with no more members left unexplained; give %s a required member that they do not declare, or remove %s", name, def.Name, orList(by), b.Label(), b.Label())
		}
	}
	if first == nil {
		return
	}
	if len(others) > 0 {
		msg += fmt.Sprintf(" (%s, listed later, can never be chosen either)", andSome(others))
	}
	r.errs.add(first.Pos, "%s", msg)
}

// shadowers returns the names of the choices before b, in other variants
// than b's, that together take every object b matches, or nil when b can
// be chosen for some object (or when finding out would cost too much).
func shadowers(before []Choice, b Choice) []string {
	bFields := fieldMap(b.Object)
	var opt []string // optional members of b
	for _, f := range b.Object.Fields {
		if f.Optional {
			opt = append(opt, f.Name)
		}
	}
	var cands []Choice
	for _, a := range before {
		if a.Object == nil || a.Variant == b.Variant {
			continue
		}
		aFields := fieldMap(a.Object)
		ok := true // a covers b's required members alone, and needs only b's members
		for _, f := range b.Object.Fields {
			if !f.Optional && !constFits(aFields[f.Name], f) {
				ok = false
			}
		}
		for _, f := range a.Object.Fields {
			if !f.Optional && bFields[f.Name] == nil {
				ok = false
			}
		}
		if !ok {
			continue
		}
		if covers(a.Object, aFields, b.Object, func(name string) bool { return bFields[name] != nil && !bFields[name].Optional }) && covers(a.Object, aFields, b.Object, func(name string) bool { return bFields[name] != nil }) {
			return []string{a.Label()} // a takes b's smallest objects and its largest
		}
		cands = append(cands, a)
	}
	if len(cands) == 0 || len(opt) > 30 || len(cands)<<len(opt) > maxSubsets {
		return nil
	}
	used := map[int]bool{}
	for mask := range 1 << len(opt) {
		held := func(name string) bool {
			f := bFields[name]
			if f == nil || !f.Optional {
				return f != nil
			}
			for i, o := range opt {
				if o == name {
					return mask&(1<<i) != 0
				}
			}
			return false
		}
		found := false
		for i, a := range cands {
			if covers(a.Object, fieldMap(a.Object), b.Object, held) {
				found, used[i] = true, true
				break
			}
		}
		if !found {
			return nil
		}
	}
	var names []string
	for i, a := range cands {
		if used[i] {
			names = append(names, a.Label())
		}
	}
	return names
}

// covers reports whether the object type a takes, with no more members
// left unexplained, every object of type b holding exactly the members of
// b for which held is true: a's required members are among them, a
// declares each of them, and where a declares one with a constant, b
// declares it with the same constant.
func covers(a *Type, aFields map[string]*Field, b *Type, held func(string) bool) bool {
	for _, f := range a.Fields {
		if !f.Optional && !held(f.Name) {
			return false
		}
	}
	for _, f := range b.Fields {
		if held(f.Name) && !constFits(aFields[f.Name], f) {
			return false
		}
	}
	return true
}

// constFits reports whether a member that b declares as f is declared by a
// field a (not nil) that takes every value f takes, as far as constants
// go.
func constFits(a, f *Field) bool {
	if a == nil {
		return false
	}
	ca := FieldConst(a)
	if ca == nil {
		return true
	}
	cf := FieldConst(f)
	return cf != nil && SameJSON(ca.JSON, cf.JSON)
}

// fieldMap returns the fields of an object type by name.
func fieldMap(t *Type) map[string]*Field {
	m := make(map[string]*Field, len(t.Fields))
	for _, f := range t.Fields {
		m[f.Name] = f
	}
	return m
}

// andSome is andList for lists of any length: past maxListed items it
// names the first ones and counts the others.
func andSome(items []string) string {
	if len(items) <= maxListed {
		return andList(items)
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:maxListed], ", "), len(items)-maxListed)
}

// commaSome joins items with commas, counting those past maxListed.
func commaSome(items []string) string {
	if len(items) <= maxListed {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:maxListed], ", "), len(items)-maxListed)
}

// variantLabel names an object variant in messages: the name of its type.
func variantLabel(v *Variant) string {
	if v.Type != nil && v.Type.Kind == KindRef && v.Type.Ref != nil {
		return v.Type.Ref.Name
	}
	return describeType(v.Type)
}

// andList joins items as "a, b and c".
func andList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
