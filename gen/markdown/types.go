package markdown

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rpcgen/rpcgen/idl"
)

// typeExpr writes t compactly, linking named types to their sections:
// "string", "[Item](#item)[]", "map<string, number>", "string | null",
// "`\"idle\"`".
func (d *doc) typeExpr(t *idl.Type) string {
	if t == nil {
		return "null"
	}
	var s string
	switch t.Kind {
	case idl.KindRef:
		s = "unknown"
		if t.Ref != nil {
			s = d.typeLink(t.Ref)
		}
	case idl.KindArray:
		s = d.wrapExpr(t.Elem) + "[]"
	case idl.KindTuple:
		var parts []string
		for _, it := range t.Items {
			parts = append(parts, d.typeExpr(it))
		}
		s = "[" + strings.Join(parts, ", ") + "]"
	case idl.KindMap:
		key := "string"
		if t.Key != nil {
			key = d.typeExpr(t.Key)
		}
		s = "map<" + key + ", " + d.typeExpr(t.Elem) + ">"
	case idl.KindEnum:
		var parts []string
		for _, v := range t.Values {
			parts = append(parts, code(enumJSON(v)))
		}
		s = strings.Join(parts, " | ")
	case idl.KindUnion:
		var parts []string
		for _, v := range t.Variants {
			parts = append(parts, d.wrapExpr(v.Type))
		}
		s = strings.Join(parts, " | ")
	default:
		s = t.Kind.String()
		if t.Kind == idl.KindInteger {
			s = t.Width.String()
		}
		if t.Const != nil {
			s = d.jsonCode(t.Const)
		}
	}
	if t.Nullable {
		s += " | null"
	}
	return s
}

// wrapExpr is typeExpr in parentheses when the result holds a "|".
func (d *doc) wrapExpr(t *idl.Type) string {
	s := d.typeExpr(t)
	if strings.Contains(s, " | ") {
		return "(" + s + ")"
	}
	return s
}

// enumJSON returns the JSON text of an enum value.
func enumJSON(v *idl.EnumValue) string {
	if s, ok := v.Value.(string); ok {
		return jsonString(s)
	}
	return fmt.Sprint(v.Value)
}

// objectOf returns the object type t stands for, following references,
// and the named type that holds it; nil when t is not an object.
func objectOf(t *idl.Type) (*idl.TypeDef, *idl.Type) {
	var def *idl.TypeDef
	for range 64 {
		if t == nil {
			return nil, nil
		}
		if t.Kind != idl.KindRef {
			break
		}
		def, t = t.Ref, t.Ref.Type
	}
	if t == nil || t.Kind != idl.KindObject {
		return nil, nil
	}
	return def, t
}

// writeFields writes the fields table of obj, the object type of def.
func (d *doc) writeFields(def *idl.TypeDef, obj *idl.Type) {
	var rows [][]string
	for _, f := range obj.Fields {
		req := "yes"
		if f.Optional {
			req = "no"
		}
		rows = append(rows, []string{code(f.Name), d.typeExpr(f.Type), req, d.fieldDesc(def, f)})
	}
	if a := obj.Additional; a != nil {
		what := "Members not listed here are kept as sent."
		if len(obj.Fields) == 0 {
			what = "Every member is kept as sent."
		}
		rows = append(rows, []string{"*any other name*", d.typeExpr(a), "no", what})
	}
	d.table([]string{"field", "type", "required", "description"}, rows)
}

// fieldDesc returns the description cell of a field: its doc, where it
// comes from, its format, default and example.
func (d *doc) fieldDesc(def *idl.TypeDef, f *idl.Field) string {
	var parts []string
	if f.Deprecated != "" {
		parts = append(parts, "**Deprecated:** "+sentence(inline(f.Deprecated)))
	}
	if f.Doc != "" {
		parts = append(parts, sentence(inline(f.Doc)))
	}
	if def != nil && f.DeclaredIn != nil && f.DeclaredIn != def {
		parts = append(parts, "From "+d.typeLink(f.DeclaredIn)+".")
	}
	if f.Type != nil && f.Type.Format != "" {
		parts = append(parts, "Format: "+code(string(f.Type.Format))+".")
	}
	if r := rangeText(f.Type); r != "" {
		parts = append(parts, r)
	} else if f.Type != nil && f.Type.Kind == idl.KindArray {
		if r := rangeText(f.Type.Elem); r != "" {
			parts = append(parts, "Items: "+strings.ToLower(r[:1])+r[1:])
		}
	}
	if f.Default != nil {
		parts = append(parts, "Default: "+d.jsonCode(f.Default)+".")
	}
	if f.Example != nil {
		parts = append(parts, "Example: "+d.jsonCode(f.Example)+".")
	}
	if m := metaText(f.Since, f.Proposed); m != "" {
		parts = append(parts, m)
	}
	return strings.Join(parts, " ")
}

// writeTypes writes one section per named type.
func (d *doc) writeTypes() {
	d.heading(secTypes)
	if len(d.p.Types) == 0 {
		d.para("The protocol declares no named types.")
		return
	}
	d.para("Every named type, including those written inline (their names come from where they appear). Fields are required unless marked otherwise; a type ending in `| null` also accepts `null`.")
	d.writeTypeRules()
	for _, def := range d.p.Types {
		d.writeType(def)
	}
}

// writeTypeRules states once the rules that the sections of several types
// rely on, each only when some type needs it.
func (d *doc) writeTypeRules() {
	var extends, open, byKind, byMembers, byItems bool
	for _, def := range d.p.Types {
		t := def.Type
		switch {
		case t.Kind == idl.KindObject && len(t.Extends) > 0:
			extends = true
		case t.Kind == idl.KindEnum && t.Open:
			open = true
		case t.Kind == idl.KindUnion && t.Discriminator == "":
			m, i := idl.ByMembers(t), idl.ByItems(t)
			byKind, byMembers, byItems = byKind || m || i, byMembers || m, byItems || i
		}
	}
	var rules []string
	if extends {
		rules = append(rules, "- An object type that extends others holds their fields first, then its own.")
	}
	if open {
		rules = append(rules, "- An enum that accepts any other value passes values it does not list through unchanged.")
	}
	if byKind {
		rules = append(rules, "- A union without a discriminating field is told apart by the JSON kind of the value: string, number, boolean, object, array or null.")
	}
	if byMembers {
		rules = append(rules, "- Where several variants are objects, an object is the object variant whose required members (listed) it holds, with their listed values (one of them, where several are listed), and whose declared members leave the fewest of its members unexplained; of those, the one listed first.")
	}
	if byItems {
		rules = append(rules, "- Where several variants are arrays, an array is the array variant whose item type its first item would be, told apart as the variants of one union are: by JSON kind, and an object by the item type whose required members it holds and whose declared members leave the fewest of its members unexplained (of those, the one listed first); every item must then be of that variant. An empty array is the first array variant.")
	}
	if len(rules) > 0 {
		d.para(strings.Join(rules, "\n"))
	}
}

// writeType writes the section of one named type.
func (d *doc) writeType(def *idl.TypeDef) {
	d.heading(def)
	d.deprecated(def.Deprecated)
	d.meta(def.Since, def.Proposed)
	d.para(block(def.Doc))
	if m, where := d.onlyPayloadOf(def); m != nil {
		d.paraf("The %s of %s, described in its section.", where, d.methodLink(m))
		return
	}
	t := def.Type
	switch t.Kind {
	case idl.KindObject:
		d.writeObject(def, t)
	case idl.KindEnum:
		d.writeEnum(t)
	case idl.KindUnion:
		d.writeUnion(t)
	default:
		s := "**Type:** " + d.typeExpr(t)
		if t.Format != "" {
			s += ", format " + code(string(t.Format))
		}
		if r := rangeText(t); r != "" {
			s += ", " + strings.ToLower(r[:1]) + strings.TrimSuffix(r[1:], ".")
		}
		d.para(s + ".")
	}
	if t.Nullable && (t.Kind == idl.KindObject || t.Kind == idl.KindEnum || t.Kind == idl.KindUnion) {
		d.para("May also be `null`.")
	}
	if def.Example != nil {
		d.para("**Example:**")
		d.jsonBlock(def.Example.JSON)
	}
	if u := d.usedBy(def); u != "" {
		d.para("**Used by:** " + u + ".")
	}
}

// writeObject writes the body of an object type's section.
func (d *doc) writeObject(def *idl.TypeDef, t *idl.Type) {
	if len(t.Extends) > 0 {
		var ext []string
		for _, x := range t.Extends {
			ext = append(ext, d.typeLink(x))
		}
		d.para("Extends " + strings.Join(ext, ", ") + ".")
	}
	if len(t.Fields) == 0 && t.Additional == nil {
		d.para("An object with no members: `{}`.")
		return
	}
	if t.Positional {
		d.para("Sent as an array of these fields, in this order; the optional ones, last, are left out from the end when absent (`null` stands for an absent one followed by a present one):")
	} else {
		d.para("An object:")
	}
	d.writeFields(def, t)
}

// writeEnum writes the values table of an enum.
func (d *doc) writeEnum(t *idl.Type) {
	named := false
	for _, v := range t.Values {
		if fmt.Sprint(v.Value) != v.Name {
			named = true
		}
	}
	kind := "string"
	if t.EnumBase == idl.KindInteger {
		kind = t.Width.String()
	}
	if t.Open {
		d.paraf("One of these %s values, or any other:", kind)
	} else {
		d.paraf("One of these %s values:", kind)
	}
	header := []string{"value", "description"}
	if named {
		header = []string{"value", "name", "description"}
	}
	var rows [][]string
	for _, v := range t.Values {
		desc := inline(v.Doc)
		if v.Deprecated != "" {
			desc = strings.TrimSpace("**Deprecated:** " + sentence(inline(v.Deprecated)) + " " + desc)
		}
		if m := metaText(v.Since, v.Proposed); m != "" {
			desc = strings.TrimSpace(desc + " " + m)
		}
		row := []string{code(enumJSON(v))}
		if named {
			row = append(row, escape(v.Name))
		}
		rows = append(rows, append(row, desc))
	}
	d.table(header, rows)
}

// writeUnion writes the variants table of a union.
func (d *doc) writeUnion(t *idl.Type) {
	var rows [][]string
	if t.Discriminator != "" {
		d.paraf("One of these objects, told apart by their %s field:", code(t.Discriminator))
		for _, v := range t.Variants {
			rows = append(rows, []string{code(jsonString(v.Tag)), d.typeExpr(v.Type)})
		}
		d.table([]string{code(t.Discriminator), "variant"}, rows)
		return
	}
	byMembers, byItems := idl.ByMembers(t), idl.ByItems(t)
	arrays := arrayCells(t)
	last := len(t.Variants) - 1
	catchAll := false
	for i, v := range t.Variants {
		kind := jsonKind(v.Type)
		if byMembers || byItems {
			// The kinds of the variant's choices, objects with the
			// members they require.
			var kinds []string
			for _, c := range idl.Choices(&idl.Type{Kind: idl.KindUnion, Variants: []*idl.Variant{v}}) {
				k := jsonKind(c.Type)
				switch {
				case arrays[c.Type] != "":
					k = arrays[c.Type]
				case c.Object != nil && byMembers:
					k = objectWith(c.Object)
				case i == last && k == "any":
					k = "any other value"
				}
				if !slices.Contains(kinds, k) {
					kinds = append(kinds, k)
				}
			}
			kind = strings.Join(kinds, ", or ")
		}
		if i == last && (kind == "any" || strings.HasSuffix(kind, "any other value")) {
			if kind == "any" {
				kind = "any other value"
			}
			catchAll = true
		}
		rows = append(rows, []string{kind, d.typeExpr(v.Type)})
	}
	if byMembers || byItems {
		d.para("One of these, told apart as " + d.link("Types", secTypes) + " describes:")
		d.table([]string{"JSON value", "variant"}, rows)
	} else {
		d.para("One of these, told apart by the JSON kind of the value:")
		d.table([]string{"JSON kind", "variant"}, rows)
	}
	if catchAll {
		d.para("A value that no other variant takes goes to the last variant.")
	}
}

// arrayCells describes, when the union t tells its array choices apart by
// their first item, each array choice by the items that choose it, as in
// "empty array, or array whose first item is a string", keyed by the
// choice's type; else it returns nil.
func arrayCells(t *idl.Type) map[*idl.Type]string {
	if !idl.ByItems(t) {
		return nil
	}
	arrays := idl.ArrayChoices(t)
	union := idl.ItemUnion(t)
	byMembers := idl.ByMembers(union)
	items := make([][]string, len(arrays))
	for _, c := range idl.Choices(union) {
		k := jsonKind(c.Type)
		switch {
		case c.CatchAll:
			k = "any other value"
		case c.Object != nil && byMembers:
			k = objectWith(c.Object)
		}
		if !slices.Contains(items[c.Variant], k) {
			items[c.Variant] = append(items[c.Variant], k)
		}
	}
	out := map[*idl.Type]string{}
	for i, a := range arrays {
		cell := "array whose first item is " + strings.Join(items[i], " or ")
		if i == 0 {
			cell = "empty array, or " + cell
		}
		out[a.Type] = cell
	}
	return out
}

// objectWith describes an object variant by the members it requires, with
// their constants or closed enums: "object with `kind` = `"end"` and
// `label`", "object with `type` in `"number"`, `"integer"`".
func objectWith(o *idl.Type) string {
	var members []string
	for _, f := range o.Fields {
		if f.Optional {
			continue
		}
		m := code(f.Name)
		if lits := idl.FieldLiterals(f); len(lits) == 1 {
			m += " = " + code(string(lits[0]))
		} else if lits != nil {
			var alts []string
			for _, l := range lits {
				alts = append(alts, code(string(l)))
			}
			m += " in " + strings.Join(alts, ", ")
		}
		members = append(members, m)
	}
	if len(members) == 0 {
		return "object"
	}
	return "object with " + joinAnd(members)
}

// joinAnd joins items as "a, b and c".
func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// jsonKind returns the kind of JSON value of type t: "string", "number",
// "boolean", "array" or "object".
func jsonKind(t *idl.Type) string {
	u := t.Underlying()
	if u == nil {
		return "any"
	}
	switch u.Kind {
	case idl.KindString:
		return "string"
	case idl.KindInteger, idl.KindNumber:
		return "number"
	case idl.KindBoolean:
		return "boolean"
	case idl.KindArray:
		return "array"
	case idl.KindTuple:
		return "array"
	case idl.KindObject:
		if u.Positional {
			return "array"
		}
		return "object"
	case idl.KindMap:
		return "object"
	case idl.KindEnum:
		if u.EnumBase == idl.KindInteger {
			return "number"
		}
		return "string"
	case idl.KindUnion:
		if u.Discriminator != "" {
			return "object"
		}
		var kinds []string
		for _, c := range idl.Choices(u) {
			k := jsonKind(c.Type)
			if c.CatchAll {
				k = "any other value"
			}
			if !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
		return strings.Join(kinds, " or ")
	}
	return "any"
}

// rangeText describes the bounds of an integer or number type, as in
// "From `0` to `1`.", or returns "".
func rangeText(t *idl.Type) string {
	if t == nil || t.Kind != idl.KindInteger && t.Kind != idl.KindNumber {
		return ""
	}
	lo, hi := t.Minimum, t.Maximum
	switch {
	case lo != nil && hi != nil:
		return fmt.Sprintf("From %s to %s.", code(string(lo.JSON)), code(string(hi.JSON)))
	case lo != nil:
		return fmt.Sprintf("At least %s.", code(string(lo.JSON)))
	case hi != nil:
		return fmt.Sprintf("At most %s.", code(string(hi.JSON)))
	}
	return ""
}
