package idl

import (
	"fmt"
	"slices"
	"strings"
)

// A union without a discriminator tells its variants apart by the JSON kind
// of the value. When it holds two or more object variants, they are told
// apart by their distinguishing members: the required members that no
// other object variant of the union declares. A JSON object is the object
// variant holding at least one of its distinguishing members; an object
// holding those of no variant, or of several, matches none.

// objectVariant returns the object type a union variant refers to, or nil
// when the variant is not a non-nullable reference to an object type.
func objectVariant(t *Type) *Type {
	if t == nil || t.Kind != KindRef || nullableChain(t) {
		return nil
	}
	if u := underlying(t); u != nil && u.Kind == KindObject && !u.Positional {
		return u
	}
	return nil
}

// memberVariants sets the distinguishing members of the object variants
// of the untagged union def, and reports the variants that have none, in
// one error whose lists are bounded, so that its cost grows linearly with
// the number of variants.
func (r *resolver) memberVariants(def *TypeDef, objects []*Variant) {
	declared := map[string][]int{} // member name -> the variants declaring it, by index
	for i, v := range objects {
		for _, f := range objectVariant(v.Type).Fields {
			if l := declared[f.Name]; len(l) == 0 || l[len(l)-1] != i {
				declared[f.Name] = append(l, i)
			}
		}
	}
	var untold []int // the variants without distinguishing members
	for i, v := range objects {
		for _, f := range objectVariant(v.Type).Fields {
			if !f.Optional && len(declared[f.Name]) == 1 {
				v.Distinguishing = append(v.Distinguishing, f.Name)
			}
		}
		if len(v.Distinguishing) == 0 {
			untold = append(untold, i)
		}
	}
	if len(untold) == 0 {
		return
	}
	first := objects[untold[0]]
	name := variantLabel(first)
	var required []string
	shared := map[int]bool{} // the other variants declaring a required member of first
	for _, f := range objectVariant(first.Type).Fields {
		if f.Optional {
			continue
		}
		required = append(required, f.Name)
		for _, o := range declared[f.Name] {
			shared[o] = o != untold[0]
		}
	}
	var others, sharers []string // in variant order
	for i, o := range objects {
		if i != untold[0] {
			others = append(others, variantLabel(o))
		}
		if shared[i] {
			sharers = append(sharers, variantLabel(o))
		}
	}
	var msg string
	if len(required) == 0 {
		msg = fmt.Sprintf("object variant %s of union %s has no required member, so it cannot be told apart from %s", name, def.Name, andSome(others))
	} else {
		msg = fmt.Sprintf("object variants %s of union %s cannot be told apart: every required member of %s (%s) is also a member of %s", andSome(append([]string{name}, sharers...)), def.Name, name, commaSome(required), andSome(sharers))
	}
	switch {
	case len(untold) > 1:
		var rest []string
		for _, i := range untold[1:] {
			rest = append(rest, variantLabel(objects[i]))
		}
		verb, own := "has", "its"
		if len(rest) > 1 {
			verb, own = "have", "their"
		}
		msg += fmt.Sprintf(", and %s %s no required member of %s own either; give each of them a required member that no other object variant has", andSome(rest), verb, own)
	case len(required) == 0:
		msg += fmt.Sprintf("; give %s a required member that the other object variants lack", name)
	default:
		msg += fmt.Sprintf("; give %s a required member that no other object variant has", name)
	}
	r.errs.add(first.Pos, "%s, or tell the variants apart with discriminator:", msg)
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

// memberVariant picks the object variant of the untagged union t, named
// union, whose distinguishing members the mapping n holds. It returns nil
// and true when t does not tell objects apart by their members, and nil
// and false after reporting that n matches no variant or several.
func (r *resolver) memberVariant(n *node, t *Type, union, path string) (*Variant, bool) {
	var matched []*Variant
	byMembers := false
	for _, v := range t.Variants {
		if len(v.Distinguishing) == 0 {
			continue
		}
		byMembers = true
		for _, e := range n.ents {
			if slices.Contains(v.Distinguishing, keyName(e.key)) {
				matched = append(matched, v)
				break
			}
		}
	}
	switch {
	case !byMembers:
		return nil, true
	case len(matched) == 1:
		return matched[0], true
	case len(matched) == 0:
		r.errs.add(n.pos, "%s matches no variant of union %s; want the members of exactly one variant: %s", path, union, DistinguishingMembers(t))
	default:
		r.errs.add(n.pos, "%s matches several variants of union %s; want the members of exactly one variant: %s", path, union, DistinguishingMembers(t))
	}
	return nil, false
}

// DistinguishingMembers describes how the object variants of an untagged
// union are told apart, for messages: the name of each variant's type,
// then its distinguishing members, quoted, as in
// `TextContents ("text") or BlobContents ("blob")`. It returns "" when t
// has no variant with distinguishing members.
func DistinguishingMembers(t *Type) string {
	var parts []string
	for _, v := range t.Variants {
		if len(v.Distinguishing) == 0 {
			continue
		}
		var quoted []string
		for _, m := range v.Distinguishing {
			quoted = append(quoted, fmt.Sprintf("%q", m))
		}
		parts = append(parts, variantLabel(v)+" ("+strings.Join(quoted, ", ")+")")
	}
	return orList(parts)
}
