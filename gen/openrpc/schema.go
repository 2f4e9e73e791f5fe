package openrpc

import (
	"fmt"
	"strings"

	"github.com/rpcgen/rpcgen/gen"
	"github.com/rpcgen/rpcgen/gen/jsonschema"
	"github.com/rpcgen/rpcgen/idl"
)

// SchemaRef is where the document's references to named types point:
// SchemaRef followed by the type's IDL name.
const SchemaRef = "#/components/schemas/"

// schemas holds the output of gen/jsonschema for one protocol, read back
// in the draft-07 form OpenRPC uses.
type schemas struct {
	files map[string][]byte // content by path, e.g. "schema/Item.json"
	types *object           // the bundle's $defs, converted
	names map[string]string // file-safe name of each method's schema files
}

// loadSchemas reads files, the output of gen/jsonschema on p, and
// converts the named types of its bundle.
func loadSchemas(p *idl.Protocol, files []gen.File) (*schemas, error) {
	s := &schemas{files: make(map[string][]byte, len(files)), names: jsonschema.MethodFileNames(p)}
	for _, f := range files {
		s.files[f.Path] = f.Content
	}
	bundle, err := s.root(p.Name + ".schema.json")
	if err != nil {
		return nil, err
	}
	s.types = obj()
	if b, ok := bundle.(*object); ok {
		if defs, ok := b.get("$defs").(*object); ok {
			s.types = defs
		}
	}
	for _, td := range p.Types {
		d := s.types.get(td.Name)
		if d == nil {
			return nil, fmt.Errorf("openrpc: type %s is not in the JSON Schema bundle", td.Name)
		}
		c, err := draft7(d)
		if err != nil {
			return nil, fmt.Errorf("openrpc: type %s: %w", td.Name, err)
		}
		s.types.set(td.Name, c)
	}
	return s, nil
}

// root parses the schema file at schema/<path>.
func (s *schemas) root(path string) (any, error) {
	data, ok := s.files["schema/"+path]
	if !ok {
		return nil, fmt.Errorf("openrpc: gen/jsonschema wrote no schema/%s", path)
	}
	v, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("openrpc: schema/%s: %w", path, err)
	}
	return v, nil
}

// value returns the draft-07 schema of the value described by the file at
// schema/<path> (a method's params or result, an error's data): its root
// without the annotations that describe the method or error, which the
// document holds elsewhere, and without its $defs, which are the
// document's components.
func (s *schemas) value(path string) (any, error) {
	v, err := s.root(path)
	if err != nil {
		return nil, err
	}
	if o, ok := v.(*object); ok {
		for _, k := range []string{"$defs", "title", "description", "examples", "deprecated"} {
			o.del(k)
		}
	}
	v, err = draft7(v)
	if err != nil {
		return nil, fmt.Errorf("openrpc: schema/%s: %w", path, err)
	}
	return v, nil
}

// method returns the schema of m's params (what is "params" or
// "notification.params") or result ("result").
func (s *schemas) method(m *idl.Method, what string) (any, error) {
	return s.value("methods/" + s.names[m.Name] + "." + what + ".json")
}

// typ returns the converted schema of the named type td, shared: callers
// clone it before changing it.
func (s *schemas) typ(td *idl.TypeDef) any { return s.types.get(td.Name) }

// Keywords whose value is a schema, a list of schemas, or an object whose
// member values are schemas.
var (
	schemaKeywords = map[string]bool{
		"items": true, "additionalItems": true, "additionalProperties": true, "propertyNames": true,
		"not": true, "contains": true, "if": true, "then": true, "else": true, "contentSchema": true,
	}
	schemaListKeywords = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true}
	schemaMapKeywords  = map[string]bool{"properties": true, "patternProperties": true, "definitions": true}
	// notDraft7 are keywords of draft 2020-12 that change validation and
	// that draft 07 has no word for; gen/jsonschema writes none of them.
	notDraft7 = map[string]bool{
		"$dynamicRef": true, "$anchor": true, "dependentSchemas": true, "dependentRequired": true,
		"unevaluatedItems": true, "unevaluatedProperties": true, "minContains": true, "maxContains": true,
	}
)

// draft7 returns the draft-07 form of a draft 2020-12 schema written by
// gen/jsonschema, changing it in place: references to $defs point to
// the components, prefixItems becomes the array form of items (and items
// becomes additionalItems), and $schema, $id and $defs go.
func draft7(v any) (any, error) {
	switch v.(type) {
	case bool:
		return v, nil
	case *object:
	default:
		return nil, fmt.Errorf("a %T where a schema should be", v)
	}
	o := v.(*object)
	for _, k := range append([]string(nil), o.keys...) {
		val := o.get(k)
		switch {
		case k == "$schema" || k == "$id" || k == "$defs" || k == "$comment":
			o.del(k)
		case k == "$ref":
			ref, _ := val.(string)
			name, ok := strings.CutPrefix(ref, jsonschema.DefRef(""))
			if !ok {
				return nil, fmt.Errorf("reference %q outside $defs", ref)
			}
			o.set(k, SchemaRef+name)
		case notDraft7[k]:
			return nil, fmt.Errorf("keyword %s has no draft-07 form", k)
		case schemaKeywords[k]:
			c, err := draft7(val)
			if err != nil {
				return nil, err
			}
			o.set(k, c)
		case schemaListKeywords[k]:
			list, ok := val.([]any)
			if !ok {
				return nil, fmt.Errorf("%s is not a list", k)
			}
			for i := range list {
				c, err := draft7(list[i])
				if err != nil {
					return nil, err
				}
				list[i] = c
			}
		case schemaMapKeywords[k]:
			m, ok := val.(*object)
			if !ok {
				return nil, fmt.Errorf("%s is not an object", k)
			}
			for _, name := range m.keys {
				c, err := draft7(m.get(name))
				if err != nil {
					return nil, err
				}
				m.set(name, c)
			}
		}
	}
	if o.has("prefixItems") {
		o.rename("items", "additionalItems")
		o.rename("prefixItems", "items")
	}
	return o, nil
}

// file returns the document as the generated file openrpc.json.
func file(doc *object) (gen.File, error) {
	data, err := encode(doc)
	if err != nil {
		return gen.File{}, err
	}
	return gen.File{Path: FileName, Content: data}, nil
}
