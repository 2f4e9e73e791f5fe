package idl

import (
	"strconv"
	"strings"

	"github.com/rpcgen/rpcgen/internal/goname"
)

// buildNamed builds the type of a named TypeDef and appends it, followed
// by the types synthesized for its inline parts, to the protocol's types.
func (r *resolver) buildNamed(def *TypeDef, ts *tspec) {
	r.p.Types = append(r.p.Types, def)
	if ts == nil {
		return
	}
	def.Doc, def.Deprecated = ts.doc, ts.deprec
	def.Since, def.Proposed = ts.since, ts.proposed
	def.Example = r.value(ts.example)
	if isCompound(ts.kind) {
		def.Type = r.compound(ts, def)
		// A named object, enum or union written nullable accepts null
		// wherever it is used.
		def.Type.Nullable = ts.nullable
		return
	}
	def.Type = r.build(ts, def.GoName, "")
}

// isCompound reports whether values of kind k need a named Go type.
func isCompound(k Kind) bool {
	return k == KindObject || k == KindEnum || k == KindUnion || k == KindTuple
}

// build resolves a type written where it has no name of its own. Objects,
// enums and unions become synthesized TypeDefs named name (or the name the
// author chose with name:) and are referenced. doc documents such a type
// when it has no doc of its own. build returns a KindInvalid type after
// reporting an error, never nil for a non-nil ts.
func (r *resolver) build(ts *tspec, name, doc string) *Type {
	if ts == nil {
		return nil
	}
	t := &Type{Kind: ts.kind, Nullable: ts.nullable, Pos: ts.pos}
	switch ts.kind {
	case KindObject, KindEnum, KindUnion, KindTuple:
		if ts.name.name != "" {
			if !typeNameRE.MatchString(ts.name.name) {
				r.errs.add(ts.name.pos, "name %q "+typeNameRule, ts.name.name)
			}
			name = ts.name.name
		}
		def := &TypeDef{Name: name, GoName: typeGoName(name), Doc: ts.doc, Deprecated: ts.deprec, Since: ts.since, Proposed: ts.proposed, Inline: true, Pos: ts.pos}
		if def.Doc == "" {
			def.Doc = doc
		}
		def.Example = r.value(ts.example)
		r.p.Types = append(r.p.Types, def)
		def.Type = r.compound(ts, def)
		t.Kind, t.Ref = KindRef, def
	case KindRef:
		if t.Ref = r.lookupType(ts.ref, ts.pos); t.Ref == nil {
			t.Kind = KindInvalid
		}
	case KindArray:
		t.Elem = r.build(ts.elem, name+"Item", "")
	case KindMap:
		t.Elem = r.build(ts.elem, name+"Value", "")
		if ts.key != nil {
			t.Key = r.build(ts.key, name+"Key", "")
			r.keyed = append(r.keyed, t)
		}
	}
	if ts.elem != nil && t.Elem == nil {
		t.Kind = KindInvalid
	}
	r.scalarFacets(ts, t)
	r.numFacets(ts, t)
	return t
}

// scalarFacets resolves format and const.
func (r *resolver) scalarFacets(ts *tspec, t *Type) {
	if ts.format != "" {
		if t.Kind != KindString {
			r.errs.add(ts.formatPos, "format applies to strings only; remove it or make the type string")
		} else if !knownFormat(ts.format) {
			r.errs.add(ts.formatPos, "unknown format %q; use one of %s%s", ts.format, orList(formatNames()), suggest(ts.format, formatNames(), ""))
		} else {
			t.Format = Format(ts.format)
		}
	}
	if ts.constv != nil {
		switch t.Kind {
		case KindString, KindInteger, KindNumber, KindBoolean:
			t.Const = r.value(ts.constv)
		default:
			r.errs.add(ts.constv.pos, "const applies to string, integer, number and boolean types, not %s", t.Kind)
		}
	}
}

var formats = []Format{FormatDateTime, FormatDate, FormatTime, FormatDuration, FormatURI, FormatURIRef, FormatEmail, FormatHostname, FormatIPv4, FormatIPv6, FormatUUID, FormatBase64, FormatRegex}

func formatNames() []string {
	var out []string
	for _, f := range formats {
		out = append(out, string(f))
	}
	return out
}

func knownFormat(s string) bool {
	for _, f := range formats {
		if string(f) == s {
			return true
		}
	}
	return false
}

// compound builds an object, enum or union type owned by def.
func (r *resolver) compound(ts *tspec, def *TypeDef) *Type {
	t := &Type{Kind: ts.kind, Pos: ts.pos}
	switch ts.kind {
	case KindObject:
		for _, ext := range ts.extends {
			if base := r.lookupType(ext.name, ext.pos); base != nil {
				t.Extends = append(t.Extends, base)
			}
		}
		for _, fs := range ts.fields {
			t.Fields = append(t.Fields, r.field(fs, def))
			if fs.raw && ts.positional {
				r.errs.add(fs.rawPos, "raw: true applies to members of objects sent by name, not to field %q of a positional object; remove raw:", fs.name.name)
			}
		}
		t.Additional = r.build(ts.additional, def.GoName+"Extra", "")
		t.Positional = ts.positional
	case KindTuple:
		for i, it := range ts.items {
			t.Items = append(t.Items, r.build(it, def.GoName+"Item"+strconv.Itoa(i), ""))
		}
		if len(ts.items) == 0 {
			t.Kind = KindInvalid
		}
	case KindEnum:
		r.enum(ts, t)
	case KindUnion:
		t.Discriminator = ts.disc.name
		for i, vs := range ts.variants {
			name := def.GoName + variantName(vs, ts.disc.name, i)
			t.Variants = append(t.Variants, &Variant{Type: r.build(vs, name, ""), Pos: vs.pos})
		}
		if len(ts.variants) == 1 {
			r.errs.add(ts.pos, "a union needs at least two variants; add one, or use the single type directly")
		}
	}
	return t
}

// variantName names an inline variant: by its tag when it has a constant
// discriminator field, else by its position.
func variantName(vs *tspec, disc string, i int) string {
	if disc != "" {
		for _, f := range vs.fields {
			if f.name.name == disc && f.t != nil && f.t.constv != nil && f.t.constv.kind == nString {
				if g := goname.Exported(f.t.constv.str); g != "" {
					return g
				}
			}
		}
	}
	return "Variant" + strconv.Itoa(i+1)
}

// field builds one field of the object def.
func (r *resolver) field(fs *fspec, def *TypeDef) *Field {
	f := &Field{Name: fs.name.name, GoName: goname.Exported(fs.name.name), Doc: fs.doc, Deprecated: fs.deprec, Since: fs.since, Proposed: fs.proposed, Optional: fs.optional, DeclaredIn: def, Pos: fs.name.pos}
	if fs.goName.name != "" {
		if !goname.IsExported(fs.goName.name) {
			r.errs.add(fs.goName.pos, "go_name %q is not an exported Go identifier; start it with an upper-case letter and use only letters, digits and _", fs.goName.name)
		}
		f.GoName = fs.goName.name
	}
	if f.GoName == "" {
		r.errs.add(f.Pos, "field %q has no letter or digit to make a Go name from; add go_name:", f.Name)
	}
	f.Type = r.build(fs.t, def.GoName+f.GoName, fs.doc)
	f.Default = r.value(fs.def)
	f.Example = r.value(fs.example)
	if fs.raw {
		f.Raw = true
		if t := f.Type; t == nil || t.Kind != KindMap || t.Key != nil || t.Nullable || t.Elem == nil || t.Elem.Kind != KindAny || t.Elem.Nullable {
			r.errs.add(fs.rawPos, "raw: true applies to fields of type map<string, any>, not %s; remove raw: or change the type", f.Type)
		} else if fs.def != nil {
			r.errs.add(fs.rawPos, "field %q is raw: true, so it takes no default; remove default:", f.Name)
		}
	}
	if f.Default != nil && !f.Optional {
		r.errs.add(fs.def.pos, "field %q is required, so a default is never used; make it optional (%s?:) or remove default", f.Name, f.Name)
	}
	return f
}

// enum builds the values of an enum.
func (r *resolver) enum(ts *tspec, t *Type) {
	seen := map[any]Pos{}
	t.Open = ts.open
	r.enumBase(ts, t)
	for _, vs := range ts.values {
		if !r.checkEnumValue(ts, t, vs) {
			continue
		}
		v := &EnumValue{Value: vs.value, Doc: vs.doc, Deprecated: vs.deprec, Since: vs.since, Proposed: vs.proposed, Pos: vs.pos}
		base := KindString
		if _, isInt := vs.value.(int64); isInt {
			base = KindInteger
		}
		if t.EnumBase == KindInvalid {
			t.EnumBase = base
		} else if base != t.EnumBase {
			r.errs.add(vs.pos, "enum mixes string and integer values; make every value a %s", t.EnumBase)
			continue
		}
		if first, dup := seen[vs.value]; dup {
			r.errs.add(vs.pos, "enum value %v is listed twice (first at line %d); remove one", vs.value, first.Line)
			continue
		}
		seen[vs.value] = vs.pos
		switch {
		case vs.name.name != "":
			v.Name = vs.name.name
			v.GoName = goname.Exported(v.Name)
			// A name written as a Go identifier keeps its spelling
			// (HL7 stays HL7), with its first letter upper-cased.
			if g := strings.ToUpper(v.Name[:1]) + v.Name[1:]; goname.IsExported(g) && !strings.Contains(v.Name, "_") {
				v.GoName = g
			}
		case base == KindString:
			v.Name = vs.value.(string)
			v.GoName = goname.Exported(v.Name)
		default:
			v.Name, v.GoName = intValueNames(vs.value.(int64))
		}
		if v.GoName == "" && v.Name != "" || v.Name == "" && base == KindString {
			r.errs.add(vs.pos, "enum value %q has no letter or digit to make a Go name from; write {value: %q, name: SomeName}", v.Name, v.Name)
		}
		t.Values = append(t.Values, v)
	}
}

// intValueNames returns the name and Go name of an integer enum value
// written without name: its decimal text, and N<value> or, for a negative
// value, Minus<value> ("-1" and "Minus1").
func intValueNames(n int64) (name, goName string) {
	name = strconv.FormatInt(n, 10)
	if digits, neg := strings.CutPrefix(name, "-"); neg {
		return name, "Minus" + digits
	}
	return name, "N" + name
}

// typeGoName returns the Go name of the type named name. Leading
// underscores, which cannot start an exported Go name, become a leading X
// (_InitializeParams gives XInitializeParams), so that the name does not
// meet the one written without them.
func typeGoName(name string) string {
	g := goname.Exported(name)
	if strings.HasPrefix(name, "_") && g != "" {
		return "X" + g
	}
	return g
}
