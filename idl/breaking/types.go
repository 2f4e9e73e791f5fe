package breaking

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rpcgen/rpcgen/idl"
)

// place is where a type is used: what describes it ("member "x" of Foo",
// "the result of request "y""), pos is its position in the new protocol.
type place struct {
	what string
	pos  idl.Pos
}

// maxDepth bounds the alias chains and nesting that resolve and signature
// follow; the loader refuses types defined only through themselves.
const maxDepth = 64

// resolve follows references: it returns the type they lead to, whether
// any step accepts null, and the definitions passed, outermost first.
func resolve(t *idl.Type) (base *idl.Type, nullable bool, defs []*idl.TypeDef) {
	for t.Kind == idl.KindRef && len(defs) < maxDepth {
		nullable = nullable || t.Nullable
		defs = append(defs, t.Ref)
		t = t.Ref.Type
	}
	return t, nullable || t.Nullable, defs
}

func last(defs []*idl.TypeDef) *idl.TypeDef {
	if len(defs) == 0 {
		return nil
	}
	return defs[len(defs)-1]
}

// typ compares the type o used at a place with the type n used there now.
func (c *comparer) typ(o, n *idl.Type, at place) {
	ob, onull, odefs := resolve(o)
	nb, nnull, ndefs := resolve(n)
	for _, d := range odefs {
		c.usedOld[d] = true
	}
	for _, d := range ndefs {
		c.usedNew[d] = true
	}
	if !sameKind(ob, nb) {
		c.add("FIELD_TYPE_CHANGED", at.pos, false, "%s changed type from %s to %s", at.what, describeFull(o), describeFull(n))
		return
	}
	if len(odefs) > 0 && len(ndefs) > 0 && odefs[0].Name != ndefs[0].Name && c.kept(odefs[0]) {
		// Another type, not the old one renamed: compare their forms
		// here rather than the two types member by member.
		if signature(odefs[0].Type, 0) != signature(ndefs[0].Type, 0) || onull != nnull {
			c.add("FIELD_TYPE_CHANGED", at.pos, false, "%s changed type from %s to %s", at.what, describe(o), describe(n))
			return
		}
	}
	if onull != nnull {
		how := "accepts null now"
		if onull {
			how = "no longer accepts null"
		}
		c.add("FIELD_NULLABLE_CHANGED", at.pos, false, "%s %s (%s, was %s)", at.what, how, describe(n), describe(o))
	}
	c.goType(o, n, odefs, ndefs, at)
	ctx, pos := at.what, at.pos
	od, nd := last(odefs), last(ndefs)
	if od != nil && nd != nil {
		key := [2]*idl.TypeDef{od, nd}
		if c.seen[key] {
			return
		}
		c.seen[key] = true
		ctx, pos = nd.Name, nd.Pos
	}
	label := ctx // what a finding about the type as a whole names
	if nd != nil {
		label = "type " + ctx
	}
	switch ob.Kind {
	case idl.KindInteger, idl.KindNumber:
		if ob, nb := bounds(ob), bounds(nb); ob != nb {
			c.add("FIELD_BOUNDS_CHANGED", pos, false, "%s: bounds changed from %s to %s", label, ob, nb)
		}
	case idl.KindArray:
		c.typ(ob.Elem, nb.Elem, place{"the items of " + label, pos})
	case idl.KindMap:
		c.typ(orString(ob.Key), orString(nb.Key), place{"the keys of " + label, pos})
		c.typ(ob.Elem, nb.Elem, place{"the values of " + label, pos})
	case idl.KindTuple:
		if len(ob.Items) != len(nb.Items) {
			c.add("FIELD_TYPE_CHANGED", pos, false, "tuple %s changed length from %d to %d", ctx, len(ob.Items), len(nb.Items))
			return
		}
		for i := range nb.Items {
			c.typ(ob.Items[i], nb.Items[i], place{fmt.Sprintf("item %d of %s", i, ctx), pos})
		}
	case idl.KindObject:
		c.object(ob, nb, ctx, pos)
	case idl.KindEnum:
		c.enum(ob, nb, ctx, pos)
	case idl.KindUnion:
		c.union(ob, nb, ctx, pos)
	}
}

// goType reports a place whose Go type changed: a type renamed, or
// another named type (or an alias, or none) of the same kind.
func (c *comparer) goType(o, n *idl.Type, odefs, ndefs []*idl.TypeDef, at place) {
	var oname, nname string
	if len(odefs) > 0 {
		oname = odefs[0].GoName
	}
	if len(ndefs) > 0 {
		nname = ndefs[0].GoName
	}
	if oname == nname {
		return
	}
	if oname != "" && nname != "" {
		od, nd := odefs[0], ndefs[0]
		if !c.kept(od) {
			if !c.renamed[od] {
				c.renamed[od] = true
				c.add("TYPE_RENAMED", nd.Pos, false, "type %s (Go %s) is now %s (Go %s)", od.Name, od.GoName, nd.Name, nd.GoName)
			}
			return
		}
	}
	c.add("FIELD_GO_TYPE_CHANGED", at.pos, false, "%s: Go type changed from %s to %s", at.what, goTypeName(o, oname), goTypeName(n, nname))
}

// kept reports whether the new protocol still has a type of od's name.
func (c *comparer) kept(od *idl.TypeDef) bool {
	return slices.ContainsFunc(c.cur.Types, func(d *idl.TypeDef) bool { return d.Name == od.Name })
}

func goTypeName(t *idl.Type, name string) string {
	if name != "" {
		return name
	}
	return describe(t)
}

// object compares the fields of two objects.
func (c *comparer) object(o, n *idl.Type, ctx string, pos idl.Pos) {
	if o.Positional != n.Positional {
		form := "a JSON object"
		if n.Positional {
			form = "a JSON array (positional)"
		}
		c.add("OBJECT_POSITIONAL_CHANGED", pos, false, "%s is sent as %s now", ctx, form)
	}
	if (o.Additional == nil) != (n.Additional == nil) {
		how := "keeps the members it does not declare now"
		if n.Additional == nil {
			how = "no longer keeps the members it does not declare"
		}
		c.add("OBJECT_ADDITIONAL_CHANGED", pos, false, "%s %s", ctx, how)
	} else if o.Additional != nil {
		c.typ(o.Additional, n.Additional, place{"the other members of " + ctx, pos})
	}
	renamedTo := map[string]string{} // old name -> new name
	removed := false
	for i, of := range o.Fields {
		nf := field(n, of.Name)
		if nf == nil {
			if i < len(n.Fields) {
				if cand := n.Fields[i]; field(o, cand.Name) == nil && cand.Optional == of.Optional && signature(cand.Type, 0) == signature(of.Type, 0) {
					renamedTo[of.Name] = cand.Name
					c.add("FIELD_RENAMED", cand.Pos, false, "member %q of %s was renamed %q", of.Name, ctx, cand.Name)
					continue
				}
			}
			removed = true
			c.add("FIELD_REMOVED", of.Pos, true, "member %q of %s was removed", of.Name, ctx)
			continue
		}
		what := fmt.Sprintf("member %q of %s", nf.Name, ctx)
		if of.Optional != nf.Optional {
			c.add("FIELD_OPTIONALITY_CHANGED", nf.Pos, false, "%s %s", what, becameOptional(nf.Optional))
		}
		if of.GoName != nf.GoName {
			c.add("FIELD_GO_NAME_CHANGED", nf.Pos, false, "%s: Go field %s is now %s", what, of.GoName, nf.GoName)
		}
		if od, nd := valueText(of.Default), valueText(nf.Default); od != nd && of.Optional && nf.Optional {
			c.add("FIELD_DEFAULT_CHANGED", nf.Pos, false, "%s: default changed from %s to %s", what, od, nd)
		}
		c.typ(of.Type, nf.Type, place{what, nf.Pos})
	}
	newNames := make([]string, 0, len(n.Fields))
	for _, nf := range n.Fields {
		newNames = append(newNames, nf.Name)
		if field(o, nf.Name) == nil && !slices.Contains(mapValues(renamedTo), nf.Name) && !nf.Optional {
			c.add("FIELD_NEW_REQUIRED", nf.Pos, false, "required member %q was added to %s", nf.Name, ctx)
		}
	}
	if o.Positional && n.Positional && !removed {
		oldNames := make([]string, 0, len(o.Fields))
		for _, of := range o.Fields {
			oldNames = append(oldNames, cmpOr(renamedTo[of.Name], of.Name))
		}
		if len(oldNames) > len(newNames) || !slices.Equal(oldNames, newNames[:len(oldNames)]) {
			c.add("FIELD_ORDER_CHANGED", pos, false, "the members of positional %s changed order from [%s] to [%s]", ctx, strings.Join(oldNames, ", "), strings.Join(newNames, ", "))
		}
	}
}

func field(t *idl.Type, name string) *idl.Field {
	for _, f := range t.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func mapValues(m map[string]string) []string {
	vs := make([]string, 0, len(m))
	for _, v := range m {
		vs = append(vs, v)
	}
	return vs
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// enum compares the values of two enums.
func (c *comparer) enum(o, n *idl.Type, ctx string, pos idl.Pos) {
	if o.Open != n.Open {
		how := "open now: values it does not list, which new writers may send, are refused by old readers"
		if !n.Open {
			how = "closed now: values it does not list, which old writers may send, are refused by new readers"
		}
		c.add("ENUM_OPEN_CHANGED", pos, false, "enum %s is %s", ctx, how)
	}
	for _, ov := range o.Values {
		i := slices.IndexFunc(n.Values, func(v *idl.EnumValue) bool { return v.Value == ov.Value })
		switch {
		case i < 0 && n.Open:
			c.add("ENUM_CONST_REMOVED", ov.Pos, true, "value %s of open enum %s was removed (Go %s)", enumText(ov), ctx, ov.GoName)
		case i < 0:
			c.add("ENUM_VALUE_REMOVED", ov.Pos, true, "value %s of enum %s was removed", enumText(ov), ctx)
		case n.Values[i].GoName != ov.GoName:
			c.add("ENUM_VALUE_GO_NAME_CHANGED", n.Values[i].Pos, false, "value %s of enum %s: Go name %s is now %s", enumText(ov), ctx, ov.GoName, n.Values[i].GoName)
		}
	}
	if o.Open {
		return
	}
	for _, nv := range n.Values {
		if !slices.ContainsFunc(o.Values, func(v *idl.EnumValue) bool { return v.Value == nv.Value }) {
			c.add("ENUM_VALUE_ADDED", nv.Pos, false, "value %s was added to enum %s, closed in the old IDL: peers built from it refuse the value", enumText(nv), ctx)
		}
	}
}

func enumText(v *idl.EnumValue) string {
	if s, ok := v.Value.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v.Value)
}

// union compares the variants of two unions: by tag when a discriminator
// tells them apart, else by the named type or the JSON kind of each.
func (c *comparer) union(o, n *idl.Type, ctx string, pos idl.Pos) {
	if o.Discriminator != n.Discriminator {
		c.add("UNION_DISCRIMINATOR_CHANGED", pos, false, "union %s changed discriminator from %q to %q", ctx, o.Discriminator, n.Discriminator)
		return
	}
	find := func(u *idl.Type, key string) *idl.Variant {
		for _, v := range u.Variants {
			if variantKey(v) == key {
				return v
			}
		}
		return nil
	}
	for _, ov := range o.Variants {
		key := variantKey(ov)
		nv := find(n, key)
		if nv == nil {
			c.add("UNION_VARIANT_REMOVED", ov.Pos, true, "variant %s of union %s was removed", key, ctx)
			continue
		}
		c.typ(ov.Type, nv.Type, place{fmt.Sprintf("variant %s of union %s", key, ctx), nv.Pos})
	}
	if len(o.Variants) > 0 {
		// An old reader keeps what its catch-all variant takes.
		if lastBase, _, _ := resolve(o.Variants[len(o.Variants)-1].Type); lastBase.Kind == idl.KindAny {
			return
		}
	}
	for _, nv := range n.Variants {
		if key := variantKey(nv); find(o, key) == nil {
			c.add("UNION_VARIANT_ADDED", nv.Pos, false, "variant %s was added to union %s: peers built from the old IDL refuse it", key, ctx)
		}
	}
}

func variantKey(v *idl.Variant) string {
	if v.Tag != "" {
		return fmt.Sprintf("%q", v.Tag)
	}
	if v.Type.Kind == idl.KindRef {
		return v.Type.Ref.Name
	}
	return describe(v.Type)
}

// sameKind reports whether two resolved types hold the same JSON values
// at the level of their kind: the same kind, width, enum base and
// constant.
func sameKind(o, n *idl.Type) bool {
	if o.Kind != n.Kind || o.Width != n.Width || o.EnumBase != n.EnumBase {
		return false
	}
	return valueText(o.Const) == valueText(n.Const)
}

func orString(t *idl.Type) *idl.Type {
	if t == nil {
		return &idl.Type{Kind: idl.KindString}
	}
	return t
}

func valueText(v *idl.Value) string {
	if v == nil {
		return "none"
	}
	return string(v.JSON)
}

func bounds(t *idl.Type) string {
	lo, hi := "-inf", "+inf"
	if t.Minimum != nil {
		lo = string(t.Minimum.JSON)
	}
	if t.Maximum != nil {
		hi = string(t.Maximum.JSON)
	}
	return "[" + lo + ", " + hi + "]"
}

// describeFull is describe, followed for a named type by what it stands
// for: "Status (string)".
func describeFull(t *idl.Type) string {
	s := describe(t)
	if t.Kind == idl.KindRef {
		base, _, _ := resolve(t)
		s += " (" + describe(base) + ")"
	}
	return s
}

// noParams stands for the params of a method that has none: a reader
// takes absent object params as {}.
var noParams = &idl.Type{Kind: idl.KindObject}

// describe writes a type as the IDL's compact syntax would.
func describe(t *idl.Type) string {
	if t == noParams {
		return "no params"
	}
	s := describeBase(t)
	if t.Nullable {
		s += " | null"
	}
	return s
}

func describeBase(t *idl.Type) string {
	switch t.Kind {
	case idl.KindRef:
		return t.Ref.Name
	case idl.KindArray:
		return "[]" + paren(t.Elem)
	case idl.KindMap:
		return "map<" + describe(orString(t.Key)) + ", " + describe(t.Elem) + ">"
	case idl.KindInteger:
		if t.Const != nil {
			return string(t.Const.JSON)
		}
		return t.Width.String()
	case idl.KindString, idl.KindNumber, idl.KindBoolean:
		if t.Const != nil {
			return string(t.Const.JSON)
		}
	case idl.KindEnum:
		if t.EnumBase == idl.KindInteger {
			return "enum of " + t.Width.String()
		}
		return "enum of strings"
	}
	return t.Kind.String()
}

func paren(t *idl.Type) string {
	if t.Nullable {
		return "(" + describe(t) + ")"
	}
	return describe(t)
}

// signature writes a type's wire form: named types by name, inline ones
// spelled out, so that two members whose inline types only differ in
// their synthesized names compare equal.
func signature(t *idl.Type, depth int) string {
	if depth > maxDepth {
		return "..."
	}
	null := ""
	if t.Nullable {
		null = "?"
	}
	if t.Kind == idl.KindRef && !t.Ref.Inline {
		return t.Ref.Name + null
	}
	if t.Kind == idl.KindRef {
		return signature(t.Ref.Type, depth+1) + null
	}
	var b strings.Builder
	b.WriteString(describeBase(t))
	switch t.Kind {
	case idl.KindArray, idl.KindMap:
		b.WriteString("(" + signature(t.Elem, depth+1) + ")")
	case idl.KindObject:
		for _, f := range t.Fields {
			fmt.Fprintf(&b, " %q:%t:%s", f.Name, f.Optional, signature(f.Type, depth+1))
		}
	case idl.KindTuple:
		for _, it := range t.Items {
			b.WriteString(" " + signature(it, depth+1))
		}
	case idl.KindEnum:
		for _, v := range t.Values {
			fmt.Fprintf(&b, " %v", v.Value)
		}
	case idl.KindUnion:
		b.WriteString(" " + t.Discriminator)
		for _, v := range t.Variants {
			b.WriteString(" " + signature(v.Type, depth+1))
		}
	}
	return b.String() + null
}
