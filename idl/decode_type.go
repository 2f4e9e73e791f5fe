package idl

import (
	"slices"
	"strings"
)

// specCtx is where a type is written.
type specCtx uint8

const (
	ctxNamed  specCtx = iota // the value of an entry of types:
	ctxInline                // params, result, error data, items, variants
	ctxField                 // the value of an object field
)

// typeKeys are the keys of a type in long form; fieldKeys the extra keys of
// a field.
var (
	typeKeys  = []string{"type", "doc", "deprecated", "example", "name", "nullable", "format", "const", "fields", "extends", "additional", "values", "discriminator", "variants", "items", "minimum", "maximum", "open", "base", "since", "proposed", "positional"}
	fieldKeys = []string{"optional", "required", "default", "go_name", "raw"}
)

// kindKeys maps keys that only apply to some kinds to those kinds.
var kindKeys = map[string][]Kind{
	"fields":        {KindObject},
	"extends":       {KindObject},
	"additional":    {KindObject},
	"values":        {KindEnum, KindMap},
	"discriminator": {KindUnion},
	"variants":      {KindUnion},
	"items":         {KindArray, KindTuple},
	"positional":    {KindObject},
	"format":        {KindString},
	"const":         {KindString, KindInteger, KindNumber, KindBoolean},
	"minimum":       {KindInteger, KindNumber},
	"maximum":       {KindInteger, KindNumber},
	"open":          {KindEnum},
	"base":          {KindEnum},
}

// typeSpec decodes a type written as a string (compact form), a list (an
// enum of strings) or a mapping (long form). It returns nil after
// reporting an error.
func (d *decoder) typeSpec(n *node, ctx specCtx) *tspec {
	switch n.kind {
	case nString:
		return d.compactType(n)
	case nSeq:
		return d.enumShorthand(n)
	case nMap:
		o, ok := d.keys(n, "type", typeKeys...)
		if !ok {
			return nil
		}
		return d.typeMap(o, ctx)
	case nNull:
		if n.bad {
			return nil
		}
		d.errs.add(n.pos, "missing type; write a type such as string, a type name, or a mapping with fields:")
	case nInt, nBool:
		d.errs.add(n.pos, "%s is not a type; for the constant %s, quote it (\"%s\") or write {const: %s}", n.raw, n.raw, n.raw, n.raw)
	default:
		d.errs.add(n.pos, "%s is not a type; write a type such as string, integer or a type name", describeNode(n))
	}
	return nil
}

// enumShorthand decodes a list of strings used as a type: an enum.
func (d *decoder) enumShorthand(n *node) *tspec {
	t := &tspec{pos: n.pos, kind: KindEnum}
	for _, it := range n.items {
		if it.kind != nString {
			d.errs.add(it.pos, "a list used as a type is an enum of strings, and %s is not a string; quote it, or use type: enum with values: for integer enums", describeNode(it))
			continue
		}
		t.values = append(t.values, &vspec{value: it.str, pos: it.pos})
	}
	if len(n.items) == 0 {
		d.errs.add(n.pos, "an enum needs at least one value; list them, as in [idle, busy]")
	}
	return t
}

// typeMap decodes the long form of a type from its checked keys.
func (d *decoder) typeMap(o keyed, ctx specCtx) *tspec {
	t := &tspec{pos: o.n.pos}
	if tv := o.get("type"); tv != nil {
		if tv.kind != nString {
			d.errs.add(tv.pos, "type must be a string such as object, enum, union, array, map or a type expression, not a %s", tv.kind)
			return nil
		}
		t.pos = tv.pos
		switch tv.str {
		case "object":
			t.kind = KindObject
		case "enum":
			t.kind = KindEnum
		case "union":
			t.kind = KindUnion
		case "array":
			t.kind = KindArray
		case "map":
			t.kind = KindMap
		case "tuple":
			t.kind = KindTuple
		default:
			if t = d.compactType(tv); t == nil {
				return nil
			}
		}
	} else if t.kind = d.inferKind(o); t.kind == KindInvalid {
		return nil
	}
	if !d.kindKeysApply(o, t) {
		return nil
	}
	switch t.kind {
	case KindObject:
		d.objectKeys(o, t)
	case KindEnum:
		if o.has("values") {
			t.values = d.enumValues(o.get("values"))
		} else if t.values == nil {
			d.errs.add(t.pos, "type: enum needs values:, a list of its values")
		}
		d.enumKeys(o, t)
	case KindUnion:
		if o.has("discriminator") {
			t.disc = d.name(o.get("discriminator"), "discriminator")
		}
		if v := o.get("variants"); v != nil {
			t.variants = d.variants(v)
		} else if t.variants == nil {
			d.errs.add(t.pos, "type: union needs variants:, a list of its variant types")
		}
	case KindTuple:
		t.items = d.tupleItems(o.get("items"), t.pos)
	case KindArray, KindMap:
		key := map[Kind]string{KindArray: "items", KindMap: "values"}[t.kind]
		if v := o.get(key); v != nil {
			t.elem = d.typeSpec(v, ctxInline)
		} else if t.elem == nil {
			d.errs.add(t.pos, "type: %s needs %s:, the type of its %s", t.kind, key, key)
		}
	}
	if v := o.get("format"); v != nil {
		t.format, _ = d.str(v, "format")
		t.formatPos = v.pos
	}
	t.constv = orNode(o.get("const"), t.constv)
	t.minimum, t.maximum = o.get("minimum"), o.get("maximum")
	if v := o.get("nullable"); v != nil {
		nb := d.boolean(v, "nullable")
		if t.nullable && !nb {
			d.errs.add(v.pos, "nullable: false contradicts the ? or | null in the type; remove one")
		}
		t.nullable = t.nullable || nb
	}
	if v := o.get("name"); v != nil {
		if ctx == ctxNamed {
			d.errs.add(o.keyPos("name"), "name: only applies to inline types; a type under types: is named by its key")
		} else {
			t.name = d.name(v, "name")
		}
	}
	if ctx != ctxField {
		t.doc = d.optStr(o, "doc", "doc")
		t.deprec = d.optStr(o, "deprecated", "deprecated")
		t.example = o.get("example")
		t.metaSpec = d.meta(o)
	}
	return t
}

func orNode(a, b *node) *node {
	if a != nil {
		return a
	}
	return b
}

// inferKind guesses the kind of a long-form type without type:.
func (d *decoder) inferKind(o keyed) Kind {
	switch {
	case o.has("fields") || o.has("extends") || o.has("additional") || o.has("positional"):
		return KindObject
	case o.has("variants") || o.has("discriminator"):
		return KindUnion
	case o.has("items"):
		return KindArray
	case o.has("const"):
		switch o.get("const").kind {
		case nString:
			return KindString
		case nInt:
			return KindInteger
		case nFloat:
			return KindNumber
		case nBool:
			return KindBoolean
		}
		d.errs.add(o.get("const").pos, "const must be a string, number or boolean, not %s", describeNode(o.get("const")))
		return KindInvalid
	}
	for k := range o.m {
		if slices.Contains(typeKeys, k) && k != "doc" && k != "deprecated" && k != "example" && k != "name" && k != "since" && k != "proposed" {
			d.errs.add(o.n.pos, "missing type:; add type: with object, enum, union, array, map or a type expression")
			return KindInvalid
		}
	}
	return KindObject // {} is an object without fields
}

// kindKeysApply reports keys that do not apply to t's kind.
func (d *decoder) kindKeysApply(o keyed, t *tspec) bool {
	ok := true
	for _, k := range typeKeys {
		kinds, limited := kindKeys[k]
		if !limited || !o.has(k) || slices.Contains(kinds, t.kind) {
			continue
		}
		var names []string
		for _, kk := range kinds {
			names = append(names, kk.String())
		}
		d.errs.add(o.keyPos(k), "key %s does not apply to type %s; it is for type %s", k, t.kind, orList(names))
		ok = false
	}
	return ok
}

// objectKeys decodes fields:, extends: and additional: of an object type.
func (d *decoder) objectKeys(o keyed, t *tspec) {
	t.extends = d.stringList(o.get("extends"), "extends")
	if v := o.get("positional"); v != nil {
		t.positional = d.boolean(v, "positional")
	}
	if v := o.get("additional"); v != nil {
		t.additional = d.typeSpec(v, ctxInline)
	}
	if v := o.get("fields"); v != nil {
		for _, e := range d.entries(v, "fields") {
			if f := d.field(e); f != nil {
				t.fields = append(t.fields, f)
			}
		}
	}
}

// field decodes one field of an object: "name: type", "name?: type" for
// an optional field, or "name: {type: ..., doc: ...}".
func (d *decoder) field(e entry) *fspec {
	f := &fspec{name: nameRef{keyName(e.key), e.key.pos}}
	if strings.HasSuffix(f.name.name, "?") {
		f.name.name = strings.TrimSuffix(f.name.name, "?")
		f.optional = true
	}
	if f.name.name == "" {
		d.errs.add(f.name.pos, "field name is empty; give the field its JSON name")
		return nil
	}
	if e.val.kind == nNull {
		d.errs.add(e.val.pos, "field %q has no type; write %s: string or another type", f.name.name, f.name.name)
		return nil
	}
	if e.val.kind != nMap {
		f.t = d.typeSpec(e.val, ctxField)
		return f
	}
	o, ok := d.keys(e.val, "field "+f.name.name, append(slices.Clone(typeKeys), fieldKeys...)...)
	if !ok {
		return nil
	}
	f.doc = d.optStr(o, "doc", "doc")
	f.deprec = d.optStr(o, "deprecated", "deprecated")
	f.example = o.get("example")
	f.def = o.get("default")
	f.metaSpec = d.meta(o)
	if v := o.get("go_name"); v != nil {
		f.goName = d.name(v, "go_name")
	}
	if v := o.get("raw"); v != nil {
		f.raw = d.boolean(v, "raw")
		f.rawPos = v.pos
	}
	for _, k := range []string{"optional", "required"} {
		v := o.get(k)
		if v == nil {
			continue
		}
		opt := d.boolean(v, k) == (k == "optional")
		if f.optional && !opt && strings.HasSuffix(keyName(e.key), "?") {
			d.errs.add(v.pos, "%s: %v contradicts the ? after the field name; remove one", k, v.b)
		}
		f.optional = opt
	}
	if o.has("optional") && o.has("required") {
		d.errs.add(o.keyPos("required"), "write either optional: or required:, not both")
	}
	f.t = d.typeMap(o, ctxField)
	if f.t == nil {
		return nil
	}
	return f
}

// tupleItems decodes the items: list of a tuple, the type of each
// position.
func (d *decoder) tupleItems(n *node, pos Pos) []*tspec {
	if n == nil || n.kind != nSeq || len(n.items) == 0 {
		if n != nil {
			pos = n.pos
		}
		d.errs.add(pos, "type: tuple needs items:, a non-empty list of the types of its positions, as in items: [integer, string]")
		return nil
	}
	var out []*tspec
	for _, it := range n.items {
		t := d.typeSpec(it, ctxInline)
		if t == nil {
			return nil
		}
		out = append(out, t)
	}
	return out
}

// enumValues decodes the values: list of an enum.
func (d *decoder) enumValues(n *node) []*vspec {
	if n.kind != nSeq {
		d.errs.add(n.pos, "values must be a list, as in [idle, busy]")
		return nil
	}
	if len(n.items) == 0 {
		d.errs.add(n.pos, "an enum needs at least one value; list them, as in [idle, busy]")
	}
	var out []*vspec
	for _, it := range n.items {
		v := &vspec{pos: it.pos}
		val := it
		if it.kind == nMap {
			o, _ := d.keys(it, "enum value", "value", "name", "doc", "deprecated", "since", "proposed")
			if val = o.get("value"); val == nil {
				d.errs.add(it.pos, "enum value has no value:; add value: with the string or integer sent on the wire")
				continue
			}
			if nv := o.get("name"); nv != nil {
				v.name = d.name(nv, "name")
			}
			v.doc = d.optStr(o, "doc", "doc")
			v.deprec = d.optStr(o, "deprecated", "deprecated")
			v.metaSpec = d.meta(o)
		}
		switch {
		case val.kind == nString:
			v.value = val.str
		case val.kind == nInt && val.intOK:
			v.value = val.i
		case val.kind == nInt:
			d.errs.add(val.pos, "enum value %s", outOfRange(val))
			continue
		default:
			d.errs.add(val.pos, "enum value must be a string or an integer, not %s", describeNode(val))
			continue
		}
		v.pos = val.pos
		out = append(out, v)
	}
	return out
}

// variants decodes the variants: list of a union.
func (d *decoder) variants(n *node) []*tspec {
	if n.kind != nSeq {
		d.errs.add(n.pos, "variants must be a list of types")
		return nil
	}
	if len(n.items) == 0 {
		d.errs.add(n.pos, "a union needs at least two variants; list their types")
	}
	var out []*tspec
	for _, it := range n.items {
		if t := d.typeSpec(it, ctxInline); t != nil {
			out = append(out, t)
		}
	}
	return out
}

// meta decodes the since: and proposed: keys of o.
func (d *decoder) meta(o keyed) metaSpec {
	var m metaSpec
	if v := o.get("since"); v != nil {
		m.since, _ = d.str(v, "since")
		if m.since == "" && v.kind == nString {
			d.errs.add(v.pos, "since is empty; write the protocol version that added it, as in since: \"3.16.0\", or remove it")
		}
	}
	if v := o.get("proposed"); v != nil {
		m.proposed = d.boolean(v, "proposed")
	}
	return m
}

// enumKeys decodes open: and base: of an enum.
func (d *decoder) enumKeys(o keyed, t *tspec) {
	if v := o.get("open"); v != nil {
		t.open = d.boolean(v, "open")
	}
	v := o.get("base")
	if v == nil {
		return
	}
	t.base = d.oneOf(v, "base", "string", "integer", "int32", "uint32")
}
