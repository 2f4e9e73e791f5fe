package golang

import (
	"math/big"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/idl"
)

// An optional member is held as a plain value, absent when it is its Go
// type's zero value, unless someone can mean that zero value and mean
// something else by leaving the member out: then it is held through a
// pointer. README.md gives the rule and its reasons; exceptions lists the
// members of shipped protocols where the rule guesses wrong.

// member names one member of an object type of a protocol: the IDL names
// of the protocol, of the object that declares the member, and of the
// member.
type member struct{ protocol, object, name string }

// exceptions overrides the rule for members of the shipped protocols:
// true holds the member through a pointer, false as a plain value.
// README.md repeats this table with a reason for each row, and
// TestOptionalExceptions checks that every row names an optional member
// and changes what the rule alone would choose.
var exceptions = map[member]bool{
	// hermes: value "" clears the element; absent leaves it as it is.
	{"hermes", "Patch", "value"}: true,
	// LSP: absent means TextDocumentSyncKind None, its zero member.
	{"lsp", "TextDocumentSyncOptions", "change"}: false,
	// LSP: the Empty kind ("") only filters; an action of kind "" is an
	// action of no kind.
	{"lsp", "CodeAction", "kind"}: false,
	// LSP: "" is the text of an empty document, sent when the client was
	// asked to include the text; absent means the text was not sent.
	{"lsp", "DidSaveTextDocumentParams", "text"}: true,
	// autohand: allowed: false denies; absent means the answer is in
	// decision, and with neither the request is refused.
	{"autohand", "PermissionResponseParams", "allowed"}: true,
	// MCP: absent means the form offers no preset, false presets the box
	// unchecked.
	{"mcp", "BooleanSchema", "default"}: true,
}

// held reports whether a member may be absent and is held in a way that
// tells absent apart: through a pointer, a jsonrpc.Nullable, or as a list,
// map or raw value whose nil marks it absent. It is false for required
// members and for optional members held as plain values (see plain).
func (g *generator) held(fl *idl.Field) bool {
	return fl.Optional && !g.plain(fl)
}

// plain reports whether an optional member is held as a plain value: its
// zero value stands for absence, and encoders leave it out.
func (g *generator) plain(fl *idl.Field) bool {
	if !fl.Optional || nullable(fl.Type) {
		return false
	}
	if fl.DeclaredIn != nil {
		if ptr, ok := exceptions[member{g.p.Name, fl.DeclaredIn.Name, fl.Name}]; ok {
			return !ptr
		}
	}
	return plainByRule(fl)
}

// plainByRule is plain without the exceptions: a member of a kind whose
// zero value nobody can mean, or whose zero value means what absence
// means.
func plainByRule(fl *idl.Field) bool {
	u := fl.Type.Underlying()
	if u == nil {
		return false
	}
	switch u.Kind {
	case idl.KindUnion:
		return true // a union holding no variant is no value at all
	case idl.KindString:
		if c := u.Const; c != nil {
			return !isZero(c)
		}
		return fl.Default == nil || isZero(fl.Default) // "" as good as absent
	case idl.KindBoolean:
		if c := u.Const; c != nil {
			return !isZero(c)
		}
		return fl.Default == nil || isZero(fl.Default) // false as good as absent
	case idl.KindInteger, idl.KindNumber:
		if c := u.Const; c != nil {
			return !isZero(c)
		}
		return fl.Default != nil && isZero(fl.Default) || excludesZero(u)
	case idl.KindEnum:
		if !hasZeroMember(u) {
			if u.Open && u.EnumBase == idl.KindInteger {
				return fl.Default != nil && isZero(fl.Default) // any number, 0 too
			}
			return !u.Open || fl.Default == nil || isZero(fl.Default)
		}
		return fl.Default != nil && isZero(fl.Default)
	}
	// Objects ({} says something), tuples, and lists, maps and raw values,
	// which nil already marks absent.
	return false
}

// hasZeroMember reports whether an enum lists its base type's zero value
// ("" or 0) among its members: someone means it.
func hasZeroMember(t *idl.Type) bool {
	for _, v := range t.Values {
		if v.Value == "" || v.Value == int64(0) {
			return true
		}
	}
	return false
}

// excludesZero reports whether the range of a number type leaves 0 out.
func excludesZero(t *idl.Type) bool {
	sign := func(v *idl.Value) int {
		r, ok := new(big.Rat).SetString(string(v.JSON))
		if !ok {
			return 0
		}
		return r.Sign()
	}
	return t.Minimum != nil && sign(t.Minimum) > 0 || t.Maximum != nil && sign(t.Maximum) < 0
}

// nonZero returns the condition that a plain optional member x, a value
// of type t, is present: it is not its type's zero value.
func nonZero(t *idl.Type, x *jen.Statement) jen.Code {
	u := t.Underlying()
	k := u.Kind
	if k == idl.KindEnum {
		k = u.EnumBase
	}
	switch k {
	case idl.KindString:
		return x.Op("!=").Lit("")
	case idl.KindBoolean:
		return x
	case idl.KindUnion:
		return jen.Op("!").Add(x).Dot("IsZero").Call()
	}
	return x.Op("!=").Lit(0)
}

// nullIsAbsent returns the statements a decoder of a plain optional member
// runs first, taking null for an absent member, as it does for a member
// held through a pointer. The runtime's decoders of strings, numbers and
// booleans leave their target alone on null, but enums and unions refuse
// it, and a member with a constant records that it was sent.
func (g *generator) nullIsAbsent(fl *idl.Field) []jen.Code {
	if !g.plain(fl) || fl.Type.Const == nil && (fl.Type.Kind != idl.KindRef || !g.hasDecoder(fl.Type.Ref)) {
		return nil
	}
	return []jen.Code{jen.If(impl("JSONKind").Call(jen.Id("value")).Op("==").Lit("null")).Block(
		jen.Return(jen.Nil()),
	)}
}

// unionIsZero declares the IsZero method of a union: true when it holds no
// variant, as an absent optional member of its type does. encoding/json's
// omitzero and the generated encoders leave such a member out.
func (g *generator) unionIsZero(f *file, def *idl.TypeDef) {
	var none jen.Code = jen.True()
	for i, n := range g.variants[def] {
		if i == 0 {
			none = jen.Id("x").Dot(n).Op("==").Nil()
		} else {
			none = jen.Add(none).Op("&&").Id("x").Dot(n).Op("==").Nil()
		}
	}
	f.add(doc("IsZero reports whether x holds no variant, as an absent optional member does.").code().
		Func().Params(jen.Id("x").Id(def.GoName)).Id("IsZero").Params().Bool().Block(jen.Return(none)))
}
