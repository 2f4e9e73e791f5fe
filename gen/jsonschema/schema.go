package jsonschema

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	invopop "github.com/invopop/jsonschema"

	"github.com/rpcgen/rpcgen/idl"
)

// builder turns IDL types into schemas. Every reference it writes is
// local, "#/$defs/<Type>"; the caller puts the types referred to in the
// root schema's $defs. The first problem met is kept in err.
type builder struct {
	err error
}

// fail records err unless a problem is already recorded.
func (b *builder) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf(format, args...)
	}
}

// DefRef returns the reference to the named type name from any file
// written by [Generate], e.g. "#/$defs/Item".
func DefRef(name string) string { return "#/$defs/" + name }

// typeDef returns the schema of the named type td, with its title, doc,
// deprecation and example.
func (b *builder) typeDef(td *idl.TypeDef) *invopop.Schema {
	if td.Type == nil {
		b.fail("type %s has no definition", td.Name)
		return &invopop.Schema{}
	}
	s := b.typ(td.Type, td.Name)
	s.Title = td.Name
	var notes string
	if td.Type.Kind == idl.KindEnum {
		notes = enumNotes(td.Type)
	}
	annotate(s, td.Doc, td.Deprecated, notes)
	s.Examples = b.examples(td.Example, td.Name)
	return s
}

// typ returns the schema of values of t; where names the type in errors.
func (b *builder) typ(t *idl.Type, where string) *invopop.Schema {
	if t == nil {
		b.fail("%s: missing type", where)
		return &invopop.Schema{}
	}
	s := b.base(t, where)
	if t.Nullable && !isTrue(s) {
		return &invopop.Schema{AnyOf: []*invopop.Schema{s, {Type: "null"}}}
	}
	return s
}

// base is typ without nullability.
func (b *builder) base(t *idl.Type, where string) *invopop.Schema {
	switch t.Kind {
	case idl.KindString:
		s := &invopop.Schema{Type: "string"}
		if t.Format == idl.FormatBase64 {
			s.ContentEncoding = "base64"
		} else {
			s.Format = string(t.Format)
		}
		s.Const = b.value(t.Const, where)
		return s
	case idl.KindInteger, idl.KindNumber:
		s := &invopop.Schema{Type: t.Kind.String(), Const: b.value(t.Const, where)}
		bounds(s, t)
		return s
	case idl.KindBoolean:
		return &invopop.Schema{Type: t.Kind.String(), Const: b.value(t.Const, where)}
	case idl.KindAny:
		return &invopop.Schema{}
	case idl.KindArray:
		return &invopop.Schema{Type: "array", Items: b.typ(t.Elem, where+"[]")}
	case idl.KindMap:
		return &invopop.Schema{Type: "object", AdditionalProperties: b.typ(t.Elem, where+"{}"), PropertyNames: b.keys(t.Key, where)}
	case idl.KindObject:
		return b.object(t, where)
	case idl.KindEnum:
		return b.enum(t, where)
	case idl.KindUnion:
		return b.union(t, where)
	case idl.KindTuple:
		var items []*invopop.Schema
		for i, it := range t.Items {
			items = append(items, b.typ(it, fmt.Sprintf("%s[%d]", where, i)))
		}
		return array(items, len(items))
	case idl.KindRef:
		if t.Ref == nil {
			b.fail("%s: reference to an unresolved type", where)
			return &invopop.Schema{}
		}
		return &invopop.Schema{Ref: DefRef(t.Ref.Name)}
	}
	b.fail("%s: unsupported kind %s", where, t.Kind)
	return &invopop.Schema{}
}

// integerKey is the pattern of integer map keys: decimal int64s as JSON
// writes them.
const integerKey = "^-?(0|[1-9][0-9]*)$"

// keys returns the schema of the keys of a map whose keys have type k, or
// nil for plain string keys. Keys are strings: an integer enum's values
// are listed as strings, and integer keys match a pattern.
func (b *builder) keys(k *idl.Type, where string) *invopop.Schema {
	if k == nil {
		return nil
	}
	u := k.Underlying()
	switch {
	case u == nil:
		b.fail("%s: map key of an unresolved type", where)
		return nil
	case u.Kind == idl.KindEnum && k.IntegerKey():
		s := &invopop.Schema{Type: "string"}
		for _, v := range u.Values {
			s.Enum = append(s.Enum, fmt.Sprint(v.Value))
		}
		return s
	case k.IntegerKey():
		return &invopop.Schema{Type: "string", Pattern: integerKey}
	}
	return b.typ(k, where+"{key}") // a string type: its schema checks the names
}

// object returns the schema of an object type: its fields in order.
func (b *builder) object(t *idl.Type, where string) *invopop.Schema {
	if t.Positional {
		return b.positional(t, where)
	}
	s := &invopop.Schema{Type: "object"}
	if a := t.Additional; a != nil && a.Kind != idl.KindAny {
		// Undeclared members are kept and must be of this type; without
		// additional: they are accepted whatever they hold.
		s.AdditionalProperties = b.typ(a, where+"{}")
	}
	if len(t.Fields) == 0 {
		return s
	}
	s.Properties = invopop.NewProperties()
	for _, f := range t.Fields {
		at := where + "." + f.Name
		fs := b.typ(f.Type, at)
		annotate(fs, f.Doc, f.Deprecated, "")
		if f.Default != nil {
			fs.Default = b.value(f.Default, at)
		}
		fs.Examples = b.examples(f.Example, at)
		s.Properties.Set(f.Name, fs)
		if !f.Optional {
			s.Required = append(s.Required, f.Name)
		}
	}
	return s
}

// positional returns the schema of an object sent as an array of its
// fields in order, each titled with the field's name; the optional ones,
// last, may be left out from the end.
func (b *builder) positional(t *idl.Type, where string) *invopop.Schema {
	var items []*invopop.Schema
	required := 0
	for _, f := range t.Fields {
		at := where + "." + f.Name
		fs := b.typ(f.Type, at)
		if f.Optional && !f.Type.Nullable && !isTrue(fs) {
			// null stands for an absent field followed by a present one
			fs = &invopop.Schema{AnyOf: []*invopop.Schema{fs, {Type: "null"}}}
		}
		annotate(fs, f.Doc, f.Deprecated, "")
		fs.Title = f.Name
		if f.Default != nil {
			fs.Default = b.value(f.Default, at)
		}
		items = append(items, fs)
		if !f.Optional {
			required++
		}
	}
	return array(items, required)
}

// array returns the schema of an array holding items, in order, of which
// the first min are required.
func array(items []*invopop.Schema, min int) *invopop.Schema {
	lo, hi := uint64(min), uint64(len(items))
	s := &invopop.Schema{Type: "array", PrefixItems: items, Items: invopop.FalseSchema, MaxItems: &hi}
	if min > 0 {
		s.MinItems = &lo
	}
	return s
}

// enum returns the schema of an enum of strings or integers.
func (b *builder) enum(t *idl.Type, where string) *invopop.Schema {
	s := &invopop.Schema{Type: t.EnumBase.String()}
	if t.EnumBase != idl.KindString && t.EnumBase != idl.KindInteger {
		b.fail("%s: enum of %s values", where, t.EnumBase)
	}
	for _, v := range t.Values {
		s.Enum = append(s.Enum, v.Value)
	}
	if !t.Open {
		return s
	}
	// Other values of the base type are accepted too.
	other := &invopop.Schema{Type: t.EnumBase.String()}
	if t.EnumBase == idl.KindInteger {
		bounds(other, &idl.Type{Kind: idl.KindInteger, Width: t.Width})
	}
	return &invopop.Schema{AnyOf: []*invopop.Schema{s, other}}
}

// bounds sets the minimum and maximum of s from those of the integer or
// number type t, and from the range of an integer narrower than int64.
func bounds(s *invopop.Schema, t *idl.Type) {
	if t.Kind == idl.KindInteger && t.Width != idl.Int64 {
		lo, hi := t.Width.Range()
		s.Minimum = json.Number(strconv.FormatInt(lo, 10))
		s.Maximum = json.Number(strconv.FormatInt(hi, 10))
	}
	if t.Minimum != nil {
		s.Minimum = json.Number(t.Minimum.JSON)
	}
	if t.Maximum != nil {
		s.Maximum = json.Number(t.Maximum.JSON)
	}
}

// union returns the schema of a union: a oneOf of its variants, with the
// discriminator's tags listed when there is one. A union without one whose
// variants may overlap (object variants that an object can match at once,
// or a catch-all any, written {} last) is an anyOf instead: the schema
// accepts what some variant accepts, and the generated decoders pick
// among overlapping object variants by the rule of [idl.ChooseObject].
func (b *builder) union(t *idl.Type, where string) *invopop.Schema {
	s := &invopop.Schema{}
	var list []*invopop.Schema
	for i, v := range t.Variants {
		list = append(list, b.typ(v.Type, fmt.Sprintf("%s|%d", where, i+1)))
	}
	if t.Discriminator == "" {
		if !idl.Exclusive(t) {
			s.AnyOf = list
		} else {
			s.OneOf = list
		}
		return s
	}
	s.OneOf = list
	tag := &invopop.Schema{Type: "string"}
	for _, v := range t.Variants {
		tag.Enum = append(tag.Enum, v.Tag)
	}
	s.Type = "object"
	s.Properties = invopop.NewProperties()
	s.Properties.Set(t.Discriminator, tag)
	s.Required = []string{t.Discriminator}
	return s
}

// value returns v as a JSON value for const, default or examples, or nil
// (no value) when v is nil.
func (b *builder) value(v *idl.Value, where string) any {
	if v == nil {
		return nil
	}
	if !json.Valid(v.JSON) {
		b.fail("%s: invalid JSON value %q", where, v.JSON)
		return nil
	}
	return json.RawMessage(v.JSON)
}

// examples returns v as an examples list, or nil.
func (b *builder) examples(v *idl.Value, where string) []any {
	if x := b.value(v, where); x != nil {
		return []any{x}
	}
	return nil
}

// annotate sets the description of s from a doc, a deprecation and notes,
// and marks s deprecated when deprecated is not empty.
func annotate(s *invopop.Schema, doc, deprecated, notes string) {
	var parts []string
	if d := strings.TrimSpace(doc); d != "" {
		parts = append(parts, d)
	}
	if d := strings.TrimSpace(deprecated); d != "" {
		parts = append(parts, "Deprecated: "+d)
		s.Deprecated = true
	}
	if notes != "" {
		parts = append(parts, notes)
	}
	s.Description = strings.Join(parts, "\n\n")
}

// enumNotes lists an enum's values with their names, docs and deprecations,
// which JSON Schema's enum cannot hold; it returns "" when there is nothing
// to add to the values themselves.
func enumNotes(t *idl.Type) string {
	needed := false
	for _, v := range t.Values {
		if v.Doc != "" || v.Deprecated != "" || v.Since != "" || v.Proposed || fmt.Sprint(v.Value) != v.Name {
			needed = true
		}
	}
	if !needed {
		return ""
	}
	lines := []string{"Values:"}
	for _, v := range t.Values {
		line := "- " + fmt.Sprint(v.Value)
		if s := fmt.Sprint(v.Value); s != v.Name {
			line += " (" + v.Name + ")"
		}
		var what []string
		if d := strings.TrimSpace(v.Doc); d != "" {
			what = append(what, d)
		}
		if d := strings.TrimSpace(v.Deprecated); d != "" {
			what = append(what, "Deprecated: "+d)
		}
		if v.Since != "" {
			what = append(what, "Since "+v.Since+".")
		}
		if v.Proposed {
			what = append(what, "Proposed.")
		}
		if len(what) > 0 {
			line += ": " + strings.Join(what, " ")
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// isTrue reports whether s is the schema every value matches, to which
// null adds nothing.
func isTrue(s *invopop.Schema) bool {
	if direct(s) {
		return isEmpty(s)
	}
	data, err := json.Marshal(s)
	return err == nil && string(data) == "true"
}
