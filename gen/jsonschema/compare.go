package jsonschema

import invopop "github.com/invopop/jsonschema"

// WithoutAnnotations returns a deep copy of s, and of every schema inside
// it, without the keywords that never decide whether a value is valid:
// $schema, $id, $comment, title, description, default, examples,
// deprecated, readOnly, writeOnly and extra keywords. It makes a schema
// generated here comparable with one reflected from the generated Go types
// by invopop's Reflector, which writes other annotations. s is not
// changed.
//
// With Reflector{AllowAdditionalProperties: true}, plain object types
// then compare equal to their $defs entry in [Bundle]. Known remaining
// differences: $defs keys here are IDL names (the Reflector uses Go names:
// "Id" here, "ID" there); nullable types are anyOf with null here, oneOf
// there; maps of any carry "additionalProperties": true here; enums,
// constants, formats and unions need JSONSchema methods on the Go types
// for the Reflector to see them.
func WithoutAnnotations(s *invopop.Schema) *invopop.Schema {
	if s == nil {
		return nil
	}
	c := *s
	c.Version, c.ID, c.Comments = "", invopop.EmptyID, ""
	c.Title, c.Description = "", ""
	c.Default, c.Examples = nil, nil
	c.Deprecated, c.ReadOnly, c.WriteOnly = false, false, false
	c.Extras = nil

	c.AllOf, c.AnyOf, c.OneOf = stripList(s.AllOf), stripList(s.AnyOf), stripList(s.OneOf)
	c.PrefixItems = stripList(s.PrefixItems)
	for _, p := range []**invopop.Schema{&c.Not, &c.If, &c.Then, &c.Else, &c.Items, &c.Contains, &c.AdditionalProperties, &c.PropertyNames, &c.ContentSchema} {
		*p = WithoutAnnotations(*p)
	}
	c.DependentSchemas = stripMap(s.DependentSchemas)
	c.PatternProperties = stripMap(s.PatternProperties)
	if s.Definitions != nil {
		c.Definitions = invopop.Definitions(stripMap(s.Definitions))
	}
	if s.Properties != nil {
		c.Properties = invopop.NewProperties()
		for pair := s.Properties.Oldest(); pair != nil; pair = pair.Next() {
			c.Properties.Set(pair.Key, WithoutAnnotations(pair.Value))
		}
	}
	return &c
}

func stripList(list []*invopop.Schema) []*invopop.Schema {
	if list == nil {
		return nil
	}
	out := make([]*invopop.Schema, len(list))
	for i, s := range list {
		out[i] = WithoutAnnotations(s)
	}
	return out
}

func stripMap(m map[string]*invopop.Schema) map[string]*invopop.Schema {
	if m == nil {
		return nil
	}
	out := make(map[string]*invopop.Schema, len(m))
	for k, s := range m {
		out[k] = WithoutAnnotations(s)
	}
	return out
}
