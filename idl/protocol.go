package idl

import (
	"fmt"
	"strings"
)

// Type returns the type named name (as written in the IDL, or the
// synthesized name of an inline type), or nil.
func (p *Protocol) Type(name string) *TypeDef {
	for _, t := range p.Types {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Method returns the method whose wire name is name, or nil.
func (p *Protocol) Method(name string) *Method {
	for _, m := range p.Methods {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// Error returns the error named name, or nil.
func (p *Protocol) Error(name string) *ErrorDef {
	for _, e := range p.Errors {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// ErrorByCode returns the error with the given code, or nil.
func (p *Protocol) ErrorByCode(code int64) *ErrorDef {
	for _, e := range p.Errors {
		if e.Code == code {
			return e
		}
	}
	return nil
}

// Role returns the role named name, or nil.
func (p *Protocol) Role(name string) *Role {
	for i := range p.Roles {
		if p.Roles[i].Name == name {
			return &p.Roles[i]
		}
	}
	return nil
}

// Field returns the field of an object type whose JSON name is name, or
// nil.
func (t *Type) Field(name string) *Field {
	for _, f := range t.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Underlying follows references (through named aliases) to the type they
// stand for. It returns t itself when t is not a reference, and nil for a
// reference that cannot be followed.
func (t *Type) Underlying() *Type { return underlying(t) }

// String writes t in the IDL's compact syntax, e.g. "[]Position",
// "string | null" or "'idle' | 'busy'"; objects are written "object".
func (t *Type) String() string {
	if t == nil {
		return "null"
	}
	var s string
	switch t.Kind {
	case KindRef:
		s = "?"
		if t.Ref != nil {
			s = t.Ref.Name
		}
	case KindArray:
		s = "[]" + wrap(t.Elem)
	case KindTuple:
		var parts []string
		for _, it := range t.Items {
			parts = append(parts, it.String())
		}
		s = "[" + strings.Join(parts, ", ") + "]"
	case KindMap:
		key := "string"
		if t.Key != nil {
			key = t.Key.String()
		}
		s = "map<" + key + ", " + t.Elem.String() + ">"
	case KindEnum:
		var parts []string
		for _, v := range t.Values {
			if s, ok := v.Value.(string); ok {
				parts = append(parts, "'"+s+"'")
			} else {
				parts = append(parts, fmt.Sprint(v.Value))
			}
		}
		s = strings.Join(parts, " | ")
	case KindUnion:
		var parts []string
		for _, v := range t.Variants {
			parts = append(parts, wrap(v.Type))
		}
		s = strings.Join(parts, " | ")
	default:
		s = t.Kind.String()
		if t.Kind == KindInteger {
			s = t.Width.String()
		}
		if t.Const != nil {
			s = string(t.Const.JSON)
			if t.Kind == KindString {
				s = "'" + strings.Trim(s, `"`) + "'"
			}
		}
	}
	if t.Nullable {
		s += " | null"
	}
	return s
}

// wrap writes t, in parentheses when it holds a "|".
func wrap(t *Type) string {
	s := t.String()
	if strings.Contains(s, "|") {
		return "(" + s + ")"
	}
	return s
}
