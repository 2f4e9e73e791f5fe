package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	invopop "github.com/invopop/jsonschema"
)

// Encode writes s as rpcgen writes schema files: JSON indented with two
// spaces, without HTML escapes, with a trailing newline.
//
// The bytes are those of encoding/json's Marshal followed by Indent, with
// the \u003c, \u003e and \u0026 escapes turned back into <, > and &; the
// schemas Generate builds are written directly, without reflection.
func Encode(s *invopop.Schema) ([]byte, error) {
	var e encoder
	if err := e.schema(s, 0); err != nil {
		return nil, err
	}
	return append(e.buf, '\n'), nil
}

// encoder appends indented JSON to buf. defs, when not nil, keeps a copy
// of the encoding of each schema met as a $defs entry, so that a schema
// shared by several files is encoded once; buf can then be reused.
type encoder struct {
	buf  []byte
	defs map[defKey][]byte
}

// defKey identifies the encoding of a schema at an indentation depth.
type defKey struct {
	s     *invopop.Schema
	depth int
}

// indent starts a new line at depth.
func (e *encoder) indent(depth int) {
	e.buf = append(e.buf, '\n')
	for range depth {
		e.buf = append(e.buf, ' ', ' ')
	}
}

// object writes the members of an object whose opening brace is at depth,
// each member written by calling member with its key and depth+1.
type object struct {
	e     *encoder
	depth int
	n     int
}

// key starts a member.
func (o *object) key(k string) {
	if o.n == 0 {
		o.e.buf = append(o.e.buf, '{')
	} else {
		o.e.buf = append(o.e.buf, ',')
	}
	o.n++
	o.e.indent(o.depth + 1)
	o.e.buf = appendString(o.e.buf, k)
	o.e.buf = append(o.e.buf, ':', ' ')
}

// str writes a string member unless v is empty.
func (o *object) str(k, v string) {
	if v != "" {
		o.key(k)
		o.e.buf = appendString(o.e.buf, v)
	}
}

// num writes a number member unless v is empty.
func (o *object) num(k string, v json.Number) {
	if v != "" {
		o.key(k)
		o.e.buf = append(o.e.buf, v...)
	}
}

// flag writes a true member unless v is false.
func (o *object) flag(k string, v bool) {
	if v {
		o.key(k)
		o.e.buf = append(o.e.buf, "true"...)
	}
}

// end closes the object; an object without members is {}.
func (o *object) end() {
	if o.n == 0 {
		o.e.buf = append(o.e.buf, '{', '}')
		return
	}
	o.e.indent(o.depth)
	o.e.buf = append(o.e.buf, '}')
}

// schema writes s, whose first line is at depth.
func (e *encoder) schema(s *invopop.Schema, depth int) error {
	if s == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	if !direct(s) {
		return e.value(s, depth)
	}
	if isEmpty(s) {
		e.buf = append(e.buf, "true"...)
		return nil
	}
	o := object{e: e, depth: depth}
	d := depth + 1
	o.str("$schema", s.Version)
	o.str("$id", string(s.ID))
	o.str("$anchor", s.Anchor)
	o.str("$ref", s.Ref)
	o.str("$dynamicRef", s.DynamicRef)
	if err := e.schemaMap(&o, "$defs", s.Definitions); err != nil {
		return err
	}
	o.str("$comment", s.Comments)
	for _, l := range []struct {
		k    string
		list []*invopop.Schema
	}{{"allOf", s.AllOf}, {"anyOf", s.AnyOf}, {"oneOf", s.OneOf}} {
		if err := e.schemaList(&o, l.k, l.list); err != nil {
			return err
		}
	}
	if err := e.schemaPtrs(&o, []string{"not", "if", "then", "else"}, s.Not, s.If, s.Then, s.Else); err != nil {
		return err
	}
	if err := e.schemaMap(&o, "dependentSchemas", s.DependentSchemas); err != nil {
		return err
	}
	if err := e.schemaList(&o, "prefixItems", s.PrefixItems); err != nil {
		return err
	}
	if err := e.schemaPtrs(&o, []string{"items", "contains"}, s.Items, s.Contains); err != nil {
		return err
	}
	if s.Properties != nil {
		o.key("properties")
		p := object{e: e, depth: d}
		for pair := s.Properties.Oldest(); pair != nil; pair = pair.Next() {
			p.key(pair.Key)
			if err := e.schema(pair.Value, d+1); err != nil {
				return err
			}
		}
		p.end()
	}
	if err := e.schemaMap(&o, "patternProperties", s.PatternProperties); err != nil {
		return err
	}
	if err := e.schemaPtrs(&o, []string{"additionalProperties", "propertyNames"}, s.AdditionalProperties, s.PropertyNames); err != nil {
		return err
	}
	o.str("type", s.Type)
	if err := e.values(&o, "enum", s.Enum); err != nil {
		return err
	}
	if s.Const != nil {
		o.key("const")
		if err := e.value(s.Const, d); err != nil {
			return err
		}
	}
	o.num("maximum", s.Maximum) // invopop's field order, which encoding/json keeps
	o.num("minimum", s.Minimum)
	o.str("pattern", s.Pattern)
	o.flag("uniqueItems", s.UniqueItems)
	if len(s.Required) > 0 {
		o.key("required")
		e.buf = append(e.buf, '[')
		for i, r := range s.Required {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.indent(d + 1)
			e.buf = appendString(e.buf, r)
		}
		e.indent(d)
		e.buf = append(e.buf, ']')
	}
	o.str("format", s.Format)
	o.str("contentEncoding", s.ContentEncoding)
	o.str("contentMediaType", s.ContentMediaType)
	if err := e.schemaPtrs(&o, []string{"contentSchema"}, s.ContentSchema); err != nil {
		return err
	}
	o.str("title", s.Title)
	o.str("description", s.Description)
	if s.Default != nil {
		o.key("default")
		if err := e.value(s.Default, d); err != nil {
			return err
		}
	}
	o.flag("deprecated", s.Deprecated)
	o.flag("readOnly", s.ReadOnly)
	o.flag("writeOnly", s.WriteOnly)
	if err := e.values(&o, "examples", s.Examples); err != nil {
		return err
	}
	o.end()
	return nil
}

// schemaPtrs writes the schemas that are not nil, under their keys.
func (e *encoder) schemaPtrs(o *object, keys []string, list ...*invopop.Schema) error {
	for i, s := range list {
		if s != nil {
			o.key(keys[i])
			if err := e.schema(s, o.depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// schemaList writes a non-empty list of schemas under k.
func (e *encoder) schemaList(o *object, k string, list []*invopop.Schema) error {
	return writeList(e, o, k, list, e.schema)
}

// schemaMap writes a non-empty map of schemas under k, keys sorted as
// encoding/json sorts them. Entries of $defs are taken from e.defs when
// it holds them.
func (e *encoder) schemaMap(o *object, k string, m map[string]*invopop.Schema) error {
	if len(m) == 0 {
		return nil
	}
	o.key(k)
	d := o.depth + 1
	keys := make([]string, 0, len(m))
	for name := range m {
		keys = append(keys, name)
	}
	slices.Sort(keys)
	inner := object{e: e, depth: d}
	for _, name := range keys {
		inner.key(name)
		s := m[name]
		if e.defs == nil || s == nil || k != "$defs" {
			if err := e.schema(s, d+1); err != nil {
				return err
			}
			continue
		}
		key := defKey{s, d + 1}
		if b, ok := e.defs[key]; ok {
			e.buf = append(e.buf, b...)
			continue
		}
		start := len(e.buf)
		if err := e.schema(s, d+1); err != nil {
			return err
		}
		e.defs[key] = bytes.Clone(e.buf[start:])
	}
	inner.end()
	return nil
}

// values writes a non-empty list of JSON values under k.
func (e *encoder) values(o *object, k string, list []any) error {
	return writeList(e, o, k, list, e.value)
}

// writeList writes a non-empty list under k, one element per line, each
// written by write at its depth.
func writeList[T any](e *encoder, o *object, k string, list []T, write func(T, int) error) error {
	if len(list) == 0 {
		return nil
	}
	o.key(k)
	d := o.depth + 1
	e.buf = append(e.buf, '[')
	for i, v := range list {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.indent(d + 1)
		if err := write(v, d+1); err != nil {
			return err
		}
	}
	e.indent(d)
	e.buf = append(e.buf, ']')
	return nil
}

// value writes v as encoding/json writes it, indented from depth, without
// HTML escapes.
func (e *encoder) value(v any, depth int) error {
	if s, ok := v.(string); ok {
		e.buf = appendString(e.buf, s)
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding schema: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, string(bytes.Repeat([]byte("  "), depth)), "  "); err != nil {
		return fmt.Errorf("indenting schema: %w", err)
	}
	e.buf = append(e.buf, unescapeHTML(out.Bytes())...)
	return nil
}

// directFields lists, in order, the fields of invopop.Schema that
// [encoder.schema] writes; with the unexported boolean field and Extras,
// and the ones checked by [direct], they are all the fields the version
// in go.mod has. Should a later version add one, every schema goes
// through encoding/json instead.
var directFields = []string{
	"Version", "ID", "Anchor", "Ref", "DynamicRef", "Definitions", "Comments",
	"AllOf", "AnyOf", "OneOf", "Not", "If", "Then", "Else", "DependentSchemas",
	"PrefixItems", "Items", "Contains", "Properties", "PatternProperties",
	"AdditionalProperties", "PropertyNames", "Type", "Enum", "Const",
	"MultipleOf", "Maximum", "ExclusiveMaximum", "Minimum", "ExclusiveMinimum",
	"MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems",
	"MaxContains", "MinContains", "MaxProperties", "MinProperties", "Required",
	"DependentRequired", "Format", "ContentEncoding", "ContentMediaType",
	"ContentSchema", "Title", "Description", "Default", "Deprecated",
	"ReadOnly", "WriteOnly", "Examples", "Extras", "boolean",
}

// booleanField is the index of the unexported field that makes a schema
// true or false, or nil when the Schema type is not the one directFields
// describes.
var booleanField = func() []int {
	t := reflect.TypeFor[invopop.Schema]()
	if t.NumField() != len(directFields) {
		return nil
	}
	for i, name := range directFields {
		if t.Field(i).Name != name {
			return nil
		}
	}
	return t.Field(len(directFields) - 1).Index
}()

// direct reports whether [encoder.schema] writes s itself: s is not a
// boolean schema, has no extra keywords, and sets none of the numeric and
// dependentRequired keywords, which encoding/json writes instead.
func direct(s *invopop.Schema) bool {
	if booleanField == nil || !reflect.ValueOf(s).Elem().FieldByIndex(booleanField).IsNil() {
		return false
	}
	return s.Extras == nil && s.DependentRequired == nil &&
		s.MultipleOf == "" && s.ExclusiveMaximum == "" && s.ExclusiveMinimum == "" &&
		s.MaxLength == nil && s.MinLength == nil && s.MaxItems == nil && s.MinItems == nil &&
		s.MaxContains == nil && s.MinContains == nil && s.MaxProperties == nil && s.MinProperties == nil
}

// isEmpty reports whether s, which [direct] accepts, is deeply equal to
// the zero Schema, which invopop writes as true.
func isEmpty(s *invopop.Schema) bool {
	return s.Version == "" && s.ID == "" && s.Anchor == "" && s.Ref == "" && s.DynamicRef == "" &&
		s.Definitions == nil && s.Comments == "" && s.AllOf == nil && s.AnyOf == nil && s.OneOf == nil &&
		s.Not == nil && s.If == nil && s.Then == nil && s.Else == nil && s.DependentSchemas == nil &&
		s.PrefixItems == nil && s.Items == nil && s.Contains == nil && s.Properties == nil &&
		s.PatternProperties == nil && s.AdditionalProperties == nil && s.PropertyNames == nil &&
		s.Type == "" && s.Enum == nil && s.Const == nil && s.Pattern == "" && !s.UniqueItems &&
		s.Required == nil && s.Format == "" && s.ContentEncoding == "" && s.ContentMediaType == "" &&
		s.ContentSchema == nil && s.Title == "" && s.Description == "" && s.Default == nil &&
		!s.Deprecated && !s.ReadOnly && !s.WriteOnly && s.Examples == nil &&
		s.Minimum == "" && s.Maximum == ""
}
