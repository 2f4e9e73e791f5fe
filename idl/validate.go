package idl

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// finishTypes completes object and union types once every type is built:
// inherited fields are copied, and variant tags found.
func (r *resolver) finishTypes() {
	state := map[*TypeDef]int{} // 1 visiting, 2 done
	for _, def := range r.p.Types {
		r.flatten(def, state)
	}
	for _, def := range r.p.Types {
		if def.Type != nil && def.Type.Kind == KindUnion {
			if def.Type.Discriminator != "" {
				r.tagVariants(def)
			} else {
				r.kindVariants(def)
			}
		}
	}
}

// maxExtends bounds the levels of extends above a type. Every type holds
// the fields it inherits, so deeper chains would make the model grow with
// the square of their length.
const maxExtends = 32

// flatten copies the fields of the types def extends in front of its own.
func (r *resolver) flatten(def *TypeDef, state map[*TypeDef]int) {
	t := def.Type
	if t == nil || t.Kind != KindObject || state[def] == 2 {
		return
	}
	if state[def] == 1 {
		r.errs.add(def.Pos, "type %s extends itself through extends:; remove one extends entry of the cycle", def.Name)
		return
	}
	state[def] = 1
	defer func() { state[def] = 2 }()
	var bases []*TypeDef
	depth, deepest := 0, (*TypeDef)(nil)
	for _, base := range t.Extends {
		if base.Type == nil || base.Type.Kind != KindObject {
			r.errs.add(def.Pos, "type %s extends %s, which is not an object type; extends takes object types only", def.Name, base.Name)
			continue
		}
		r.flatten(base, state)
		bases = append(bases, base)
		if d := r.levels[base] + 1; d > depth {
			depth, deepest = d, base
		}
	}
	r.levels[def] = depth
	if depth > maxExtends {
		if depth == maxExtends+1 { // reported at the first type past the limit only
			r.errs.add(def.Pos, "type %s extends %s, which already has %d levels of extends above it; at most %d levels are allowed: extend a type nearer the top, or declare the fields here", def.Name, deepest.Name, maxExtends, maxExtends)
		}
		return
	}
	var fields []*Field
	own := map[string]bool{}
	for _, f := range t.Fields {
		own[f.Name] = true
	}
	from := map[string]string{}
	for _, base := range bases {
		for _, f := range base.Type.Fields {
			if own[f.Name] {
				r.errs.add(fieldPos(t, f.Name), "field %q is already inherited from %s; remove it here or rename it", f.Name, base.Name)
				continue
			}
			if first, dup := from[f.Name]; dup {
				r.errs.add(def.Pos, "type %s inherits field %q from both %s and %s; extend only one of them", def.Name, f.Name, first, base.Name)
				continue
			}
			from[f.Name] = base.Name
			cp := *f
			fields = append(fields, &cp)
		}
	}
	t.Fields = append(fields, t.Fields...)
}

func fieldPos(t *Type, name string) Pos {
	for _, f := range t.Fields {
		if f.Name == name && f.DeclaredIn != nil {
			return f.Pos
		}
	}
	return t.Pos
}

// tagVariants finds the tag of each variant of a discriminated union.
func (r *resolver) tagVariants(def *TypeDef) {
	t := def.Type
	seen := map[string]*Variant{}
	for _, v := range t.Variants {
		if v.Type == nil || v.Type.Kind == KindInvalid {
			continue
		}
		obj := underlying(v.Type)
		if v.Type.Kind != KindRef || obj == nil || obj.Kind != KindObject || nullableChain(v.Type) {
			r.errs.add(v.Pos, "variant %s of union %s is not an object, but a union with discriminator %q holds objects; use an object type with a %q field", describeType(v.Type), def.Name, t.Discriminator, t.Discriminator)
			continue
		}
		name := v.Type.Ref.Name
		var tagField *Field
		for _, f := range obj.Fields {
			if f.Name == t.Discriminator {
				tagField = f
			}
		}
		switch {
		case tagField == nil:
			r.errs.add(v.Pos, "variant %s of union %s has no field %q, the discriminator; add %s: \"'some_tag'\" to %s", name, def.Name, t.Discriminator, t.Discriminator, name)
			continue
		case tagField.Type == nil || tagField.Type.Kind != KindString || tagField.Type.Const == nil:
			r.errs.add(tagField.Pos, "field %q of %s is the discriminator of union %s, so it must be a string constant such as \"'%s'\", not %s", t.Discriminator, name, def.Name, strings.ToLower(name), describeType(tagField.Type))
			continue
		case tagField.Optional || tagField.Type.Nullable:
			r.errs.add(tagField.Pos, "field %q of %s is the discriminator of union %s, so it must be required and not nullable", t.Discriminator, name, def.Name)
			continue
		}
		v.Tag = r.constString(tagField.Type.Const)
		if first := seen[v.Tag]; first != nil {
			r.errs.add(v.Pos, "variants %s and %s of union %s share the tag %q; give each variant its own %s value", first.Type.Ref.Name, name, def.Name, v.Tag, t.Discriminator)
			continue
		}
		seen[v.Tag] = v
	}
}

// constString returns the string a string constant holds.
func (r *resolver) constString(v *Value) string {
	if n := r.values[v]; n != nil {
		return n.str
	}
	return ""
}

// kindVariants checks that the variants of an untagged union have
// different JSON kinds, so a reader can tell them apart, except object
// variants, which may also be told apart by their members.
func (r *resolver) kindVariants(def *TypeDef) {
	owner := map[string]*Variant{}
	var objects []*Variant
	listed := r.repeatedVariants(def)
	for _, v := range def.Type.Variants {
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
		kinds := r.jsonKinds(v.Type)
		if len(kinds) == len(allJSONKinds) {
			r.errs.add(v.Pos, "variant %s of union %s accepts any JSON value, so the other variants could never be told apart; use any alone", describeType(v.Type), def.Name)
			continue
		}
		isObject := objectVariant(v.Type) != nil
		for _, k := range allJSONKinds {
			if !kinds[k] {
				continue
			}
			first := owner[k]
			if first != nil && !(isObject && objectVariant(first.Type) != nil) {
				r.errs.add(v.Pos, "variants %s and %s of union %s are both JSON %ss, so a reader could not tell them apart; add a discriminator: field, or merge them", describeType(first.Type), describeType(v.Type), def.Name, k)
				isObject = false
				break
			}
			if first == nil {
				owner[k] = v
			}
		}
		if isObject {
			objects = append(objects, v)
		}
	}
	if len(objects) > 1 {
		r.memberVariants(def, objects)
	}
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
	case KindMap, KindObject:
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

// validate checks what can only be checked on the complete model.
func (r *resolver) validate() {
	r.aliasCycles()
	r.requiredCycles()
	r.goNames()
	for _, def := range r.p.Types {
		r.checkValues(def)
	}
}

// aliasCycles reports named types defined only through references to
// themselves, such as A: B and B: A, once per cycle, at its type declared
// first. Each type refers to at most one other, so one walk over the
// types finds every cycle.
func (r *resolver) aliasCycles() {
	next := func(def *TypeDef) *TypeDef {
		if t := def.Type; t != nil && t.Kind == KindRef {
			return t.Ref
		}
		return nil
	}
	index := map[*TypeDef]int{}
	for i, def := range r.p.Types {
		index[def] = i
	}
	state := map[*TypeDef]int{} // 1 on the path being walked, 2 done
	var path []*TypeDef
	for _, def := range r.p.Types {
		path = path[:0]
		d := def
		for d != nil && state[d] == 0 {
			state[d] = 1
			path = append(path, d)
			d = next(d)
		}
		if d != nil && state[d] == 1 { // the walk came back to d: a cycle
			cycle := path[slices.Index(path, d):]
			first := slices.MinFunc(cycle, func(a, b *TypeDef) int { return index[a] - index[b] })
			var chain []string
			for c := first; ; c = next(c) {
				chain = append(chain, c.Name)
				if len(chain) > 1 && c == first {
					break
				}
			}
			r.errs.add(first.Pos, "type %s is defined only in terms of itself (%s); define one of them as a real type", first.Name, arrowList(chain))
		}
		for _, p := range path {
			state[p] = 2
		}
	}
}

// maxListed bounds the items of a list quoted in a message.
const maxListed = 8

// arrowList joins steps as "a -> b -> c", leaving out the middle of long
// lists.
func arrowList(steps []string) string {
	if len(steps) <= maxListed {
		return strings.Join(steps, " -> ")
	}
	head := steps[:maxListed-2]
	return fmt.Sprintf("%s -> ... %d more ... -> %s", strings.Join(head, " -> "), len(steps)-len(head)-1, steps[len(steps)-1])
}

// requiredCycles reports objects that contain themselves through required,
// non-nullable fields: no finite JSON value could fill them.
func (r *resolver) requiredCycles() {
	type step struct {
		def   *TypeDef
		field string
	}
	state := map[*TypeDef]int{} // 1 on the stack, 2 done
	var stack []step
	at := map[*TypeDef]int{} // index in stack of the types on it
	var visit func(def *TypeDef)
	visit = func(def *TypeDef) {
		state[def] = 1
		for _, f := range def.Type.Fields {
			if f.Optional || f.Type == nil || nullableChain(f.Type) {
				continue
			}
			next := objectDef(f.Type)
			if next == nil {
				continue
			}
			if state[next] == 0 {
				at[def] = len(stack)
			}
			stack = append(stack, step{def, f.Name})
			switch state[next] {
			case 0:
				visit(next)
			case 1:
				i := len(stack) - 1
				if next != def {
					i = at[next]
				}
				// Only the steps quoted are formatted, so that long
				// cycles cost no more than short ones.
				cycle := stack[i:]
				if len(cycle) > maxListed {
					cycle = slices.Concat(cycle[:maxListed-2], cycle[len(cycle)-1:])
				}
				var parts []string
				for _, s := range cycle {
					parts = append(parts, s.def.Name+"."+s.field)
				}
				if n := len(stack) - i; n > maxListed {
					parts = slices.Insert(parts, maxListed-2, fmt.Sprintf("... %d more ...", n-maxListed+1))
				}
				r.errs.add(f.Pos, "type %s contains itself through required fields (%s); make one of these fields optional or nullable", next.Name, strings.Join(parts, " -> "))
			}
			stack = stack[:len(stack)-1]
		}
		state[def] = 2
	}
	for _, def := range r.p.Types {
		if def.Type != nil && def.Type.Kind == KindObject && state[def] == 0 {
			visit(def)
		}
	}
}

// objectDef returns the object type t refers to, following aliases.
func objectDef(t *Type) *TypeDef {
	for hops := 0; t != nil && t.Kind == KindRef && t.Ref != nil && hops < 64; hops++ {
		if t.Ref.Type != nil && t.Ref.Type.Kind == KindObject {
			return t.Ref
		}
		t = t.Ref.Type
	}
	return nil
}

// goNames reports Go names used twice where Go needs them unique.
func (r *resolver) goNames() {
	types := map[string]*TypeDef{}
	for _, def := range r.p.Types {
		if first := types[def.GoName]; first != nil && def.GoName != "" {
			if def.Inline {
				r.errs.add(def.Pos, "this inline type is named %s, like type %s (at %s); give it another name with name:", def.GoName, first.Name, first.Pos)
			} else {
				r.errs.add(def.Pos, "types %s and %s (at %s) both become the Go type %s; rename one", def.Name, first.Name, first.Pos, def.GoName)
			}
			continue
		}
		types[def.GoName] = def
		if def.Type == nil {
			continue
		}
		switch def.Type.Kind {
		case KindObject:
			seen := map[string]*Field{}
			for _, f := range def.Type.Fields {
				if first := seen[f.GoName]; first != nil && f.GoName != "" {
					r.errs.add(f.Pos, "fields %q and %q of %s both become the Go field %s; rename one or set go_name:", first.Name, f.Name, def.Name, f.GoName)
					continue
				}
				seen[f.GoName] = f
			}
		case KindEnum:
			seen := map[string]*EnumValue{}
			for _, v := range def.Type.Values {
				if first := seen[v.GoName]; first != nil && v.GoName != "" {
					r.errs.add(v.Pos, "values %v and %v of enum %s both become the Go name %s; set name: on one of them", first.Value, v.Value, def.Name, v.GoName)
					continue
				}
				seen[v.GoName] = v
			}
		}
	}
	methods := map[string]*Method{}
	for _, m := range r.p.Methods {
		if first := methods[m.GoName]; first != nil && m.GoName != "" {
			if first.Name == m.Name {
				r.errs.add(m.Pos, "method %q is declared twice; remove one", m.Name)
			} else {
				r.errs.add(m.Pos, "methods %q and %q (at %s) both become the Go name %s; set go_name: on one", m.Name, first.Name, first.Pos, m.GoName)
			}
			continue
		}
		methods[m.GoName] = m
	}
	errs := map[string]*ErrorDef{}
	for _, e := range r.p.Errors {
		if first := errs[e.GoName]; first != nil && e.GoName != "" {
			r.errs.add(e.Pos, "errors %s and %s (at %s) both become the Go name %s; rename one", e.Name, first.Name, first.Pos, e.GoName)
			continue
		}
		errs[e.GoName] = e
	}
}

// checkValues checks the defaults, constants and examples written in a
// type against the types they belong to.
func (r *resolver) checkValues(def *TypeDef) {
	if def.Example != nil {
		r.check(r.values[def.Example], &Type{Kind: KindRef, Ref: def}, fmt.Sprintf("example of %s", def.Name))
	}
	if def.Type == nil {
		return
	}
	for _, f := range def.Type.Fields {
		if f.DeclaredIn != def {
			continue
		}
		if f.Default != nil {
			r.check(r.values[f.Default], f.Type, fmt.Sprintf("default of %s", f.Name))
		}
		if f.Example != nil {
			r.check(r.values[f.Example], f.Type, fmt.Sprintf("example of %s", f.Name))
		}
	}
	r.checkConsts(def.Type)
}

// checkConsts checks that constants match their types, in t and the
// anonymous types it holds.
func (r *resolver) checkConsts(t *Type) {
	if t == nil {
		return
	}
	if t.Const != nil {
		c := *t
		c.Const = nil
		r.check(r.values[t.Const], &c, "const")
	}
	r.checkConsts(t.Elem)
	for _, f := range t.Fields {
		r.checkConsts(f.Type)
	}
}
