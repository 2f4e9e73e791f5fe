package openrpc

import (
	"fmt"
	"strings"

	"github.com/rpcgen/rpcgen/idl"
)

// Param structures, as the Method Object's paramStructure writes them.
const (
	byName     = "by-name"
	byPosition = "by-position"
)

// paramShape is how a method's params map to Content Descriptors.
type paramShape struct {
	structure   string // byName, byPosition, or "" (OpenRPC's default: either)
	descriptors []any  // one Content Descriptor per member or position
	names       []string
	// exact is false when the descriptors cannot say all the params'
	// schema says (a union of objects, members besides the declared
	// ones, params that are no object or array of known positions): the
	// method then carries the whole schema in x-rpcgen-params.
	exact bool
}

// params returns the shape of m's params: the members of an object by
// name, the fields of a positional object or the items of a tuple by
// position, every member of a union of objects by name (required when
// every variant requires it).
func (g *generator) params(m *idl.Method) (paramShape, error) {
	if m.Params == nil {
		return paramShape{exact: true}, nil
	}
	td := named(m.Params)
	if td == nil {
		return paramShape{}, nil
	}
	t := td.Type
	switch t.Kind {
	case idl.KindObject:
		if t.Positional {
			return g.positional(td)
		}
		ps, err := g.merged([]*idl.TypeDef{td})
		ps.exact = err == nil && t.Additional == nil
		return ps, err
	case idl.KindTuple:
		return g.tuple(td)
	case idl.KindUnion:
		var objects []*idl.TypeDef
		for _, v := range t.Variants {
			vt := named(v.Type)
			if vt == nil || vt.Type.Kind != idl.KindObject || vt.Type.Positional {
				return paramShape{}, nil
			}
			objects = append(objects, vt)
		}
		return g.merged(objects)
	}
	return paramShape{}, nil
}

// named returns the type definition t refers to, through aliases, or nil
// when t is no reference or may be null.
func named(t *idl.Type) *idl.TypeDef {
	for t != nil && t.Kind == idl.KindRef && !t.Nullable && t.Ref != nil {
		if t.Ref.Type == nil || t.Ref.Type.Kind != idl.KindRef {
			return t.Ref
		}
		t = t.Ref.Type
	}
	return nil
}

// merged returns the by-name shape of the objects: each member once, in
// the order first met, required when every object requires it; a member
// whose schema differs between objects gets the anyOf of its schemas.
func (g *generator) merged(objects []*idl.TypeDef) (paramShape, error) {
	type member struct {
		name     string
		schemas  []any
		seen     map[string]bool
		required int
	}
	var members []*member
	byKey := map[string]*member{}
	for _, td := range objects {
		props, err := g.properties(td)
		if err != nil {
			return paramShape{}, err
		}
		for _, f := range td.Type.Fields {
			m := byKey[f.Name]
			if m == nil {
				m = &member{name: f.Name, seen: map[string]bool{}}
				byKey[f.Name] = m
				members = append(members, m)
			}
			s := props.get(f.Name)
			if s == nil {
				return paramShape{}, fmt.Errorf("type %s: no schema for member %s", td.Name, f.Name)
			}
			enc, err := encode(s)
			if err != nil {
				return paramShape{}, err
			}
			if !m.seen[string(enc)] {
				m.seen[string(enc)] = true
				m.schemas = append(m.schemas, s)
			}
			if !f.Optional {
				m.required++
			}
		}
	}
	ps := paramShape{structure: byName}
	for _, m := range members {
		schema := m.schemas[0]
		if len(m.schemas) > 1 {
			var alts []any
			desc := ""
			for _, s := range m.schemas {
				d, alt := annotations(s)
				if desc == "" {
					desc = d.description
				}
				alts = append(alts, alt)
			}
			schema = obj().set("anyOf", alts).str("description", desc)
		}
		ps.add(m.name, schema, m.required == len(objects))
	}
	return ps, nil
}

// properties returns the properties of the schema of the object td.
func (g *generator) properties(td *idl.TypeDef) (*object, error) {
	s, ok := g.s.typ(td).(*object)
	if !ok {
		return nil, fmt.Errorf("type %s: schema is no object", td.Name)
	}
	props, _ := s.get("properties").(*object)
	if props == nil {
		props = obj()
	}
	return props, nil
}

// positional returns the by-position shape of the positional object td:
// one descriptor per field, in order, its optional fields last.
func (g *generator) positional(td *idl.TypeDef) (paramShape, error) {
	items, err := g.items(td)
	if err != nil {
		return paramShape{}, err
	}
	ps := paramShape{structure: byPosition, exact: true}
	for i, f := range td.Type.Fields {
		ps.add(f.Name, items[i], !f.Optional)
	}
	return ps, nil
}

// tuple returns the by-position shape of the tuple td, its positions
// named param1, param2, ...
func (g *generator) tuple(td *idl.TypeDef) (paramShape, error) {
	items, err := g.items(td)
	if err != nil {
		return paramShape{}, err
	}
	ps := paramShape{structure: byPosition, exact: true}
	for i := range td.Type.Items {
		ps.add(fmt.Sprintf("param%d", i+1), items[i], true)
	}
	return ps, nil
}

// items returns the schemas of the positions of the array type td, one
// per field or item.
func (g *generator) items(td *idl.TypeDef) ([]any, error) {
	s, _ := g.s.typ(td).(*object)
	var items []any
	if s != nil {
		items, _ = s.get("items").([]any)
	}
	if n := max(len(td.Type.Fields), len(td.Type.Items)); len(items) != n {
		return nil, fmt.Errorf("type %s: %d positions in its schema, want %d", td.Name, len(items), n)
	}
	return items, nil
}

// add appends the descriptor of a member or position named name: the
// description and deprecation of its schema move to the descriptor.
func (ps *paramShape) add(name string, schema any, required bool) {
	a, schema := annotations(schema)
	d := obj().set("name", name).str("description", a.description)
	d.flag("required", required)
	d.set("schema", schema)
	d.flag("deprecated", a.deprecated)
	ps.descriptors = append(ps.descriptors, d)
	ps.names = append(ps.names, name)
}

// annotation is what a descriptor takes from the schema it describes.
type annotation struct {
	description string
	deprecated  bool
}

// annotations returns the description and deprecation of schema, and a
// copy of schema without them or its title (a position's field name).
func annotations(schema any) (annotation, any) {
	o, ok := schema.(*object)
	if !ok {
		return annotation{}, schema
	}
	o = o.clone()
	var a annotation
	a.description, _ = o.get("description").(string)
	a.deprecated = o.get("deprecated") == true
	for _, k := range []string{"title", "description", "deprecated"} {
		o.del(k)
	}
	return a, o
}

// paramsSchema returns the schema of m's params as a whole.
func (g *generator) paramsSchema(m *idl.Method) (any, error) {
	what := "params"
	if m.RequestForm != nil {
		what = "notification.params"
	}
	return g.s.method(m, what)
}

// examples returns the Example Pairing Objects of m's examples.
func (g *generator) examples(m *idl.Method, ps paramShape) ([]any, error) {
	var out []any
	for i, x := range m.Examples {
		name := fmt.Sprintf("example %d", i+1)
		if x.Error != nil && x.Error.Error != nil {
			name += ": " + x.Error.Error.Name
		}
		pair := obj().set("name", name).str("description", strings.TrimSpace(x.Doc))
		params, err := ps.example(x.Params)
		if err != nil {
			return nil, fmt.Errorf("example %d of %s: %w", i+1, m.Name, err)
		}
		pair.set("params", params)
		switch {
		case x.Error != nil && x.Error.Error != nil:
			e := x.Error.Error
			msg := x.Error.Message
			if msg == "" {
				msg = e.Message
			}
			v := obj().set("code", e.Code).set("message", msg)
			if x.Error.Data != nil {
				data, err := parse(x.Error.Data.JSON)
				if err != nil {
					return nil, fmt.Errorf("example %d of %s: %w", i+1, m.Name, err)
				}
				v.set("data", data)
			}
			pair.set("error", obj().set("name", "error").set("value", v))
		case x.Result != nil || m.Kind == idl.Request && !m.AlsoNotification:
			// Without a result, the example of a request that may also be
			// a notification is one: a pairing without result says so.
			var v any // a request whose result is always null
			if x.Result != nil {
				if v, err = parse(x.Result.JSON); err != nil {
					return nil, fmt.Errorf("example %d of %s: %w", i+1, m.Name, err)
				}
			}
			pair.set("result", obj().set("name", "result").set("value", v))
		}
		out = append(out, pair)
	}
	return out, nil
}

// example returns the Example Objects of params sent with this shape:
// one per member by name, one per position by position, else the params
// whole, as one example named params.
func (ps paramShape) example(params *idl.Value) ([]any, error) {
	out := []any{}
	if params == nil {
		return out, nil
	}
	v, err := parse(params.JSON)
	if err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case *object:
		if ps.structure == "" {
			break
		}
		for _, k := range v.keys {
			out = append(out, obj().set("name", k).set("value", v.get(k)))
		}
		return out, nil
	case []any:
		if ps.structure != byPosition {
			break
		}
		for i, x := range v {
			name := fmt.Sprintf("param%d", i+1)
			if i < len(ps.names) {
				name = ps.names[i]
			}
			out = append(out, obj().set("name", name).set("value", x))
		}
		return out, nil
	}
	return append(out, obj().set("name", "params").set("value", v)), nil
}
