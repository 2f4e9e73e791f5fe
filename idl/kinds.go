package idl

import (
	"fmt"
	"maps"
	"strings"
)

// kindVariants checks that the choices of an untagged union (its
// variants, with nested unions flattened) have different JSON kinds, so a
// reader can tell them apart, except object choices, which are told apart
// by their members, and a catch-all any listed last.
func (r *resolver) kindVariants(def *TypeDef) {
	owner := map[string]*Variant{}
	objectOwner := map[*Variant]bool{} // variants whose object kind comes from object choices only
	arrayOwner := map[*Variant]bool{}  // variants whose array kind comes from array choices only
	listed := r.repeatedVariants(def)
	last := len(def.Type.Variants) - 1
	for i, v := range def.Type.Variants {
		if v.Type == nil || v.Type.Kind == KindInvalid || listed[v] {
			continue
		}
		if unionDef(v.Type) == def {
			r.errs.add(v.Pos, "union %s lists itself as a variant; remove that variant", def.Name)
			continue
		}
		if nullableChain(v.Type) {
			r.errs.add(v.Pos, "variant %s of union %s is nullable; make the union nullable instead", describeType(v.Type), def.Name)
			continue
		}
		if via := r.nestedCycle(def, v.Type); via != "" {
			r.errs.add(v.Pos, "union %s contains itself through %s; a union's variants cannot lead back to it: remove one variant of the cycle", def.Name, via)
			continue
		}
		nested := unionDef(v.Type) != nil
		kinds := map[string]bool{}
		objectsOnly, arraysOnly := true, true
		catchAll := false
		for _, c := range Choices(&Type{Kind: KindUnion, Variants: []*Variant{v}}) {
			if u := underlying(c.Type); u != nil && u.Kind == KindAny {
				catchAll = true
				continue
			}
			for k := range r.jsonKinds(c.Type) {
				kinds[k] = true
				if k == "object" && c.Object == nil {
					objectsOnly = false
				}
				if k == "array" && arrayItem(c.Type) == nil {
					arraysOnly = false
				}
			}
		}
		if catchAll && i != last {
			if nested {
				r.errs.add(v.Pos, "variant %s of union %s ends in any, which takes every value, so the variants after it could never be chosen; list %s last in %s", describeType(v.Type), def.Name, describeType(v.Type), def.Name)
			} else {
				r.errs.add(v.Pos, "variant %s of union %s accepts any JSON value, so the other variants could never be told apart; use any alone, or list it last to take the values no other variant takes", describeType(v.Type), def.Name)
			}
			continue
		}
		objectOwner[v], arrayOwner[v] = objectsOnly, arraysOnly
		for _, k := range allJSONKinds {
			if !kinds[k] {
				continue
			}
			first := owner[k]
			if first != nil && !(k == "object" && objectsOnly && objectOwner[first]) && !(k == "array" && arraysOnly && arrayOwner[first]) {
				r.errs.add(v.Pos, "variants %s and %s of union %s are both JSON %ss, so a reader could not tell them apart; add a discriminator: field, or merge them", describeType(first.Type), describeType(v.Type), def.Name, k)
				break
			}
			if first == nil {
				owner[k] = v
			}
		}
	}
	r.shadowedVariants(def, listed)
	r.arrayVariants(def, listed)
}

// nestedCycle returns, when the union t refers to (through nested unions)
// leads back to def, the chain of union names that does, as "B -> C ->
// A"; else "".
func (r *resolver) nestedCycle(def *TypeDef, t *Type) string {
	var path []string
	seen := map[*TypeDef]bool{}
	var walk func(t *Type) bool
	walk = func(t *Type) bool {
		u := unionDef(t)
		if u == nil || seen[u] {
			return false
		}
		path = append(path, u.Name)
		if u == def {
			return true
		}
		seen[u] = true
		for _, v := range u.Type.Variants {
			if walk(v.Type) {
				return true
			}
		}
		path = path[:len(path)-1]
		return false
	}
	if !walk(t) || len(path) < 2 {
		return ""
	}
	return strings.Join(path, " -> ")
}

// repeatedVariants reports the named types a union lists more than once,
// once per type, and returns the variants that repeat an earlier one.
func (r *resolver) repeatedVariants(def *TypeDef) map[*Variant]bool {
	type key struct {
		ref      *TypeDef
		nullable bool
	}
	var order []key
	uses := map[key][]*Variant{}
	for _, v := range def.Type.Variants {
		if v.Type == nil || v.Type.Kind != KindRef || v.Type.Ref == nil {
			continue
		}
		k := key{v.Type.Ref, v.Type.Nullable}
		if len(uses[k]) == 1 {
			order = append(order, k)
		}
		uses[k] = append(uses[k], v)
	}
	repeats := map[*Variant]bool{}
	for _, k := range order {
		vs := uses[k]
		times := "twice"
		if len(vs) > 2 {
			times = fmt.Sprintf("%d times", len(vs))
		}
		name := k.ref.Name
		if k.nullable {
			name += " | null"
		}
		r.errs.add(vs[1].Pos, "variant %s is listed %s in union %s (first at %d:%d); list it once", name, times, def.Name, vs[0].Pos.Line, vs[0].Pos.Col)
		for _, v := range vs[1:] {
			repeats[v] = true
		}
	}
	return repeats
}

var allJSONKinds = []string{"string", "number", "boolean", "array", "object", "null"}

// jsonKinds returns the JSON kinds of the values of t.
func (r *resolver) jsonKinds(t *Type) map[string]bool {
	ks, _ := r.kindsOf(t, map[*TypeDef]bool{}, true)
	return ks
}

// kindsOf is jsonKinds, ignoring the unions in seen, which are being
// looked at already. The kinds of each union are remembered in r.kinds
// once known, so that unions of unions are looked at once: complete
// reports that no union was ignored, so the kinds found are all the
// kinds of t. top is true for the type jsonKinds was asked about, whose
// kinds are all found whatever was ignored.
func (r *resolver) kindsOf(t *Type, seen map[*TypeDef]bool, top bool) (ks map[string]bool, complete bool) {
	ks = map[string]bool{}
	nullable := nullableChain(t)
	def := unionDef(t)
	if def != nil {
		if known, ok := r.kinds[def]; ok {
			maps.Copy(ks, known)
			if nullable {
				ks["null"] = true
			}
			return ks, true
		}
		if seen[def] {
			return ks, false
		}
		seen[def] = true
	}
	t = underlying(t)
	if t == nil {
		return ks, true
	}
	complete = true
	switch t.Kind {
	case KindString:
		ks["string"] = true
	case KindInteger, KindNumber:
		ks["number"] = true
	case KindBoolean:
		ks["boolean"] = true
	case KindArray:
		ks["array"] = true
	case KindObject:
		ks[map[bool]string{false: "object", true: "array"}[t.Positional]] = true
	case KindTuple:
		ks["array"] = true
	case KindMap:
		ks["object"] = true
	case KindEnum:
		ks[map[Kind]string{KindString: "string", KindInteger: "number"}[t.EnumBase]] = true
	case KindAny:
		for _, k := range allJSONKinds {
			ks[k] = true
		}
	case KindUnion:
		if t.Discriminator != "" {
			ks["object"] = true
		} else {
			for _, v := range t.Variants {
				vks, ok := r.kindsOf(v.Type, seen, false)
				complete = complete && ok
				maps.Copy(ks, vks)
			}
		}
	}
	if def != nil && (complete || top) {
		r.kinds[def] = maps.Clone(ks)
	}
	if nullable {
		ks["null"] = true
	}
	return ks, complete
}

// unionDef returns the union type t refers to, following aliases, or nil.
func unionDef(t *Type) *TypeDef {
	for hops := 0; t != nil && t.Kind == KindRef && t.Ref != nil && hops < 64; hops++ {
		if t.Ref.Type != nil && t.Ref.Type.Kind == KindUnion {
			return t.Ref
		}
		t = t.Ref.Type
	}
	return nil
}

// jsonKindOf returns the JSON kind of a written value.
func jsonKindOf(n *node) string {
	switch n.kind {
	case nString:
		return "string"
	case nInt, nFloat:
		return "number"
	case nBool:
		return "boolean"
	case nSeq:
		return "array"
	case nMap:
		return "object"
	}
	return "null"
}
