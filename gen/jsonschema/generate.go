package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	invopop "github.com/invopop/jsonschema"

	"github.com/rpcgen/rpcgen/gen"
	"github.com/rpcgen/rpcgen/idl"
)

// BaseURL starts the $id of every generated schema; the protocol name and
// the file's path below schema/ follow.
const BaseURL = "https://rpcgen.dev/schemas/"

// draft is the $schema of every generated file.
const draft = "https://json-schema.org/draft/2020-12/schema"

// ID returns the $id of the schema file written at schema/<path> for
// protocol p, e.g. ID(p, "Item.json").
func ID(p *idl.Protocol, path string) string {
	return BaseURL + p.Name + "/" + path
}

// Generate returns the schema files of p, described in the package doc:
// one per named type, one per method's params and result, one per error
// data type, and the bundle.
func Generate(p *idl.Protocol) ([]gen.File, error) {
	if p == nil {
		return nil, errors.New("jsonschema: no protocol")
	}
	var files []gen.File
	add := func(path string, s *invopop.Schema, err error) error {
		if err != nil {
			return err
		}
		data, err := Encode(s)
		if err != nil {
			return fmt.Errorf("jsonschema: %s: %w", path, err)
		}
		files = append(files, gen.File{Path: "schema/" + path, Content: data})
		return nil
	}
	for _, td := range p.Types {
		s, err := typeFile(p, td)
		if err := add(td.Name+".json", s, err); err != nil {
			return nil, err
		}
	}
	names := MethodFileNames(p)
	for _, m := range p.Methods {
		base := "methods/" + names[m.Name]
		if m.Params != nil {
			s, err := methodFile(p, m, base+".params.json", false)
			if err := add(base+".params.json", s, err); err != nil {
				return nil, err
			}
		}
		if m.Kind == idl.Request {
			s, err := methodFile(p, m, base+".result.json", true)
			if err := add(base+".result.json", s, err); err != nil {
				return nil, err
			}
		}
	}
	for _, e := range p.Errors {
		if e.Data != nil {
			path := "errors/" + e.Name + ".data.json"
			s, err := errorFile(p, e, path)
			if err := add(path, s, err); err != nil {
				return nil, err
			}
		}
	}
	s, err := Bundle(p)
	if err := add(p.Name+".schema.json", s, err); err != nil {
		return nil, err
	}
	return files, nil
}

// Bundle returns the bundle schema of p: every named type under $defs, and
// a root that accepts any value.
func Bundle(p *idl.Protocol) (*invopop.Schema, error) {
	if p == nil {
		return nil, errors.New("jsonschema: no protocol")
	}
	s := &invopop.Schema{Title: p.Name, Description: describeProtocol(p)}
	if err := root(p, s, p.Name+".schema.json", p.Types, nil); err != nil {
		return nil, fmt.Errorf("jsonschema: bundle of %s: %w", p.Name, err)
	}
	return s, nil
}

// typeFile returns the standalone schema of the named type td.
func typeFile(p *idl.Protocol, td *idl.TypeDef) (*invopop.Schema, error) {
	var b builder
	s := b.typeDef(td)
	if b.err != nil {
		return nil, fmt.Errorf("jsonschema: type %s: %w", td.Name, b.err)
	}
	if err := root(p, s, td.Name+".json", nil, td.Type); err != nil {
		return nil, fmt.Errorf("jsonschema: type %s: %w", td.Name, err)
	}
	return s, nil
}

// methodFile returns the standalone schema of m's params, or of its result
// when result is true.
func methodFile(p *idl.Protocol, m *idl.Method, path string, result bool) (*invopop.Schema, error) {
	var b builder
	t, what := m.Params, "params"
	if result {
		t, what = m.Result, "result"
	}
	var s *invopop.Schema
	if t == nil {
		s = &invopop.Schema{Type: "null"}
	} else {
		s = b.typ(t, m.Name+" "+what)
	}
	s.Title = m.Name + " " + what
	annotate(s, m.Doc, m.Deprecated, "")
	for _, x := range m.Examples {
		v := x.Params
		if result {
			v = x.Result
		}
		if e := b.value(v, m.Name+" example"); e != nil {
			s.Examples = append(s.Examples, e)
		}
	}
	if b.err == nil {
		b.err = root(p, s, path, nil, t)
	}
	if b.err != nil {
		return nil, fmt.Errorf("jsonschema: %s of method %s: %w", what, m.Name, b.err)
	}
	return s, nil
}

// errorFile returns the standalone schema of e's data.
func errorFile(p *idl.Protocol, e *idl.ErrorDef, path string) (*invopop.Schema, error) {
	var b builder
	s := b.typ(e.Data, e.Name+" data")
	s.Title = e.Name + " data"
	annotate(s, e.Doc, "", fmt.Sprintf("The data member of error %s (code %d, message %q).", e.Name, e.Code, e.Message))
	if b.err == nil {
		b.err = root(p, s, path, nil, e.Data)
	}
	if b.err != nil {
		return nil, fmt.Errorf("jsonschema: data of error %s: %w", e.Name, b.err)
	}
	return s, nil
}

// root makes s the root of the file at schema/<path>: it sets $schema and
// $id and puts under $defs the types listed and those t refers to,
// directly or not.
func root(p *idl.Protocol, s *invopop.Schema, path string, types []*idl.TypeDef, t *idl.Type) error {
	s.Version = draft
	s.ID = invopop.ID(ID(p, path))
	seen := map[*idl.TypeDef]bool{}
	for _, td := range types {
		seen[td] = true
	}
	refs(t, seen)
	if len(seen) == 0 {
		return nil
	}
	s.Definitions = invopop.Definitions{}
	for td := range seen {
		if _, dup := s.Definitions[td.Name]; dup {
			return fmt.Errorf("two types are named %s", td.Name)
		}
		var b builder
		s.Definitions[td.Name] = b.typeDef(td)
		if b.err != nil {
			return fmt.Errorf("type %s: %w", td.Name, b.err)
		}
	}
	return nil
}

// refs adds to seen the named types t refers to, directly or not.
func refs(t *idl.Type, seen map[*idl.TypeDef]bool) {
	if t == nil {
		return
	}
	switch t.Kind {
	case idl.KindRef:
		if t.Ref != nil && !seen[t.Ref] {
			seen[t.Ref] = true
			refs(t.Ref.Type, seen)
		}
	case idl.KindArray, idl.KindMap:
		refs(t.Elem, seen)
	case idl.KindObject:
		for _, f := range t.Fields {
			refs(f.Type, seen)
		}
	case idl.KindUnion:
		for _, v := range t.Variants {
			refs(v.Type, seen)
		}
	}
}

// describeProtocol is the description of the bundle.
func describeProtocol(p *idl.Protocol) string {
	s := strings.TrimSpace(p.Doc)
	if p.Version != "" {
		if s != "" {
			s += "\n\n"
		}
		s += "Version " + p.Version + "."
	}
	return s
}

// Encode writes s as rpcgen writes schema files: JSON indented with two
// spaces, without HTML escapes, with a trailing newline.
func Encode(s *invopop.Schema) ([]byte, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encoding schema: %w", err)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return nil, fmt.Errorf("indenting schema: %w", err)
	}
	buf.WriteByte('\n')
	return unescapeHTML(buf.Bytes()), nil
}

// unescapeHTML turns the \u003c, \u003e and \u0026 escapes encoding/json
// writes back into <, > and &, leaving every other escape alone.
func unescapeHTML(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) {
			switch string(b[i+2 : i+6]) {
			case "003c":
				out, i = append(out, '<'), i+5
				continue
			case "003e":
				out, i = append(out, '>'), i+5
				continue
			case "0026":
				out, i = append(out, '&'), i+5
				continue
			}
		}
		out = append(out, b[i], b[i+1])
		i++
	}
	return out
}
