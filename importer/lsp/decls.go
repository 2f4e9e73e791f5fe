package lsp

import (
	"encoding/json"
	"fmt"
	"slices"
)

// special are the meta model's types that the IDL says directly: LSPAny is
// any JSON value (its "or" mixes integer, uinteger and decimal, all JSON
// numbers, and null); LSPObject and LSPArray are maps and arrays of it.
var special = map[string]string{
	"LSPAny":    "any",
	"LSPObject": "map<string, any>",
	"LSPArray":  "[]any",
}

// types maps the named types: URI and DocumentUri when used, then the
// structures, enumerations and type aliases, each in meta-model order.
func (c *converter) types() *mapping {
	out := &mapping{}
	structs := &mapping{}
	for _, s := range c.mm.Structures {
		structs.set(s.Name, c.structure(s))
	}
	enums := &mapping{}
	for _, e := range c.mm.Enumerations {
		enums.set(e.Name, c.enumeration(e))
	}
	aliases := &mapping{}
	for _, a := range c.mm.TypeAliases {
		if t, ok := special[a.Name]; ok {
			aliases.set(a.Name, c.withMeta(expr{compact: t}, link(c.typeAnchor(a.Name)), a.Meta))
			continue
		}
		e, err := c.typeOf(a.Type, "type alias "+a.Name)
		c.fail(err)
		aliases.set(a.Name, c.withMeta(e, link(c.typeAnchor(a.Name)), a.Meta))
	}
	for _, b := range []string{"URI", "DocumentUri"} {
		if c.usedBase[b] {
			out.set(b, (&mapping{}).set("type", str("string")).set("format", str("uri")).set("doc", str(link(camel(b)))))
		}
	}
	for _, m := range []*mapping{structs, enums, aliases} {
		out.keys = append(out.keys, m.keys...)
		out.vals = append(out.vals, m.vals...)
	}
	return out
}

// structure maps a structure: extends and mixins become extends, its
// properties fields.
func (c *converter) structure(s Structure) *mapping {
	where := "structure " + s.Name
	m := &mapping{}
	c.addMeta(m, link(c.typeAnchor(s.Name)), s.Meta)
	own := map[string]bool{}
	for _, p := range s.Properties {
		own[p.Name] = true
	}
	var extends []string
	var copied []Property
	c.inherit(s, own, &extends, &copied, where, map[string]bool{})
	if len(extends) > 0 {
		ext := &list{flow: true}
		for _, e := range extends {
			ext.items = append(ext.items, str(e))
		}
		m.set("extends", ext)
	}
	props := append(copied, s.Properties...)
	if len(props) == 0 {
		if len(extends) == 0 {
			m.insertAfter("type", str("object"))
		}
		return m
	}
	fields, err := c.fields(props, where)
	c.fail(err)
	if fields != nil {
		m.set("fields", fields)
	}
	return m
}

// inherit lists s's parents (extends, then mixins). The IDL does not let a
// type redeclare an inherited field, and the meta model narrows a few
// (CreateFile.kind narrows ResourceOperation.kind to 'create'): a parent
// that declares, itself or through its parents, a property of own is not
// extended; its parents are, and its other properties are copied.
func (c *converter) inherit(s Structure, own map[string]bool, extends *[]string, copied *[]Property, where string, path map[string]bool) {
	if path[s.Name] {
		c.fail(fmt.Errorf("%s: extends itself", where))
		return
	}
	if c.inherits++; c.inherits > maxInherits {
		c.fail(fmt.Errorf("%s: extends goes through more than %d structures", where, maxInherits))
		return
	}
	path[s.Name] = true
	defer delete(path, s.Name)
	for _, t := range slices.Concat(s.Extends, s.Mixins) {
		if t == nil || t.Kind != "reference" {
			c.fail(fmt.Errorf("%s: extends something else than a reference; only references to structures can be extended", where))
			continue
		}
		parent, ok := c.structureNamed(t.Name)
		if !ok {
			c.fail(fmt.Errorf("%s: extends %q, which is not a structure", where, t.Name))
			continue
		}
		if !c.declaresAny(parent, own) {
			*extends = append(*extends, t.Name)
			continue
		}
		c.inherit(parent, own, extends, copied, where, path)
		for _, p := range parent.Properties {
			if !own[p.Name] {
				*copied = append(*copied, p)
			}
		}
	}
}

// maxInherits bounds the structures inherit walks, all structures
// together (LSP 3.17 needs 3).
const maxInherits = 10000

// declaresAny reports whether s or its parents declare one of names.
func (c *converter) declaresAny(s Structure, names map[string]bool) bool {
	for n := range c.propNames(s.Name) {
		if names[n] {
			return true
		}
	}
	return false
}

// propNames is the set of properties a structure declares or inherits,
// computed once per structure; an extends cycle is reported and ends the
// walk.
func (c *converter) propNames(name string) map[string]bool {
	if ps, ok := c.props[name]; ok {
		if ps == nil {
			c.fail(fmt.Errorf("structure %s: extends itself", name))
			return map[string]bool{}
		}
		return ps
	}
	c.props[name] = nil // in progress
	ps := map[string]bool{}
	if s, ok := c.structureNamed(name); ok {
		for _, p := range s.Properties {
			ps[p.Name] = true
		}
		for _, t := range slices.Concat(s.Extends, s.Mixins) {
			if t != nil && t.Kind == "reference" {
				for n := range c.propNames(t.Name) {
					ps[n] = true
				}
			}
		}
	}
	c.props[name] = ps
	return ps
}

func (c *converter) structureNamed(name string) (Structure, bool) {
	i, ok := c.structIndex[name]
	if !ok {
		return Structure{}, false
	}
	return c.mm.Structures[i], true
}

// enumBases maps an enumeration's base type to the IDL's enum base; string
// enums need none.
var enumBases = map[string]string{"string": "", "integer": "int32", "uinteger": "uint32"}

// enumeration maps an enumeration; supportsCustomValues makes it open.
func (c *converter) enumeration(e Enumeration) *mapping {
	where := "enumeration " + e.Name
	m := (&mapping{}).set("type", str("enum"))
	base, ok := "", false
	if e.Type != nil && e.Type.Kind == "base" {
		base, ok = enumBases[e.Type.Name]
	}
	if !ok {
		c.fail(fmt.Errorf("%s: its type must be the base type string, integer or uinteger", where))
	}
	if base != "" {
		m.set("base", str(base))
	}
	c.addMeta(m, link(c.typeAnchor(e.Name)), e.Meta)
	if e.SupportsCustomValues {
		m.set("open", scalar{text: "true", verbatim: true})
	}
	values := &list{}
	for _, v := range e.Values {
		val, err := enumValue(v, base)
		if err != nil {
			c.fail(fmt.Errorf("%s, value %q: %v", where, v.Name, err))
			continue
		}
		vm := (&mapping{flow: true}).set("value", val).set("name", str(v.Name))
		c.appendMeta(vm, "", v.Meta)
		values.items = append(values.items, vm)
	}
	m.set("values", values)
	return m
}

// enumValue is an enumeration value as a scalar of the enumeration's base.
func enumValue(v EnumerationEntry, base string) (node, error) {
	var x any
	if err := strict(v.Value, &x); err != nil {
		return nil, err
	}
	switch x := x.(type) {
	case string:
		if base == "" {
			return str(x), nil
		}
	case json.Number:
		if _, err := x.Int64(); err == nil && base != "" {
			return scalar{text: x.String(), verbatim: true}, nil
		}
	}
	if base == "" {
		return nil, fmt.Errorf("%s is not a string", v.Value)
	}
	return nil, fmt.Errorf("%s is not an integer", v.Value)
}
