package markdown

import (
	"strings"

	"github.com/rpcgen/rpcgen/idl"
)

// use is one place where a named type is used.
type use struct {
	holder any    // *idl.TypeDef, *idl.Method or *idl.ErrorDef
	where  string // Markdown: a field name, "params", "items", ...; may be empty
}

// indexUses returns, for each named type, the places that refer to it, in
// document order: methods first, then errors, then types.
func indexUses(p *idl.Protocol) map[*idl.TypeDef][]use {
	uses := map[*idl.TypeDef][]use{}
	add := func(t *idl.Type, u use) {
		refs(t, func(def *idl.TypeDef) {
			for _, old := range uses[def] {
				if old == u {
					return
				}
			}
			uses[def] = append(uses[def], u)
		})
	}
	for _, m := range p.Methods {
		add(m.Params, use{m, "params"})
		add(m.Result, use{m, "result"})
	}
	for _, e := range p.Errors {
		add(e.Data, use{e, "data"})
	}
	for _, def := range p.Types {
		t := def.Type
		switch t.Kind {
		case idl.KindObject:
			for _, x := range t.Extends {
				add(&idl.Type{Kind: idl.KindRef, Ref: x}, use{def, "extends"})
			}
			for _, f := range t.Fields {
				if f.DeclaredIn == nil || f.DeclaredIn == def {
					add(f.Type, use{def, code(f.Name)})
				}
			}
		case idl.KindUnion:
			for _, v := range t.Variants {
				add(v.Type, use{def, "variant"})
			}
		case idl.KindArray:
			add(t.Elem, use{def, "items"})
		case idl.KindTuple:
			for _, it := range t.Items {
				add(it, use{def, "items"})
			}
		case idl.KindMap:
			add(t.Elem, use{def, "values"})
		case idl.KindRef:
			add(t, use{def, "alias"})
		}
	}
	return uses
}

// refs calls fn for each named type t refers to, directly or through array
// items and map values.
func refs(t *idl.Type, fn func(*idl.TypeDef)) {
	for t != nil {
		if t.Kind == idl.KindRef && t.Ref != nil {
			fn(t.Ref)
		}
		if k := t.Key; k != nil && k.Kind == idl.KindRef && k.Ref != nil {
			fn(k.Ref)
		}
		t = t.Elem
	}
}

// usedBy returns the links to the places def is used, one per holder, or
// "". A use inside the inline params or result of a method links to the
// method, whose section lists those fields.
func (d *doc) usedBy(def *idl.TypeDef) string {
	var holders []any
	links := map[any]string{}
	wheres := map[any][]string{}
	for _, u := range d.uses[def] {
		holder, where := u.holder, u.where
		var link string
		switch h := holder.(type) {
		case *idl.Method:
			link = d.methodLink(h)
		case *idl.ErrorDef:
			link = d.errorLink(h)
		case *idl.TypeDef:
			link = d.typeLink(h)
			if m, payload := d.onlyPayloadOf(h); m != nil {
				holder, link, where = m, d.methodLink(m), strings.TrimSpace(payload+" "+where)
			}
		}
		if _, ok := links[holder]; !ok {
			holders = append(holders, holder)
			links[holder] = link
		}
		if where != "" {
			wheres[holder] = append(wheres[holder], where)
		}
	}
	var parts []string
	for _, h := range holders {
		s := links[h]
		if w := wheres[h]; len(w) > 0 {
			s += " (" + strings.Join(w, ", ") + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// onlyPayloadOf returns the method whose params or result def is, when def
// is an inline object used nowhere else; the method's section then lists
// its fields.
func (d *doc) onlyPayloadOf(def *idl.TypeDef) (*idl.Method, string) {
	us := d.uses[def]
	if !def.Inline || def.Type.Kind != idl.KindObject || len(us) != 1 {
		return nil, ""
	}
	m, ok := us[0].holder.(*idl.Method)
	if !ok {
		return nil, ""
	}
	return m, us[0].where
}
