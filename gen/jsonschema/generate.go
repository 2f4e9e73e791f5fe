package jsonschema

import (
	"bytes"
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
	// Most files repeat the $defs of others: each named type's schema is
	// built and encoded once.
	defs := defCache{}
	enc := encoder{defs: map[defKey][]byte{}}
	add := func(path string, s *invopop.Schema, err error) error {
		if err != nil {
			return err
		}
		enc.buf = enc.buf[:0]
		if err := enc.schema(s, 0); err != nil {
			return fmt.Errorf("jsonschema: %s: %w", path, err)
		}
		enc.buf = append(enc.buf, '\n')
		files = append(files, gen.File{Path: "schema/" + path, Content: bytes.Clone(enc.buf)})
		return nil
	}
	for _, td := range p.Types {
		s, err := typeFile(p, td, defs)
		if err := add(td.Name+".json", s, err); err != nil {
			return nil, err
		}
	}
	names := MethodFileNames(p)
	for _, m := range p.Methods {
		base := "methods/" + names[m.Name]
		if m.Params != nil {
			s, err := methodFile(p, m, base+".params.json", false, defs)
			if err := add(base+".params.json", s, err); err != nil {
				return nil, err
			}
		}
		if m.Kind == idl.Request {
			s, err := methodFile(p, m, base+".result.json", true, defs)
			if err := add(base+".result.json", s, err); err != nil {
				return nil, err
			}
		}
		if f := m.NotificationForm; f != nil && f.Params != nil {
			path := base + ".notification.params.json"
			s, err := methodFile(p, f, path, false, defs)
			if err := add(path, s, err); err != nil {
				return nil, err
			}
		}
	}
	for _, e := range p.Errors {
		if e.Data != nil {
			path := "errors/" + e.Name + ".data.json"
			s, err := errorFile(p, e, path, defs)
			if err := add(path, s, err); err != nil {
				return nil, err
			}
		}
	}
	s, err := bundle(p, defs)
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
	return bundle(p, nil)
}

// bundle is [Bundle], taking the schemas of named types from defs.
func bundle(p *idl.Protocol, defs defCache) (*invopop.Schema, error) {
	s := &invopop.Schema{Title: p.Name, Description: describeProtocol(p)}
	if err := root(p, s, p.Name+".schema.json", p.Types, nil, defs); err != nil {
		return nil, fmt.Errorf("jsonschema: bundle of %s: %w", p.Name, err)
	}
	return s, nil
}

// typeFile returns the standalone schema of the named type td.
func typeFile(p *idl.Protocol, td *idl.TypeDef, defs defCache) (*invopop.Schema, error) {
	var b builder
	s := b.typeDef(td)
	if b.err != nil {
		return nil, fmt.Errorf("jsonschema: type %s: %w", td.Name, b.err)
	}
	if err := root(p, s, td.Name+".json", nil, td.Type, defs); err != nil {
		return nil, fmt.Errorf("jsonschema: type %s: %w", td.Name, err)
	}
	return s, nil
}

// methodFile returns the standalone schema of m's params, or of its result
// when result is true.
func methodFile(p *idl.Protocol, m *idl.Method, path string, result bool, defs defCache) (*invopop.Schema, error) {
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
	if m.RequestForm != nil {
		what = "notification " + what
	}
	s.Title = m.Name + " " + what
	annotate(s, m.Doc, m.Deprecated, methodNotes(m, result))
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
		b.err = root(p, s, path, nil, t, defs)
	}
	if b.err != nil {
		return nil, fmt.Errorf("jsonschema: %s of method %s: %w", what, m.Name, b.err)
	}
	return s, nil
}

// methodNotes says what the schema of m's params (or result) cannot:
// that params may be left out, that the result is always null, that the
// request may also come as a notification.
func methodNotes(m *idl.Method, result bool) string {
	var notes []string
	switch {
	case !result && m.ParamsOptional:
		notes = append(notes, "The params may be left out.")
	case result && m.NullResult:
		notes = append(notes, "The result is always null.")
	}
	if m.AlsoNotification {
		notes = append(notes, "The request may also be sent as a notification, which gets no result.")
	}
	if f := m.RequestForm; f != nil {
		notes = append(notes, fmt.Sprintf("The params of %s sent as a notification, %s; the request of that name, %s, has its own params.", m.Name, fromTo(m.From), fromTo(f.From)))
	}
	return strings.Join(notes, " ")
}

// errorFile returns the standalone schema of e's data.
func errorFile(p *idl.Protocol, e *idl.ErrorDef, path string, defs defCache) (*invopop.Schema, error) {
	var b builder
	s := b.typ(e.Data, e.Name+" data")
	s.Title = e.Name + " data"
	annotate(s, e.Doc, "", fmt.Sprintf("The data member of error %s (code %d, message %q).", e.Name, e.Code, e.Message))
	if b.err == nil {
		b.err = root(p, s, path, nil, e.Data, defs)
	}
	if b.err != nil {
		return nil, fmt.Errorf("jsonschema: data of error %s: %w", e.Name, b.err)
	}
	return s, nil
}

// defCache holds the schema of each named type once built, for the $defs
// of every file of one protocol; a nil defCache builds them anew.
type defCache map[*idl.TypeDef]*invopop.Schema

// root makes s the root of the file at schema/<path>: it sets $schema and
// $id and puts under $defs the types listed and those t refers to,
// directly or not, taking their schemas from defs. The schemas in defs
// are shared by the files: nothing changes them once built.
func root(p *idl.Protocol, s *invopop.Schema, path string, types []*idl.TypeDef, t *idl.Type, defs defCache) error {
	s.Version = draft
	s.ID = invopop.ID(ID(p, path))
	s.Comments = gen.JSONComment(p)
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
		if d, ok := defs[td]; ok {
			s.Definitions[td.Name] = d
			continue
		}
		var b builder
		d := b.typeDef(td)
		if b.err != nil {
			return fmt.Errorf("type %s: %w", td.Name, b.err)
		}
		s.Definitions[td.Name] = d
		if defs != nil {
			defs[td] = d
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
		refs(t.Key, seen)
	case idl.KindObject:
		for _, f := range t.Fields {
			refs(f.Type, seen)
		}
		refs(t.Additional, seen)
	case idl.KindUnion:
		for _, v := range t.Variants {
			refs(v.Type, seen)
		}
	case idl.KindTuple:
		for _, it := range t.Items {
			refs(it, seen)
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

// fromTo says who sends a method, for notes: "from agent" or "from
// either side".
func fromTo(from string) string {
	if from == idl.FromBoth {
		return "from either side"
	}
	return "from " + from
}
