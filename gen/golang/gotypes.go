package golang

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/idl"
)

// Import paths of the packages generated code uses.
const (
	jsonPkg    = "encoding/json"
	jsonrpcPkg = "github.com/rpcgen/rpcgen/runtime/jsonrpc"
	framingPkg = "github.com/rpcgen/rpcgen/runtime/framing"
	httpPkg    = "github.com/rpcgen/rpcgen/runtime/streamhttp"
	implPkg    = "github.com/rpcgen/rpcgen/runtime/rpcimpl"
)

// impl refers to name in package rpcimpl, which holds the encoders,
// decoders and helpers that generated method bodies call (and nothing a
// user of the generated package names).
func impl(name string) *jen.Statement { return jen.Qual(implPkg, name) }

// goType returns the Go type of a member of type t; optional tells whether
// the member may be absent.
func goType(t *idl.Type, optional bool) *jen.Statement {
	if threeState(t, optional) {
		return jen.Qual(jsonrpcPkg, "Nullable").Types(baseType(t))
	}
	if pointer(t, optional) {
		return jen.Op("*").Add(baseType(t))
	}
	return baseType(t)
}

// baseType returns the Go type of a non-null value of t.
func baseType(t *idl.Type) *jen.Statement {
	switch t.Kind {
	case idl.KindString:
		return jen.String()
	case idl.KindInteger:
		return intType(t.Width)
	case idl.KindNumber:
		return jen.Float64()
	case idl.KindBoolean:
		return jen.Bool()
	case idl.KindAny:
		return jen.Qual(jsonPkg, "RawMessage")
	case idl.KindArray:
		return jen.Index().Add(goType(t.Elem, false))
	case idl.KindMap:
		if t.Key != nil {
			return jen.Map(baseType(t.Key)).Add(goType(t.Elem, false))
		}
		return jen.Map(jen.String()).Add(goType(t.Elem, false))
	case idl.KindRef:
		return jen.Id(t.Ref.GoName)
	}
	// Objects, enums and unions only appear as the type of a TypeDef, and
	// a loaded protocol holds no invalid type.
	panic(fmt.Sprintf("golang: unexpected %s type at %s", t.Kind, t.Pos))
}

// pointer reports whether a member of type t is held through a pointer: it
// may be absent or null, and its Go type has no nil of its own.
func pointer(t *idl.Type, optional bool) bool {
	return (optional || nullable(t)) && !nilable(t) && !threeState(t, optional)
}

// threeState reports whether a member of type t is held in a
// jsonrpc.Nullable, which keeps absent, null and a value apart: it may be
// absent and its type accepts null. A member of type any keeps its raw
// JSON, null included, and needs none.
func threeState(t *idl.Type, optional bool) bool {
	return optional && nullable(t) && kindOf(t) != idl.KindAny
}

// nullable reports whether t, or a named type it refers to, accepts null.
func nullable(t *idl.Type) bool {
	for hops := 0; t != nil && hops < 64; hops++ {
		if t.Nullable {
			return true
		}
		if t.Kind != idl.KindRef {
			return false
		}
		t = t.Ref.Type
	}
	return false
}

// nilable reports whether the Go type of t is a slice or a map, which nil
// already marks as absent.
func nilable(t *idl.Type) bool {
	u := t.Underlying()
	return u != nil && (u.Kind == idl.KindArray || u.Kind == idl.KindMap || u.Kind == idl.KindAny)
}

// kindOf returns the kind of the value t stands for, following references.
func kindOf(t *idl.Type) idl.Kind {
	if u := t.Underlying(); u != nil {
		return u.Kind
	}
	return idl.KindInvalid
}

// literal returns the Go literal of a constant written in the IDL, for a
// value of kind k.
func literal(v *idl.Value, k idl.Kind) (jen.Code, string, error) {
	switch k {
	case idl.KindString:
		var s string
		if err := json.Unmarshal(v.JSON, &s); err != nil {
			return nil, "", fmt.Errorf("%s: constant %s: %w", v.Pos, v.JSON, err)
		}
		return jen.Lit(s), strconv.Quote(s), nil
	case idl.KindInteger:
		n, err := strconv.ParseInt(string(v.JSON), 10, 64)
		if err != nil {
			return nil, "", fmt.Errorf("%s: constant %s: %w", v.Pos, v.JSON, err)
		}
		return jen.Lit(int(n)), string(v.JSON), nil
	case idl.KindNumber:
		f, err := strconv.ParseFloat(string(v.JSON), 64)
		if err != nil {
			return nil, "", fmt.Errorf("%s: constant %s: %w", v.Pos, v.JSON, err)
		}
		return jen.Lit(f), string(v.JSON), nil
	case idl.KindBoolean:
		return jen.Lit(string(v.JSON) == "true"), string(v.JSON), nil
	}
	return nil, "", fmt.Errorf("%s: a constant of kind %s", v.Pos, k)
}

// zero returns the zero value of a scalar kind, as Go code.
func zero(k idl.Kind) jen.Code {
	switch k {
	case idl.KindString:
		return jen.Lit("")
	case idl.KindBoolean:
		return jen.False()
	}
	return jen.Lit(0)
}

// describe writes t for people, as in doc comments: "list of string".
func describe(t *idl.Type) string {
	s := t.String()
	if t.Format != "" {
		s += " (" + string(t.Format) + ")"
	}
	return s
}

// jsonKinds returns the JSON kinds of the values of t, in a fixed order:
// string, number, boolean, array, object.
func jsonKinds(t *idl.Type) []string {
	seen := map[*idl.TypeDef]bool{}
	set := map[string]bool{}
	var visit func(t *idl.Type)
	visit = func(t *idl.Type) {
		for t != nil && t.Kind == idl.KindRef {
			if seen[t.Ref] {
				return
			}
			seen[t.Ref] = true
			t = t.Ref.Type
		}
		if t == nil {
			return
		}
		switch t.Kind {
		case idl.KindString:
			set["string"] = true
		case idl.KindInteger, idl.KindNumber:
			set["number"] = true
		case idl.KindBoolean:
			set["boolean"] = true
		case idl.KindArray:
			set["array"] = true
		case idl.KindTuple:
			set["array"] = true
		case idl.KindObject:
			set[map[bool]string{false: "object", true: "array"}[t.Positional]] = true
		case idl.KindMap:
			set["object"] = true
		case idl.KindEnum:
			if t.EnumBase == idl.KindInteger {
				set["number"] = true
			} else {
				set["string"] = true
			}
		case idl.KindUnion:
			if t.Discriminator != "" {
				set["object"] = true
			}
			for _, v := range t.Variants {
				if t.Discriminator == "" {
					visit(v.Type)
				}
			}
		}
	}
	visit(t)
	var out []string
	for _, k := range []string{"string", "number", "boolean", "array", "object"} {
		if set[k] {
			out = append(out, k)
		}
	}
	return out
}

// title returns s with its first letter upper-cased.
func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
