package lsp

import (
	"fmt"
	"strings"
)

// expr is an IDL type: compact text when the compact syntax can say it,
// else a long-form mapping.
type expr struct {
	compact string
	union   bool // compact is a union at its top level
	long    *mapping
}

func (e expr) node() node {
	if e.long != nil {
		return e.long
	}
	return str(e.compact)
}

// inner is e's compact text where a union needs parentheses (an array's
// items).
func (e expr) inner() string {
	if e.union {
		return "(" + e.compact + ")"
	}
	return e.compact
}

// baseIDL maps the meta model's base types to IDL types. URI and
// DocumentUri become named string types (see namedBase); null is handled
// where it may appear.
var baseIDL = map[string]string{
	"string":      "string",
	"boolean":     "boolean",
	"integer":     "int32",
	"uinteger":    "uint32",
	"decimal":     "number",
	"RegExp":      "string",
	"URI":         "URI",
	"DocumentUri": "DocumentUri",
}

// typeOf maps a meta-model type. where names the place for errors.
func (c *converter) typeOf(t *Type, where string) (expr, error) {
	if t == nil {
		return expr{}, fmt.Errorf("%s: a type is null or missing", where)
	}
	switch t.Kind {
	case "base":
		if t.Name == "null" {
			return expr{}, fmt.Errorf("%s: null outside a union: only a request's result may be null alone", where)
		}
		if t.Name == "URI" || t.Name == "DocumentUri" {
			c.usedBase[t.Name] = true
		}
		return expr{compact: baseIDL[t.Name]}, nil
	case "reference":
		if !c.known[t.Name] {
			return expr{}, fmt.Errorf("%s: reference to %q, which the meta model does not define", where, t.Name)
		}
		return expr{compact: t.Name}, nil
	case "array":
		e, err := c.typeOf(t.Element, where)
		if err != nil {
			return expr{}, err
		}
		if e.long != nil {
			return expr{long: (&mapping{}).set("type", str("array")).set("items", e.long)}, nil
		}
		return expr{compact: "[]" + e.inner()}, nil
	case "map":
		return c.mapOf(t, where)
	case "or":
		return c.union(t, where)
	case "and":
		ext := &list{flow: true}
		for _, it := range t.Items {
			if it == nil || it.Kind != "reference" {
				return expr{}, fmt.Errorf("%s: an \"and\" type of something else than a reference: only references to structures can be combined", where)
			}
			if _, err := c.typeOf(it, where); err != nil {
				return expr{}, err
			}
			ext.items = append(ext.items, str(it.Name))
		}
		return expr{long: (&mapping{}).set("extends", ext)}, nil
	case "tuple":
		items := &list{flow: true}
		for i, it := range t.Items {
			e, err := c.typeOf(it, fmt.Sprintf("%s, tuple item %d", where, i))
			if err != nil {
				return expr{}, err
			}
			items.items = append(items.items, e.node())
		}
		items.flow = allScalars(items.items)
		return expr{long: (&mapping{}).set("type", str("tuple")).set("items", items)}, nil
	case "literal":
		m, err := c.object(t.Literal.Properties, where)
		if err != nil {
			return expr{}, err
		}
		c.addMeta(m, "", t.Literal.Meta)
		return expr{long: m}, nil
	case "stringLiteral":
		if strings.ContainsAny(t.String, "'\\") {
			return expr{}, fmt.Errorf("%s: string literal %q holds a quote or backslash, which the compact syntax cannot hold", where, t.String)
		}
		return expr{compact: "'" + t.String + "'"}, nil
	case "integerLiteral":
		n, err := t.Number.Int64()
		if err != nil {
			return expr{}, fmt.Errorf("%s: integer literal %s is not a whole number", where, t.Number)
		}
		return expr{compact: fmt.Sprint(n)}, nil
	case "booleanLiteral":
		return expr{compact: fmt.Sprint(t.Bool)}, nil
	}
	return expr{}, fmt.Errorf("%s: unknown type kind %q", where, t.Kind)
}

// mapOf maps a map type to map<K, V>.
func (c *converter) mapOf(t *Type, where string) (expr, error) {
	var key string
	switch {
	case t.Key.Kind == "base" && t.Key.Name == "string":
		key = "string"
	case t.Key.Kind == "base" && t.Key.Name == "integer":
		key = "int32"
	case t.Key.Kind == "base" && (t.Key.Name == "URI" || t.Key.Name == "DocumentUri"), t.Key.Kind == "reference":
		k, err := c.typeOf(t.Key, where)
		if err != nil {
			return expr{}, err
		}
		key = k.compact
	default:
		return expr{}, fmt.Errorf("%s: a map keyed by %s %q: keys are strings, integers, URIs or references", where, t.Key.Kind, t.Key.Name)
	}
	v, err := c.typeOf(t.Value, where)
	if err != nil {
		return expr{}, err
	}
	if v.long == nil {
		return expr{compact: "map<" + key + ", " + v.compact + ">"}, nil
	}
	if key != "string" {
		return expr{}, fmt.Errorf("%s: a map keyed by %s whose values are not a compact type: the IDL's long form only has string keys", where, key)
	}
	return expr{long: (&mapping{}).set("type", str("map")).set("values", v.long)}, nil
}

// union maps an "or" type: nested "or"s are flattened, null makes the
// union nullable, one variant left is that variant.
func (c *converter) union(t *Type, where string) (expr, error) {
	var items []*Type
	nullable := false
	var flatten func(*Type)
	flatten = func(t *Type) {
		for _, it := range t.Items {
			switch {
			case it == nil:
				items = append(items, it) // reported by typeOf
			case it.Kind == "or":
				flatten(it)
			case it.Kind == "base" && it.Name == "null":
				nullable = true
			default:
				items = append(items, it)
			}
		}
	}
	flatten(t)
	if len(items) == 0 {
		return expr{}, fmt.Errorf("%s: a union of null only", where)
	}
	var vars []expr
	compact := true
	for i, it := range items {
		e, err := c.typeOf(it, fmt.Sprintf("%s, variant %d", where, i))
		if err != nil {
			return expr{}, err
		}
		vars = append(vars, e)
		compact = compact && e.long == nil
	}
	if len(vars) == 1 {
		e := vars[0]
		switch {
		case !nullable:
			return e, nil
		case e.long != nil:
			e.long.insertAfter("nullable", scalar{text: "true", verbatim: true}, "type")
			return e, nil
		}
		return expr{compact: e.compact + " | null", union: true}, nil
	}
	if compact {
		parts := make([]string, len(vars))
		for i, v := range vars {
			parts[i] = v.compact
		}
		if nullable {
			parts = append(parts, "null")
		}
		return expr{compact: strings.Join(parts, " | "), union: true}, nil
	}
	m := (&mapping{}).set("type", str("union"))
	if nullable {
		m.set("nullable", scalar{text: "true", verbatim: true})
	}
	vl := &list{}
	for _, v := range vars {
		vl.items = append(vl.items, v.node())
	}
	m.set("variants", vl)
	return expr{long: m}, nil
}

// object maps properties to an object's long form: {fields: ...}, or
// {type: object} without any.
func (c *converter) object(props []Property, where string) (*mapping, error) {
	m := &mapping{}
	if len(props) == 0 {
		m.flow = true // {type: object}
		return m.set("type", str("object")), nil
	}
	fields, err := c.fields(props, where)
	if err != nil {
		return nil, err
	}
	return m.set("fields", fields), nil
}

// fields maps properties to a fields mapping, in order.
func (c *converter) fields(props []Property, where string) (*mapping, error) {
	fields := &mapping{}
	for _, p := range props {
		e, err := c.typeOf(p.Type, where+"."+p.Name)
		if err != nil {
			return nil, err
		}
		key := p.Name
		if p.Optional {
			key += "?"
		}
		fields.set(key, c.withMeta(e, "", p.Meta))
	}
	return fields, nil
}

// withMeta is e with doc, since, proposed and deprecated, in its long form
// when there are any.
func (c *converter) withMeta(e expr, doc string, m Meta) node {
	if doc == "" && m.Since == "" && !m.Proposed && m.Deprecated == "" {
		return e.node()
	}
	long := e.long
	if long == nil {
		long = (&mapping{}).set("type", str(e.compact))
	}
	c.addMeta(long, doc, m)
	return long
}

// metaAfter are the keys doc, since, proposed and deprecated follow.
var metaAfter = []string{"type", "base", "from", "kind", "code", "message"}

// addMeta inserts doc, since, proposed and deprecated after m's type (or
// a method's kind, an error's message).
func (c *converter) addMeta(m *mapping, doc string, meta Meta) {
	var add mapping
	c.appendMeta(&add, doc, meta)
	for i := len(add.keys) - 1; i >= 0; i-- {
		m.insertAfter(add.keys[i], add.vals[i], metaAfter...)
	}
}

// appendMeta appends doc, since, proposed and deprecated to m.
func (c *converter) appendMeta(m *mapping, doc string, meta Meta) {
	if doc != "" {
		m.set("doc", str(doc))
	}
	if meta.Since != "" {
		m.set("since", str(c.since(meta.Since)))
	}
	if meta.Proposed {
		m.set("proposed", scalar{text: "true", verbatim: true})
	}
	if meta.Deprecated != "" {
		m.set("deprecated", str(meta.Deprecated))
	}
}

func allScalars(ns []node) bool {
	for _, n := range ns {
		if _, ok := n.(scalar); !ok {
			return false
		}
	}
	return true
}
