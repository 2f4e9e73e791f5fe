package idl

import "fmt"

// The random map keys and positional values of the property test's IDLs.

// mapKey returns a random key type for a map: nil (strings), integer, or
// a named enum that is not nullable.
func (g *propGen) mapKey() *ptype {
	switch g.r.Intn(3) {
	case 0:
		return &ptype{kind: "integer"}
	case 1:
		var enums []string
		for _, n := range g.order {
			if t := g.named[n]; (t.kind == "enum" || t.kind == "intenum") && !t.nullable {
				enums = append(enums, n)
			}
		}
		if len(enums) > 0 {
			return &ptype{kind: "named", name: enums[g.r.Intn(len(enums))]}
		}
	}
	return nil
}

// keyValue returns the i-th key of a random map whose keys have type k.
func (g *propGen) keyValue(k *ptype, i int) string {
	switch {
	case k == nil:
		return fmt.Sprintf("key %d", i)
	case k.kind == "integer":
		return []string{"0", "-3", "12", "9007199254740993"}[(i+g.r.Intn(4))%4]
	}
	return fmt.Sprint(g.value(k, 0))
}

// positional returns a random value of an object sent by position: its
// required fields, then some of its optional ones, in order.
func (g *propGen) positional(t *ptype, depth int) []any {
	out := []any{}
	for _, f := range t.fields {
		if f.optional && g.r.Intn(3) == 0 {
			break
		}
		v := g.value(f.t, depth+1)
		if f.optional && plainZero(v) {
			break
		}
		out = append(out, v)
	}
	return out
}
