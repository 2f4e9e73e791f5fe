package idl

import (
	"fmt"
	"strings"
)

// finishTypes completes object and union types once every type is built:
// inherited fields are copied, and variant tags found.
func (r *resolver) finishTypes() {
	state := map[*TypeDef]int{} // 1 visiting, 2 done
	for _, def := range r.p.Types {
		r.flatten(def, state)
	}
	r.mapKeys()
	r.positional()
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
	r.inheritAdditional(def, bases)
}

// inheritAdditional gives an object without additional: of its own the
// additional members of the types it extends: an object that extends
// one keeping its extra members keeps them too.
func (r *resolver) inheritAdditional(def *TypeDef, bases []*TypeDef) {
	t := def.Type
	if t.Additional != nil {
		return
	}
	var from *TypeDef
	for _, base := range bases {
		a := base.Type.Additional
		switch {
		case a == nil:
		case from == nil:
			from, t.Additional = base, a
		case a.String() != t.Additional.String():
			r.errs.add(def.Pos, "type %s inherits additional members of type %s from %s and of type %s from %s; declare additional: on %s to say which", def.Name, t.Additional, from.Name, a, base.Name, def.Name)
			return
		}
	}
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
		if u := unionDef(v.Type); u != nil && !nullableChain(v.Type) {
			r.errs.add(v.Pos, "variant %s of union %s is a union, but a union with discriminator %q holds object types only; list the variants of %s here instead", u.Name, def.Name, t.Discriminator, u.Name)
			continue
		}
		if obj != nil && obj.Positional {
			r.errs.add(v.Pos, "variant %s of union %s is sent as an array (positional: true), but a union with discriminator %q holds objects; use an object type with a %q field", describeType(v.Type), def.Name, t.Discriminator, t.Discriminator)
			continue
		}
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

// validate checks what can only be checked on the complete model.
func (r *resolver) validate() {
	r.aliasCycles()
	r.requiredCycles()
	r.goNames()
	for _, def := range r.p.Types {
		r.checkValues(def)
	}
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
	for _, m := range r.p.Methods {
		f := m.NotificationForm
		if f == nil || f.GoName == "" {
			continue
		}
		if first := methods[f.GoName]; first != nil {
			r.errs.add(f.Pos, "the notification form of %q has the Go name %s, like %s at %s; set go_name: on the notification form", m.Name, f.GoName, methodWhat(first), first.Pos)
			continue
		}
		methods[f.GoName] = f
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
	for _, it := range t.Items {
		r.checkConsts(it)
	}
	for _, f := range t.Fields {
		r.checkConsts(f.Type)
	}
}

// methodWhat names a method, or a notification form, in messages.
func methodWhat(m *Method) string {
	if m.RequestForm != nil {
		return fmt.Sprintf("the notification form of %q", m.Name)
	}
	return fmt.Sprintf("method %q", m.Name)
}
