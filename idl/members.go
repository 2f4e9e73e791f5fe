package idl

import (
	"fmt"
	"slices"
	"strings"
)

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

// maxSubsets bounds the work spent looking for a variant that can never be
// chosen because several others, together, take every object it matches.
const maxSubsets = 1 << 14

// shadowedVariants reports the object choices of the untagged union def
// that can never be chosen under the decision rule (see [ChooseObject]):
// every object such a choice B matches goes to another choice. A choice of
// a nested union that can never be chosen in that union is left to it. The
// first such B is reported, with a count of the others, so that a union of
// many equal variants gives one bounded error. Variants in listed repeat
// an earlier one and are left out.
func (r *resolver) shadowedVariants(def *TypeDef, listed map[*Variant]bool) {
	var choices []Choice
	for _, c := range Choices(def.Type) {
		if !listed[def.Type.Variants[c.Variant]] {
			choices = append(choices, c) // a repeated variant is reported as such
		}
	}
	o := newOverlap(choices)
	nested := map[*TypeDef]*overlap{}
	var first *Variant
	var msg string
	var others []string
	for j, b := range choices {
		if b.Object == nil {
			continue
		}
		if u := unionDef(def.Type.Variants[b.Variant].Type); u != nil {
			if nested[u] == nil {
				nested[u] = newOverlap(Choices(u.Type))
			}
			if nested[u].shadowedChoice(b) {
				continue // reported by u
			}
		}
		by := o.shadowers(j)
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
		var labels []string
		for _, i := range by {
			labels = append(labels, choices[i].Label())
		}
		a := choices[by[0]]
		switch {
		case len(by) == 1 && a.Object == b.Object:
			msg = fmt.Sprintf("object variant %s of union %s can never be chosen: %s is already a choice of %s, listed before it; remove one of them", name, def.Name, b.Label(), unionDef(def.Type.Variants[a.Variant].Type).Name)
		case len(by) == 1:
			msg = fmt.Sprintf("object variant %s of union %s can never be chosen: %s, listed before it, matches every object %s matches and declares every member %s declares; give %s a required member that %s does not declare, or remove %s", name, def.Name, labels[0], b.Label(), b.Label(), b.Label(), labels[0], b.Label())
		default:
			msg = fmt.Sprintf("object variant %s of union %s can never be chosen: every object it matches goes to %s, which match it too and leave fewer of its members unexplained or are listed before it; give %s a required member that they do not declare, or remove %s", name, def.Name, orList(labels), b.Label(), b.Label())
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

// overlap is what the search for the choices of one union that can never
// be chosen needs, computed once per union so that the search grows with
// the overlaps, not with the square of the number of choices.
type overlap struct {
	choices []Choice
	fields  []map[string]*Field // per choice, by name; nil for other than objects
	byKey   map[string][]int    // the object choices by their first required member
	free    []int               // the object choices that require nothing
	names   []string            // every member an object choice declares
	values  map[string][][]byte // member -> the values tried when present
	total   int                 // the objects to try; 0 when too many
	lits    map[*Field][][]byte // FieldLiterals, remembered
}

// literals is [FieldLiterals], remembered.
func (o *overlap) literals(f *Field) [][]byte {
	lits, ok := o.lits[f]
	if !ok {
		lits = FieldLiterals(f)
		o.lits[f] = lits
	}
	return lits
}

func newOverlap(choices []Choice) *overlap {
	o := &overlap{choices: choices, fields: make([]map[string]*Field, len(choices)), byKey: map[string][]int{}, values: map[string][][]byte{}, total: 1, lits: map[*Field][][]byte{}}
	// The values tried for a member: one no constant is, then its constants.
	for i, c := range choices {
		if c.Object == nil {
			continue
		}
		o.fields[i] = fieldMap(c.Object)
		if req := c.Required(); len(req) > 0 {
			o.byKey[req[0]] = append(o.byKey[req[0]], i)
		} else {
			o.free = append(o.free, i)
		}
		for _, f := range c.Object.Fields {
			if _, ok := o.values[f.Name]; !ok {
				o.names = append(o.names, f.Name)
				o.values[f.Name] = [][]byte{[]byte("{}")} // a value no constant is
			}
			for _, k := range FieldLiterals(f) {
				if !holdsLiteral(o.values[f.Name], k) {
					o.values[f.Name] = append(o.values[f.Name], k)
				}
			}
		}
	}
	for _, n := range o.names {
		if o.total *= len(o.values[n]) + 1; o.total > maxSubsets {
			o.total = 0
			break
		}
	}
	return o
}

// shadowedChoice reports whether the choice b of o's union can never be
// chosen in it.
func (o *overlap) shadowedChoice(b Choice) bool {
	for i, c := range o.choices {
		if c.Type == b.Type {
			return o.shadowers(i) != nil
		}
	}
	return false
}

// shadowers returns the indexes of the choices that take every object the
// object choice o.choices[j] matches, or nil when it is chosen for some
// object (or when finding out would cost too much). A choice listed
// before it that takes all its objects alone is looked for first;
// otherwise every object over the members the choices declare is tried,
// each member absent, or holding one of the constants declared for it, or
// another value (members no choice declares count alike for all).
func (o *overlap) shadowers(j int) []int {
	b := o.choices[j]
	bFields := o.fields[j]
	single := func(list []int) int {
		for _, i := range list {
			if i >= j {
				break
			}
			if coversAll(o.choices[i].Object, o.fields[i], b.Object, bFields) {
				return i
			}
		}
		return -1
	}
	if i := single(o.free); i >= 0 {
		return []int{i}
	}
	for _, f := range b.Object.Fields {
		if i := single(o.byKey[f.Name]); i >= 0 {
			return []int{i}
		}
	}
	if o.total == 0 {
		return nil
	}
	won := map[int]bool{}
	state := make([]int, len(o.names)) // per member: 0 absent, else 1 + the index of its value
	var members []string
	var held [][]byte
	value := func(i int) []byte { return held[i] }
	for range o.total {
		members, held = members[:0], held[:0]
		for i, n := range o.names {
			if state[i] > 0 {
				members, held = append(members, n), append(held, o.values[n][state[i]-1])
			}
		}
		if w := chooseObject(o.choices, members, value, o.literals); w == j {
			return nil
		} else if w >= 0 && chooseObject(o.choices[j:j+1], members, value, o.literals) == 0 {
			won[w] = true // an object b matches goes to w
		}
		for i := range state { // the next object
			if state[i]++; state[i] <= len(o.values[o.names[i]]) {
				break
			}
			state[i] = 0
		}
	}
	var by []int
	for i := range o.choices {
		if won[i] {
			by = append(by, i)
		}
	}
	return by
}

// coversAll reports whether the object type a (whose fields are aFields)
// takes every object the object type b (whose fields are bFields)
// matches, explaining as many of its members: b requires every member a
// requires, a declares every member b declares, and each value b allows
// for a member a declares with constants or a closed enum a allows too.
func coversAll(a *Type, aFields map[string]*Field, b *Type, bFields map[string]*Field) bool {
	if len(a.Fields) < len(b.Fields) {
		return false
	}
	for _, f := range b.Fields {
		if !constFits(aFields[f.Name], f) {
			return false
		}
	}
	for _, f := range a.Fields {
		bf := bFields[f.Name]
		if !f.Optional && (bf == nil || bf.Optional) || FieldLiterals(f) != nil && bf == nil {
			return false
		}
	}
	return true
}

// constFits reports whether a member that b declares as f is declared by a
// field a (not nil) that takes every value f takes, as far as constants
// and closed enums go (see [FieldLiterals]).
func constFits(a, f *Field) bool {
	if a == nil {
		return false
	}
	la := FieldLiterals(a)
	if la == nil {
		return true
	}
	lf := FieldLiterals(f)
	return lf != nil && !slices.ContainsFunc(lf, func(v []byte) bool { return !holdsLiteral(la, v) })
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

// andList joins items as "a, b and c".
func andList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
