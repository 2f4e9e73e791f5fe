package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// MetaModel is the machine-readable description of LSP (metaModel.json in
// microsoft/vscode-languageserver-node). Only its structure is read; its
// documentation strings are decoded and then ignored.
type MetaModel struct {
	MetaData      MetaData       `json:"metaData"`
	Requests      []Request      `json:"requests"`
	Notifications []Notification `json:"notifications"`
	Structures    []Structure    `json:"structures"`
	Enumerations  []Enumeration  `json:"enumerations"`
	TypeAliases   []TypeAlias    `json:"typeAliases"`
}

// MetaData names the protocol version the meta model describes.
type MetaData struct {
	Version string `json:"version"`
}

// Meta is what every named element of the meta model may carry.
type Meta struct {
	Documentation string `json:"documentation"`
	Since         string `json:"since"`
	Proposed      bool   `json:"proposed"`
	Deprecated    string `json:"deprecated"`
}

// Request is a request method.
type Request struct {
	Method              string `json:"method"`
	MessageDirection    string `json:"messageDirection"`
	Params              Params `json:"params"`
	Result              *Type  `json:"result"`
	PartialResult       *Type  `json:"partialResult"`
	ErrorData           *Type  `json:"errorData"`
	RegistrationMethod  string `json:"registrationMethod"`
	RegistrationOptions *Type  `json:"registrationOptions"`
	Meta
}

// Notification is a notification method.
type Notification struct {
	Method              string `json:"method"`
	MessageDirection    string `json:"messageDirection"`
	Params              Params `json:"params"`
	RegistrationMethod  string `json:"registrationMethod"`
	RegistrationOptions *Type  `json:"registrationOptions"`
	Meta
}

// Params is a method's params: absent, one type, or a list of types sent by
// position.
type Params struct {
	Types      []*Type
	Positional bool
}

// UnmarshalJSON reads one type or a list of types.
func (p *Params) UnmarshalJSON(data []byte) error {
	if d := bytes.TrimSpace(data); len(d) > 0 && d[0] == '[' {
		p.Positional = true
		return strict(d, &p.Types)
	}
	var t Type
	if err := t.UnmarshalJSON(data); err != nil {
		return err
	}
	p.Types = []*Type{&t}
	return nil
}

// Structure is a named object type.
type Structure struct {
	Name       string     `json:"name"`
	Properties []Property `json:"properties"`
	Extends    []*Type    `json:"extends"`
	Mixins     []*Type    `json:"mixins"`
	Meta
}

// Property is a member of a structure or of a structure literal.
type Property struct {
	Name     string `json:"name"`
	Type     *Type  `json:"type"`
	Optional bool   `json:"optional"`
	Meta
}

// Enumeration is a named set of string or integer values.
type Enumeration struct {
	Name                 string             `json:"name"`
	Type                 *Type              `json:"type"`
	Values               []EnumerationEntry `json:"values"`
	SupportsCustomValues bool               `json:"supportsCustomValues"`
	Meta
}

// EnumerationEntry is one value of an enumeration.
type EnumerationEntry struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
	Meta
}

// TypeAlias names a type.
type TypeAlias struct {
	Name string `json:"name"`
	Type *Type  `json:"type"`
	Meta
}

// StructureLiteral is an object type written in place.
type StructureLiteral struct {
	Properties []Property `json:"properties"`
	Meta
}

// Type is one type expression of the meta model. Kind says which of the
// other fields are set.
type Type struct {
	Kind    string // base, reference, array, map, and, or, tuple, literal, stringLiteral, integerLiteral, booleanLiteral
	Name    string // base and reference
	Element *Type  // array
	Key     *Type  // map
	Value   *Type  // map
	Items   []*Type
	Literal *StructureLiteral
	String  string      // stringLiteral
	Number  json.Number // integerLiteral
	Bool    bool        // booleanLiteral
}

// UnmarshalJSON reads a type, rejecting members its kind does not have.
func (t *Type) UnmarshalJSON(data []byte) error {
	var head struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return err
	}
	t.Kind = head.Kind
	switch head.Kind {
	case "base", "reference":
		var v struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
		}
		if err := strict(data, &v); err != nil {
			return err
		}
		t.Name = v.Name
		if t.Kind == "base" && !baseTypes[t.Name] {
			return fmt.Errorf("unknown base type %q", t.Name)
		}
		if t.Name == "" {
			return fmt.Errorf("%s type without a name", t.Kind)
		}
		return nil
	case "array":
		var v struct {
			Kind    string `json:"kind"`
			Element *Type  `json:"element"`
		}
		err := strict(data, &v)
		t.Element = v.Element
		return required(err, "element", t.Element != nil)
	case "map":
		var v struct {
			Kind  string `json:"kind"`
			Key   *Type  `json:"key"`
			Value *Type  `json:"value"`
		}
		err := strict(data, &v)
		t.Key, t.Value = v.Key, v.Value
		return required(err, "key and value", t.Key != nil && t.Value != nil)
	case "and", "or", "tuple":
		var v struct {
			Kind  string  `json:"kind"`
			Items []*Type `json:"items"`
		}
		err := strict(data, &v)
		t.Items = v.Items
		return required(err, "items", len(t.Items) > 0)
	case "literal":
		var v struct {
			Kind  string            `json:"kind"`
			Value *StructureLiteral `json:"value"`
		}
		err := strict(data, &v)
		t.Literal = v.Value
		return required(err, "value", t.Literal != nil)
	case "stringLiteral":
		var v struct {
			Kind  string  `json:"kind"`
			Value *string `json:"value"`
		}
		err := strict(data, &v)
		if v.Value != nil {
			t.String = *v.Value
		}
		return required(err, "value", v.Value != nil)
	case "integerLiteral":
		var v struct {
			Kind  string      `json:"kind"`
			Value json.Number `json:"value"`
		}
		err := strict(data, &v)
		t.Number = v.Value
		return required(err, "value", v.Value != "")
	case "booleanLiteral":
		var v struct {
			Kind  string `json:"kind"`
			Value *bool  `json:"value"`
		}
		err := strict(data, &v)
		if v.Value != nil {
			t.Bool = *v.Value
		}
		return required(err, "value", v.Value != nil)
	}
	return fmt.Errorf("unknown type kind %q", head.Kind)
}

// baseTypes are the meta model's base type names.
var baseTypes = map[string]bool{
	"URI": true, "DocumentUri": true, "integer": true, "uinteger": true, "decimal": true,
	"RegExp": true, "string": true, "boolean": true, "null": true,
}

func required(err error, what string, ok bool) error {
	if err == nil && !ok {
		return fmt.Errorf("missing %s", what)
	}
	return err
}

// strict decodes data into v, rejecting members v does not declare: a
// meta model with constructs this importer does not know fails loudly
// instead of losing them.
func strict(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return fmt.Errorf("data after the JSON value")
	}
	return nil
}

// Parse reads a meta model. Errors name the element they are in
// (`structures[12] "Hover"`).
func Parse(data []byte) (*MetaModel, error) {
	var top struct {
		MetaData      MetaData          `json:"metaData"`
		Requests      []json.RawMessage `json:"requests"`
		Notifications []json.RawMessage `json:"notifications"`
		Structures    []json.RawMessage `json:"structures"`
		Enumerations  []json.RawMessage `json:"enumerations"`
		TypeAliases   []json.RawMessage `json:"typeAliases"`
	}
	if err := strict(data, &top); err != nil {
		return nil, fmt.Errorf("not an LSP meta model: %w", locate(data, err))
	}
	m := &MetaModel{MetaData: top.MetaData}
	var errs []string
	each := func(section string, raws []json.RawMessage, add func(json.RawMessage) (string, error)) {
		for i, raw := range raws {
			if name, err := add(raw); err != nil {
				errs = append(errs, fmt.Sprintf("%s[%d] %q: %v", section, i, name, err))
			}
		}
	}
	each("requests", top.Requests, func(raw json.RawMessage) (string, error) {
		var r Request
		err := strict(raw, &r)
		m.Requests = append(m.Requests, r)
		return r.Method, err
	})
	each("notifications", top.Notifications, func(raw json.RawMessage) (string, error) {
		var n Notification
		err := strict(raw, &n)
		m.Notifications = append(m.Notifications, n)
		return n.Method, err
	})
	each("structures", top.Structures, func(raw json.RawMessage) (string, error) {
		var s Structure
		err := strict(raw, &s)
		m.Structures = append(m.Structures, s)
		return s.Name, err
	})
	each("enumerations", top.Enumerations, func(raw json.RawMessage) (string, error) {
		var e Enumeration
		err := strict(raw, &e)
		m.Enumerations = append(m.Enumerations, e)
		return e.Name, err
	})
	each("typeAliases", top.TypeAliases, func(raw json.RawMessage) (string, error) {
		var a TypeAlias
		err := strict(raw, &a)
		m.TypeAliases = append(m.TypeAliases, a)
		return a.Name, err
	})
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return m, nil
}

// locate adds the line and column of a JSON syntax error.
func locate(data []byte, err error) error {
	var off int64
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
	default:
		return err
	}
	line, col := 1, 1
	for _, b := range data[:min(int(off), len(data))] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Errorf("%d:%d: %w", line, col, err)
}
