package idl

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"strings"
)

// This file generates random valid IDLs for the property test of
// property_test.go (package idl_test, which builds their generated Go), with
// random valid JSON values of each named type.

// PropDefaultSeed is the property test's seed unless -seed says otherwise;
// PropIDLs is how many IDLs one run generates; PropValues how many values of
// each named type it round-trips.
const (
	PropDefaultSeed = 1
	PropIDLs        = 20
	PropValues      = 4
)

// PropSample is a named type of a random IDL with valid JSON values of it.
type PropSample struct {
	Type     string   // the IDL name, also the Go name
	Nullable bool     // the named type is nullable: Go holds it as *Type
	Values   []string // JSON texts
}

// ptype is a type of a random IDL.
type ptype struct {
	kind     string   // string integer int32 uint32 number boolean any named array map enum intenum object union dunion tuple
	name     string   // named: the referenced name
	elem     *ptype   // array, map
	key      *ptype   // map: the keys' type (integer or a named enum); nil for strings
	items    []*ptype // tuple: the type of each position
	position bool     // object: sent as an array of its fields
	nullable bool
	values   []string // enum: values; intenum: decimal values
	fields   []pfield // object
	variants []*ptype // union: named refs; dunion: named object refs
	tag      string   // dunion: the discriminator field
	tagVal   string   // object that is a dunion variant: its constant tag
	extends  string   // object: the object whose fields come first
	inherit  int      // object: how many of fields come from extends
	extra    *ptype   // object: the type of its additional members
	open     bool     // enum, intenum: other values are accepted
	base     string   // intenum: "", int32 or uint32
	lo, hi   int64    // integer, int32, uint32, number written with minimum and maximum
	bounded  bool     // lo and hi are set
}

type pfield struct {
	name     string
	t        *ptype
	optional bool
}

type propGen struct {
	r     *rand.Rand
	named map[string]*ptype
	order []string
	n     int
}

// PropIDL returns the i-th random IDL of a run with seed, and samples of its
// named types.
func PropIDL(seed int64, i int) (src []byte, samples []PropSample) {
	g := &propGen{r: rand.New(rand.NewSource(seed*1000 + int64(i))), named: map[string]*ptype{}}
	var b strings.Builder
	fmt.Fprintf(&b, "protocol:\n  name: prop%d\n  roles: {alpha: , beta: }\n", i)
	fmt.Fprintf(&b, "  framing: %s\n", []string{"ndjson", "content-length"}[g.r.Intn(2)])
	b.WriteString("types:\n")
	for range 3 + g.r.Intn(8) {
		g.declare(&b)
	}
	b.WriteString("errors:\n")
	ne := 1 + g.r.Intn(3)
	for e := range ne {
		fmt.Fprintf(&b, "  Err%d: {code: %d, message: \"failure %d\"", e, -32000-e, e)
		if g.r.Intn(2) == 0 {
			fmt.Fprintf(&b, ", data: %s", quote(g.write(g.ref(1))))
		}
		b.WriteString("}\n")
	}
	b.WriteString("methods:\n")
	for m := range 1 + g.r.Intn(5) {
		from := []string{"alpha", "beta", "both"}[g.r.Intn(3)]
		fmt.Fprintf(&b, "  ns/m%d:\n    from: %s\n", m, from)
		if g.r.Intn(3) == 0 {
			b.WriteString("    since: \"1.0\"\n    proposed: true\n")
		}
		if g.r.Intn(3) == 0 {
			b.WriteString("    kind: notification\n")
		} else {
			b.WriteString("    kind: request\n")
			fmt.Fprintf(&b, "    result: %s\n", quote(g.write(g.ref(1))))
			fmt.Fprintf(&b, "    errors: [Err%d]\n", g.r.Intn(ne))
		}
		if g.r.Intn(2) == 0 {
			b.WriteString("    params: " + g.objectType(1) + "\n")
		} else if n := g.objectRef(); n != "" {
			b.WriteString("    params: " + n + "\n")
		}
	}
	for _, name := range g.order {
		s := PropSample{Type: name, Nullable: g.named[name].nullable}
		for range PropValues {
			v, _ := json.Marshal(g.value(g.named[name], 0))
			s.Values = append(s.Values, string(v))
		}
		samples = append(samples, s)
	}
	return []byte(b.String()), samples
}

func quote(s string) string { return strconv.Quote(s) }

func (g *propGen) newName(prefix string) string {
	g.n++
	return fmt.Sprintf("%s%d", prefix, g.n)
}

// declare adds one random named type to the types: section.
func (g *propGen) declare(b *strings.Builder) {
	var t *ptype
	var name, text string
	switch g.r.Intn(9) {
	case 0:
		name = g.newName("Color")
		t = &ptype{kind: "enum"}
		for i := range 1 + g.r.Intn(4) {
			t.values = append(t.values, fmt.Sprintf("v%d-%c", i, 'a'+rune(g.r.Intn(26))))
		}
		text = "[" + strings.Join(t.values, ", ") + "]"
		if g.r.Intn(3) == 0 {
			t.open = true
			text = "{type: enum, open: true, since: \"1.1\", values: " + text + "}"
		}
	case 1:
		name = g.newName("Level")
		t = &ptype{kind: "intenum", base: []string{"", "", "int32", "uint32"}[g.r.Intn(4)], open: g.r.Intn(3) == 0}
		seen := map[int]bool{}
		for range 1 + g.r.Intn(4) {
			v := g.r.Intn(200) - 100
			if t.base == "uint32" {
				v += 100
			}
			if !seen[v] {
				seen[v] = true
				t.values = append(t.values, fmt.Sprint(v))
			}
		}
		switch {
		case t.base != "" || t.open:
			text = fmt.Sprintf("{type: enum, open: %v, values: [%s]", t.open, strings.Join(t.values, ", "))
			if t.base != "" {
				text += ", base: " + t.base
			}
			text += "}"
		case len(t.values) == 1: // one literal is a constant, not an enum
			text = fmt.Sprintf("{type: enum, values: [%s]}", t.values[0])
		default:
			text = quote(strings.Join(t.values, " | "))
		}
	case 2:
		if g.r.Intn(2) == 0 {
			// a union of object variants told apart by their members: field
			// names are unique (see object), so each variant's first,
			// required field distinguishes it. Sometimes a string joins.
			// Sometimes arrays of them, told apart by their first item.
			t = &ptype{kind: "union"}
			lists := g.r.Intn(3) == 0
			var names []string
			for range 2 + g.r.Intn(2) {
				vn := g.newName("Member")
				g.add(b, vn, g.object(1), "")
				v := &ptype{kind: "named", name: vn}
				if lists {
					v, vn = &ptype{kind: "array", elem: v}, "[]"+vn
				}
				t.variants = append(t.variants, v)
				names = append(names, vn)
			}
			if g.r.Intn(2) == 0 {
				t.variants = append(t.variants, &ptype{kind: "string"})
				names = append(names, "string")
			}
			name = g.newName(map[bool]string{false: "Either", true: "Lists"}[lists])
			text = quote(strings.Join(names, " | "))
			break
		}
		name = g.newName("Scalar")
		t = &ptype{kind: "union"}
		kinds := []string{"string", "integer", "boolean"}
		g.r.Shuffle(3, func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
		var parts []string
		for _, k := range kinds[:2+g.r.Intn(2)] {
			t.variants = append(t.variants, &ptype{kind: k})
			parts = append(parts, k)
		}
		if g.r.Intn(2) == 0 {
			e := g.ref(1)
			t.variants = append(t.variants, &ptype{kind: "array", elem: e})
			parts = append(parts, "[]"+g.paren(e))
		}
		text = quote(strings.Join(parts, " | "))
	case 3:
		// a discriminated union of fresh objects
		tag := []string{"kind", "type", "op"}[g.r.Intn(3)]
		t = &ptype{kind: "dunion", tag: tag}
		var vars []string
		for v := range 2 + g.r.Intn(2) {
			vn := g.newName("Variant")
			o := g.object(1)
			o.tagVal = fmt.Sprintf("tag%d", v)
			o.fields = append([]pfield{{name: tag, t: &ptype{kind: "const"}}}, o.fields...)
			g.add(b, vn, o, g.objectText(o, tag))
			t.variants = append(t.variants, &ptype{kind: "named", name: vn})
			vars = append(vars, vn)
		}
		name = g.newName("Union")
		text = fmt.Sprintf("{type: union, discriminator: %s, variants: [%s]}", tag, strings.Join(vars, ", "))
	case 4:
		name = g.newName("List")
		t = &ptype{kind: "array", elem: g.ref(1)}
		text = quote(g.write(t))
	case 5:
		name = g.newName("Table")
		t = &ptype{kind: "map", elem: g.ref(1), key: g.mapKey()}
		text = quote(g.write(t))
	case 6:
		name = g.newName("Tuple")
		t = &ptype{kind: "tuple"}
		var items []string
		for range 1 + g.r.Intn(3) {
			it := g.ref(2)
			t.items = append(t.items, it)
			items = append(items, quote(g.write(it)))
		}
		text = "{type: tuple, items: [" + strings.Join(items, ", ") + "]}"
	case 7:
		// an object sent by position: its required fields first
		name = g.newName("Pos")
		t = g.object(1)
		t.position = true
		sort.SliceStable(t.fields, func(i, j int) bool { return !t.fields[i].optional && t.fields[j].optional })
		text = "{positional: true, " + g.objectText(t, "")[1:]
	default:
		name = g.newName("Obj")
		t = g.object(1)
		if objs := g.objects(); len(objs) > 0 && g.r.Intn(3) == 0 {
			t.extends = objs[g.r.Intn(len(objs))]
			parent := g.named[t.extends].fields
			t.inherit = len(parent)
			t.fields = append(append([]pfield(nil), parent...), t.fields...)
		}
		if g.r.Intn(3) == 0 {
			t.extra = g.ref(2)
		}
		text = g.objectText(t, "")
	}
	if g.r.Intn(5) == 0 && t.kind != "dunion" && t.kind != "union" {
		// named nullable types
		t.nullable = true
		if strings.HasPrefix(text, "{") {
			text = "{nullable: true, " + text[1:]
		} else if t.kind == "enum" {
			text = fmt.Sprintf("{type: enum, nullable: true, values: %s}", text)
		} else {
			s, _ := strconv.Unquote(text)
			text = quote("(" + s + ")?")
		}
	}
	g.add(b, name, t, text)
}

func (g *propGen) add(b *strings.Builder, name string, t *ptype, text string) {
	if text == "" {
		text = g.objectText(t, "")
	}
	g.named[name] = t
	g.order = append(g.order, name)
	fmt.Fprintf(b, "  %s: %s\n", name, text)
}

func (g *propGen) objects() []string {
	var out []string
	for _, n := range g.order {
		if t := g.named[n]; t.kind == "object" && !t.nullable && t.tagVal == "" && !t.position {
			out = append(out, n)
		}
	}
	return out
}

func (g *propGen) objectRef() string {
	if objs := g.objects(); len(objs) > 0 {
		return objs[g.r.Intn(len(objs))]
	}
	return ""
}

// object returns a random object type with at least one required field.
func (g *propGen) object(depth int) *ptype {
	t := &ptype{kind: "object"}
	for i := range 1 + g.r.Intn(5) {
		g.n++
		f := pfield{name: fmt.Sprintf("f%d%c", g.n, 'a'+rune(g.r.Intn(26))), t: g.ref(depth), optional: i > 0 && g.r.Intn(2) == 0}
		if g.r.Intn(6) == 0 {
			f.t = g.bounded()
		}
		t.fields = append(t.fields, f)
	}
	return t
}

func (g *propGen) objectType(depth int) string {
	return g.objectText(g.object(depth), "")
}

func (g *propGen) objectText(t *ptype, tag string) string {
	var parts []string
	for _, f := range t.fields[t.inherit:] {
		if f.name == tag {
			parts = append(parts, fmt.Sprintf("%s: {const: %s}", tag, t.tagVal))
			continue
		}
		n := f.name
		if f.optional {
			n += "?"
		}
		if f.t.bounded {
			parts = append(parts, fmt.Sprintf("%s: {type: %s, minimum: %d, maximum: %d, nullable: %v, since: \"2.0\", proposed: true}", n, f.t.kind, f.t.lo, f.t.hi, f.t.nullable))
			continue
		}
		parts = append(parts, n+": "+quote(g.write(f.t)))
	}
	text := "{fields: {" + strings.Join(parts, ", ") + "}"
	if t.extends != "" {
		text += ", extends: " + t.extends
	}
	if t.extra != nil {
		text += ", additional: " + quote(g.write(t.extra))
	}
	return text + "}"
}

// ref returns a random type to use in a field, an item, a result.
func (g *propGen) ref(depth int) *ptype {
	var t *ptype
	switch k := g.r.Intn(10); {
	case k < 4 || depth > 2:
		t = &ptype{kind: []string{"string", "integer", "number", "boolean", "any", "int32", "uint32"}[g.r.Intn(7)]}
	case k < 7 && len(g.order) > 0:
		n := g.order[g.r.Intn(len(g.order))]
		t = &ptype{kind: "named", name: n}
	case k < 8:
		t = &ptype{kind: "array", elem: g.ref(depth + 1)}
	case k < 9:
		t = &ptype{kind: "map", elem: g.ref(depth + 1)}
	default:
		t = &ptype{kind: "string"}
	}
	if g.r.Intn(5) == 0 && t.kind != "any" && !g.resolve(t).nullable && !isUnion(g.resolve(t)) {
		t.nullable = true
	}
	return t
}

func isUnion(t *ptype) bool { return t.kind == "union" || t.kind == "dunion" }

func (g *propGen) resolve(t *ptype) *ptype {
	if t.kind == "named" {
		return g.named[t.name]
	}
	return t
}

// write renders t in compact syntax.
func (g *propGen) write(t *ptype) string {
	var s string
	switch t.kind {
	case "named":
		s = t.name
	case "array":
		s = "[]" + g.paren(t.elem)
	case "map":
		key := "string"
		if t.key != nil {
			key = g.write(t.key)
		}
		s = "map<" + key + ", " + g.write(t.elem) + ">"
	default:
		s = t.kind
	}
	if t.nullable {
		if t.kind == "array" {
			s = "(" + s + ")"
		}
		s += "?"
	}
	return s
}

func (g *propGen) paren(t *ptype) string {
	s := g.write(t)
	if t.nullable {
		return "(" + s + ")"
	}
	return s
}

// value returns a random valid JSON value of t.
func (g *propGen) value(t *ptype, depth int) any {
	if t.nullable && g.r.Intn(3) == 0 {
		return nil
	}
	switch t.kind {
	case "named":
		n := g.named[t.name]
		if n.nullable && g.r.Intn(3) == 0 {
			return nil
		}
		c := *n
		c.nullable = false
		return g.value(&c, depth)
	case "string":
		return []string{"", "x", "héllo \"quoted\" \\ \u2028", "<&>", strings.Repeat("long", 20)}[g.r.Intn(5)]
	case "integer", "int32", "uint32", "number":
		return g.number(t)
	case "boolean":
		return g.r.Intn(2) == 0
	case "any":
		return []any{"s", 1.5, true, []any{1.0, "a"}, map[string]any{"k": []any{}}}[g.r.Intn(5)]
	case "array":
		out := []any{}
		for range g.r.Intn(3) {
			out = append(out, g.value(t.elem, depth+1))
		}
		return out
	case "map":
		out := map[string]any{}
		for i := range g.r.Intn(3) {
			out[g.keyValue(t.key, i)] = g.value(t.elem, depth+1)
		}
		return out
	case "tuple":
		out := []any{}
		for _, it := range t.items {
			out = append(out, g.value(it, depth+1))
		}
		return out
	case "enum", "intenum":
		v := t.values[g.r.Intn(len(t.values))]
		if t.open && g.r.Intn(3) == 0 {
			// a value the enum does not list, kept as received
			v = map[string]string{"": "-1099511627776", "int32": "-2147483648", "uint32": "4294967295"}[t.base]
			if t.kind == "enum" {
				v = "unlisted value"
			}
		}
		if t.kind == "intenum" {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
		return v
	case "object":
		if t.position {
			return g.positional(t, depth)
		}
		out := map[string]any{}
		for _, f := range t.fields {
			if f.t.kind == "const" {
				out[f.name] = t.tagVal
				continue
			}
			if f.optional {
				if g.r.Intn(2) == 0 {
					continue
				}
				// an optional field is present with a value, or null when
				// its type allows it, which must come back null; an empty
				// list or map must come back present (omitzero)
				if f.t.nullable && f.t.kind != "any" && g.r.Intn(3) == 0 {
					out[f.name] = nil
					continue
				}
				c := *f.t
				c.nullable = false
				v := g.value(&c, depth+1)
				if v == nil || plainZero(v) {
					continue
				}
				out[f.name] = v
				continue
			}
			out[f.name] = g.value(f.t, depth+1)
		}
		if t.extra != nil {
			for i := range g.r.Intn(3) {
				out[fmt.Sprintf("extra %d", i)] = g.value(t.extra, depth+1)
			}
		}
		return out
	case "union", "dunion":
		return g.value(t.variants[g.r.Intn(len(t.variants))], depth)
	}
	panic("unknown kind " + t.kind)
}

// propertyRows returns the reliability table's row about the property test,
// counted for the default seed.
func propertyRows() []string {
	types, values := 0, 0
	kinds := map[string]bool{}
	for i := range PropIDLs {
		_, samples := PropIDL(PropDefaultSeed, i)
		types += len(samples)
		for _, s := range samples {
			values += len(s.Values)
			kinds[strings.TrimRight(s.Type, "0123456789")] = true
		}
	}
	var ks []string
	for k := range kinds {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return []string{fmt.Sprintf("| property: random valid IDLs | %d random IDLs (seed %d; `-seed N` for others) with %d named types (%s), objects with optional, nullable (absent, null or set), `extends` and `additional` members, objects sent by position, tuples, closed and open enums of strings and of integer, int32 and uint32 bases, int32 and uint32 members, members with minimum and maximum, since and proposed, arrays, maps with string, integer and enum keys, nullable types, unions by JSON kind, by members, by the first item of arrays and by discriminator, methods in both directions, notifications and errors, both framings | each is accepted by `idl.Parse`; their generated Go passes `go vet` and builds in one module; %d JSON values (%d of each named type) unmarshal into the generated types and marshal back to semantically equal JSON; an empty optional list or map comes back present (an optional \"\" or false is not sent: Go holds such members as plain values, whose zero value encodes as absent) | `TestPropertyRandomIDLs` (package idl_test) |",
		PropIDLs, PropDefaultSeed, types, strings.Join(ks, ", "), values, PropValues)}
}

// plainZero reports whether v is "" or false: the value of an optional
// member that the Go generator holds as a plain value and encodes as
// absent (see gen/golang/README.md, Optional members), so it cannot come
// back as sent.
func plainZero(v any) bool {
	return v == "" || v == false
}
