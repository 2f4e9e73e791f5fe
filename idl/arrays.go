package idl

// A union without a discriminator may hold several array choices (choices
// whose type is an array, nested unions flattened). They are told apart by
// their items: the item types of the array choices are decided among as if
// they were the variants of one union, the item union (see [ItemUnion]),
// by the same rule (JSON kind, then the members of an object, ties to the
// first listed, any listed last taking every other item). A non-empty
// array goes to the array choice its first item chooses; an empty array
// goes to the first array choice.

// ArrayChoices returns the array choices of the union t without a
// discriminator, in declaration order: the choices whose type is a
// non-nullable array (not a tuple or a positional object).
func ArrayChoices(t *Type) []Choice {
	var out []Choice
	for _, c := range Choices(t) {
		if arrayItem(c.Type) != nil {
			out = append(out, c)
		}
	}
	return out
}

// arrayItem returns the item type of t when t is a non-nullable array, or
// nil.
func arrayItem(t *Type) *Type {
	if nullableChain(t) {
		return nil
	}
	if u := underlying(t); u != nil && u.Kind == KindArray {
		return u.Elem
	}
	return nil
}

// ByItems reports whether the union t without a discriminator looks at the
// first item of a JSON array to pick its variant: when its array choices
// come from two or more of its variants.
func ByItems(t *Type) bool {
	if t == nil || t.Kind != KindUnion || t.Discriminator != "" {
		return false
	}
	arrays := ArrayChoices(t)
	for _, c := range arrays[min(1, len(arrays)):] {
		if c.Variant != arrays[0].Variant {
			return true
		}
	}
	return false
}

// ItemUnion returns the union whose variants are the item types of the
// array choices of t, in order: variant i of it is the item type of
// ArrayChoices(t)[i]. Its choices (see [Choices]) decide which array
// choice a non-empty array is, by its first item.
func ItemUnion(t *Type) *Type {
	u := &Type{Kind: KindUnion}
	for _, c := range ArrayChoices(t) {
		u.Variants = append(u.Variants, &Variant{Type: arrayItem(c.Type), Pos: t.Variants[c.Variant].Pos})
	}
	return u
}

// ArrayLabel names an array choice in messages: the name of its type, or
// the name of its items followed by [].
func ArrayLabel(c Choice) string {
	if c.Type.Kind == KindRef && c.Type.Ref != nil {
		return c.Type.Ref.Name
	}
	item := arrayItem(c.Type)
	if item != nil && item.Kind == KindRef && item.Ref != nil {
		return item.Ref.Name + "[]"
	}
	if item != nil && item.Kind != KindUnion && item.Kind != KindObject {
		return item.Kind.String() + "[]"
	}
	return describeType(c.Type)
}

// arrayVariants checks that the array choices of the untagged union def
// can be told apart by their first item (see [ItemUnion]): items of
// different JSON kinds, or objects none of which is shadowed, and any
// only as the items of the last array choice. Choices of one variant are
// left to the union that variant is. Variants in listed repeat an earlier
// one and are left out.
func (r *resolver) arrayVariants(def *TypeDef, listed map[*Variant]bool) {
	t := def.Type
	if !ByItems(t) {
		return
	}
	for _, v := range t.Variants {
		if unionDef(v.Type) == def || r.nestedCycle(def, v.Type) != "" {
			return // reported as such
		}
	}
	arrays := ArrayChoices(t)
	items := Choices(ItemUnion(t))
	outer := func(c Choice) *Variant { return t.Variants[arrays[c.Variant].Variant] }
	name := func(c Choice) string { return ArrayLabel(arrays[c.Variant]) }
	reported := map[*Variant]bool{}
	report := func(v *Variant, format string, args ...any) {
		if !reported[v] {
			reported[v] = true
			r.errs.add(v.Pos, format, args...)
		}
	}
	owner := map[string]int{} // JSON kind -> the first item choice of that kind
	for j, c := range items {
		v := outer(c)
		if listed[v] {
			continue
		}
		if u := underlying(c.Type); u != nil && u.Kind == KindAny && !nullableChain(c.Type) {
			for _, later := range items[j+1:] {
				if outer(later) != v {
					report(v, "array variant %s of union %s holds items of any kind, so the array variants after it could never be chosen; list %s last in %s", name(c), def.Name, name(c), def.Name)
					break
				}
			}
			continue
		}
		for _, k := range allJSONKinds {
			if !r.jsonKinds(c.Type)[k] {
				continue
			}
			i, ok := owner[k]
			if !ok {
				owner[k] = j
				continue
			}
			first := items[i]
			if outer(first) == v || k == "object" && first.Object != nil && c.Object != nil {
				continue
			}
			report(v, "array variants %s and %s of union %s both hold JSON %s items, so a reader could not tell them apart by their first item; give their items different JSON kinds (or objects different required members), or merge them into one array whose items are a union", name(first), name(c), def.Name, k)
			break
		}
	}
	o := newOverlap(items)
	for j, b := range items {
		if b.Object == nil || reported[outer(b)] || listed[outer(b)] {
			continue
		}
		by := o.shadowers(j)
		if by == nil || outer(items[by[0]]) == outer(b) || items[by[0]].Variant == b.Variant {
			continue // none, or left to the union b comes from
		}
		a := items[by[0]]
		if a.Object == b.Object {
			report(outer(b), "array variants %s and %s of union %s hold the same items, so the second could never be chosen; list it once", name(a), name(b), def.Name)
			continue
		}
		report(outer(b), "array variant %s of union %s can never be chosen for an array starting with a %s: every such item goes to the items %s of array variant %s, which match it too and are listed before it or leave fewer of its members unexplained; give %s a required member that %s does not declare, or merge the two array variants", name(b), def.Name, b.Label(), a.Label(), name(a), b.Label(), a.Label())
	}
}

// chooseItem returns the index in items (the choices of an item union) of
// the choice the first item n of an array takes, or -1.
func (r *resolver) chooseItem(items []Choice, union *Type, n *node) int {
	if n.kind == nMap && ByMembers(union) {
		var members []string
		for _, e := range n.ents {
			members = append(members, keyName(e.key))
		}
		if i := ChooseObject(items, members, func(i int) []byte { return r.toJSON(n.ents[i].val) }); i >= 0 {
			return i
		}
		if last := len(items) - 1; items[last].CatchAll {
			return last
		}
		return -1
	}
	for i, c := range items {
		if c.CatchAll || r.jsonKinds(c.Type)[jsonKindOf(n)] {
			return i
		}
	}
	return -1
}

// checkArrayUnion checks the JSON array n against the array variant of
// the union t its first item chooses, or the first for an empty array;
// name is the union's.
func (r *resolver) checkArrayUnion(n *node, t *Type, name, path string, depth int) {
	arrays := ArrayChoices(t)
	if len(n.items) == 0 {
		r.checkDepth(n, t.Variants[arrays[0].Variant].Type, path, depth+1)
		return
	}
	union := ItemUnion(t)
	items := Choices(union)
	i := r.chooseItem(items, union, n.items[0])
	if i < 0 {
		if all := Choices(t); all[len(all)-1].CatchAll {
			return
		}
		var labels []string
		for _, c := range arrays {
			labels = append(labels, ArrayLabel(c))
		}
		r.errs.add(n.items[0].pos, "%s[0]: %s matches the items of no array variant of union %s (%s)", path, describeNode(n.items[0]), name, orList(labels))
		return
	}
	r.checkDepth(n, t.Variants[arrays[items[i].Variant].Variant].Type, path, depth+1)
}
