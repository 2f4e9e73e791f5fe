package golang

import (
	"fmt"
	"strings"

	"github.com/rpcgen/rpcgen/idl"
)

// typeDoc returns the doc comment of a named type.
func (g *generator) typeDoc(def *idl.TypeDef) *comment {
	c := doc(lead(def.GoName, g.typeSentence(def), def.Doc, def.Type.Kind == idl.KindEnum))
	if o := g.originDoc(def); o != "" && strings.TrimSpace(def.Doc) != "" {
		// The doc leads; where the type comes from follows.
		if rest, ok := strings.CutPrefix(o, "are "); ok {
			o = "holds " + rest
		}
		c.add("It " + o + ".")
	}
	if k := def.Type.Kind; def.Type.Nullable && (k == idl.KindObject || k == idl.KindEnum || k == idl.KindUnion) {
		c.add("It may also be null: members of this type are pointers.")
	}
	if def.Type.Kind == idl.KindEnum && def.Type.Open {
		c.add("Other values are accepted too, and kept: the values below are the known ones.")
	}
	if def.Type.Positional {
		c.add("It is sent as a JSON array of its members in this order; optional members absent at the end are left out.")
	}
	return c.add(metaText(def.Since, def.Proposed)).deprecated(def.Deprecated)
}

// originDoc says where an inline type comes from, "is the task member of
// [Request]", the type that holds it written as a doc link; "" for a type
// declared by name.
func (g *generator) originDoc(def *idl.TypeDef) string {
	o := g.origins[def]
	i := strings.LastIndexByte(o, ' ')
	if i < 0 {
		return o
	}
	for _, t := range g.p.Types {
		if t.GoName == o[i+1:] {
			return o[:i+1] + "[" + t.GoName + "]"
		}
	}
	return o
}

// typeSentence is the sentence a type's doc starts with when the IDL has
// none of its own.
func (g *generator) typeSentence(def *idl.TypeDef) string {
	name := def.GoName
	if o := g.originDoc(def); o != "" {
		return name + " " + o + "."
	}
	t := def.Type
	if u := g.useDoc(def); u != "" && t.Kind == idl.KindObject {
		return name + " " + u + "."
	}
	switch t.Kind {
	case idl.KindObject:
		var members []string
		for _, f := range t.Fields {
			members = append(members, f.Name)
		}
		switch {
		case len(members) == 0 && t.Additional != nil:
			return name + " is an object whose members are all kept in Extra."
		case len(members) == 0:
			return name + " is an empty object."
		case len(members) == 1:
			return fmt.Sprintf("%s is an object with the member %s.", name, members[0])
		case len(members) > 6:
			return fmt.Sprintf("%s is an object with %d members.", name, len(members))
		}
		return fmt.Sprintf("%s is an object with the members %s.", name, andList(members))
	case idl.KindEnum:
		if len(t.Values) > 6 {
			return fmt.Sprintf("%s is one of the %d values below.", name, len(t.Values))
		}
		return fmt.Sprintf("%s is one of %s.", name, orList(enumValues(t)))
	case idl.KindUnion:
		return fmt.Sprintf("%s is one of %s.", name, orList(g.variants[def]))
	case idl.KindTuple:
		var items []string
		for _, it := range t.Items {
			items = append(items, it.String())
		}
		return fmt.Sprintf("%s is a JSON array of %d items: %s.", name, len(items), andList(items))
	}
	return name + " is " + article(t) + "."
}

// useDoc says which methods take the named type def as their params or
// give it as their result, "is the result of tools/list", when one to
// three do; "" otherwise.
func (g *generator) useDoc(def *idl.TypeDef) string {
	var params, results []string
	refers := func(t *idl.Type) bool { return t != nil && t.Kind == idl.KindRef && t.Ref == def }
	for _, m := range g.p.Methods {
		if refers(m.Params) || m.NotificationForm != nil && refers(m.NotificationForm.Params) {
			params = append(params, m.Name)
		}
		if refers(m.Result) {
			results = append(results, m.Name)
		}
	}
	if n := len(params) + len(results); n == 0 || n > 3 {
		return ""
	}
	var parts []string
	if len(params) > 0 {
		parts = append(parts, "the params of "+andList(params))
	}
	if len(results) > 0 {
		parts = append(parts, "the result of "+andList(results))
	}
	if len(results) == 0 {
		return "holds " + parts[0]
	}
	return "is " + andList(parts)
}

// article describes the values of a type that is not an object, enum or
// union, as in "a list of string".
func article(t *idl.Type) string {
	var s string
	switch t.Kind {
	case idl.KindString:
		s = "a string"
		if t.Format != "" {
			s += " in the " + string(t.Format) + " format"
		}
	case idl.KindInteger:
		s = "an integer"
		if t.Width != idl.Int64 {
			s = map[idl.IntWidth]string{idl.Int32: "an int32", idl.Uint32: "a uint32"}[t.Width]
		}
		if r := rangeText(t); r != "" {
			s += " (" + strings.ToLower(strings.TrimSuffix(r, ".")) + ")"
		}
	case idl.KindNumber:
		s = "a number"
		if r := rangeText(t); r != "" {
			s += " (" + strings.ToLower(strings.TrimSuffix(r, ".")) + ")"
		}
	case idl.KindBoolean:
		s = "a boolean"
	case idl.KindAny:
		return "any JSON value"
	case idl.KindArray:
		s = "a list of " + t.Elem.String()
	case idl.KindMap:
		key := "string"
		if t.Key != nil {
			key = t.Key.String()
		}
		s = "a map of " + key + " keys to " + t.Elem.String()
	case idl.KindRef:
		s = "another name for " + t.Ref.GoName
	}
	if t.Nullable {
		s += ", or null"
	}
	return s
}

// enumValues writes the values of an enum as JSON.
func enumValues(t *idl.Type) []string {
	var out []string
	for _, v := range t.Values {
		if s, ok := v.Value.(string); ok {
			out = append(out, fmt.Sprintf("%q", s))
		} else {
			out = append(out, fmt.Sprint(v.Value))
		}
	}
	return out
}

// fieldDoc returns the doc comment of a struct field.
func fieldDoc(f *idl.Field) *comment {
	text := sentence(f.Doc)
	var facts []string
	if f.Type.Const != nil {
		if f.Optional {
			facts = append(facts, fmt.Sprintf("When present, it is always %s.", f.Type.Const.JSON))
		} else {
			facts = append(facts, fmt.Sprintf("Always %s; MarshalJSON fills it in when left empty.", f.Type.Const.JSON))
		}
	}
	if f.Type.Format != "" {
		facts = append(facts, fmt.Sprintf("Format: %s.", f.Type.Format))
	}
	if r := rangeText(f.Type); r != "" {
		facts = append(facts, r)
	} else if f.Type.Kind == idl.KindArray {
		if r := rangeText(f.Type.Elem); r != "" {
			facts = append(facts, "Items: "+strings.ToLower(r[:1])+r[1:])
		}
	}
	if f.Default != nil {
		facts = append(facts, fmt.Sprintf("Defaults to %s when absent.", f.Default.JSON))
	}
	if m := metaText(f.Since, f.Proposed); m != "" {
		facts = append(facts, m)
	}
	c := doc(strings.TrimSpace(text + " " + strings.Join(facts, " ")))
	return c.deprecated(f.Deprecated)
}

// metaText says since which protocol version a declaration exists and
// whether it is only proposed, or returns "".
func metaText(since string, proposed bool) string {
	var parts []string
	if since != "" {
		parts = append(parts, sentence("Since "+since))
	}
	if proposed {
		parts = append(parts, "Proposed: not yet part of the protocol's stable release.")
	}
	return strings.Join(parts, " ")
}
