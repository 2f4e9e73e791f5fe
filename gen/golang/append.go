package golang

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/idl"
)

// appendObject declares the AppendJSON of an object: the runtime encodes
// params and results through it, member by member, without reflection.
// Its output is exactly json.Marshal's, MarshalJSON included; the
// additional members of an object that keeps them follow its declared
// ones.
func (g *generator) appendObject(f *file, def *idl.TypeDef) error {
	body, err := g.normalize(def)
	if err != nil {
		return err
	}
	var members []jen.Code
	var names []jen.Code
	usesErr := false
	for _, fl := range def.Type.Fields {
		stmts, errs := g.appendMember(fl)
		members = append(members, stmts...)
		usesErr = usesErr || errs
		names = append(names, jen.Lit(fl.Name))
	}
	if usesErr {
		body = append(body, jen.Var().Err().Error())
	}
	body = append(body, jen.Id("start").Op(":=").Len(jen.Id("b")))
	body = append(body, members...)
	if def.Type.Additional != nil {
		args := append([]jen.Code{jen.Id("b"), jen.Id("start"), jen.Id("x").Dot(extraField)}, names...)
		body = append(body, jen.Return(impl("AppendExtra").Call(args...)))
	} else {
		body = append(body, jen.Return(impl("CloseObject").Call(jen.Id("b"), jen.Id("start")), jen.Nil()))
	}
	f.add(doc("AppendJSON appends x to b encoded as JSON, exactly as json.Marshal encodes it, without reflection.").code().
		Func().Params(jen.Id("x").Id(def.GoName)).Id("AppendJSON").Params(jen.Id("b").Index().Byte()).
		Params(jen.Index().Byte(), jen.Error()).Block(body...))
	return nil
}

// appendMember returns the statements appending one member, left out when
// json.Marshal would leave it out, and whether they assign err.
func (g *generator) appendMember(fl *idl.Field) ([]jen.Code, bool) {
	x := jen.Id("x").Dot(fl.GoName)
	key, _ := json.Marshal(fl.Name) // a string always encodes
	text := jen.Lit("," + string(key) + ":")
	if !strings.Contains(string(key), "`") {
		text = jen.Id("`," + string(key) + ":`") // a raw string reads as the JSON it writes
	}
	name := jen.Id("b").Op("=").Append(jen.Id("b"), text.Op("..."))
	if fl.Raw {
		value, errs := appendCheck(impl("AppendRaw").Call(jen.Id("b"), x.Clone()))
		if fl.Optional {
			return []jen.Code{jen.If(jen.Len(x.Clone()).Op("!=").Lit(0)).Block(name, value)}, errs // omitempty
		}
		return []jen.Code{name, value}, errs
	}
	if g.plain(fl) {
		value, errs := g.appendValue(fl.Type, x.Clone(), x.Clone())
		return []jen.Code{jen.If(nonZero(fl.Type, x.Clone())).Block(name, value)}, errs
	}
	if threeState(fl.Type, fl.Optional) {
		null := jen.Lit("," + string(key) + ":null")
		if !strings.Contains(string(key), "`") {
			null = jen.Id("`," + string(key) + ":null`")
		}
		value, errs := g.appendValue(fl.Type, x.Clone().Dot("Value"), x.Clone().Dot("Value"))
		return []jen.Code{jen.Switch(x.Clone().Dot("State")).Block(
			jen.Case(jen.Qual(jsonrpcPkg, "Null")).Block(jen.Id("b").Op("=").Append(jen.Id("b"), null.Op("..."))),
			jen.Case(jen.Qual(jsonrpcPkg, "Present")).Block(name, value),
		)}, errs
	}
	if pointer(fl.Type, fl.Optional) {
		value, errs := g.appendValue(fl.Type, jen.Op("*").Add(x.Clone()), x.Clone())
		if fl.Optional {
			return []jen.Code{jen.If(x.Clone().Op("!=").Nil()).Block(name, value)}, errs
		}
		return []jen.Code{name, jen.If(x.Clone().Op("==").Nil()).Block(
			jen.Id("b").Op("=").Append(jen.Id("b"), jen.Lit("null").Op("...")),
		).Else().Block(value)}, errs
	}
	value, errs := g.appendValue(fl.Type, x.Clone(), x.Clone())
	if fl.Optional {
		present := x.Clone().Op("!=").Nil() // omitzero on a list or map
		if kindOf(fl.Type) == idl.KindAny {
			present = jen.Len(x.Clone()).Op("!=").Lit(0) // omitempty on json.RawMessage
		}
		return []jen.Code{jen.If(present).Block(name, value)}, errs
	}
	return []jen.Code{name, value}, errs
}

// appendValue returns the statement appending v, a value of type t (ptr
// is the same value through its pointer, when there is one), and whether
// it assigns err. Lists and maps of values that append without reflection
// are appended element by element; anything else goes through
// encoding/json.
func (g *generator) appendValue(t *idl.Type, v, ptr jen.Code) (jen.Code, bool) {
	call := func(helper string, arg jen.Code) jen.Code {
		return jen.Id("b").Op("=").Add(impl(helper)).Call(jen.Id("b"), arg)
	}
	u := t.Underlying()
	k := u.Kind
	if k == idl.KindEnum {
		k = u.EnumBase
	}
	switch k {
	case idl.KindString:
		return call("AppendString", v), false
	case idl.KindInteger:
		return call("AppendInt", v), false
	case idl.KindBoolean:
		return call("AppendBool", v), false
	case idl.KindNumber:
		return appendCheck(impl("AppendFloat").Call(jen.Id("b"), v))
	case idl.KindAny:
		return appendCheck(impl("AppendRaw").Call(jen.Id("b"), v))
	case idl.KindArray:
		if g.appendable(u.Elem, 0) {
			return g.appendList(u.Elem, v)
		}
	case idl.KindMap:
		if stringKeys(u) && g.appendable(u.Elem, 0) {
			return g.appendMap(u.Elem, v)
		}
	default:
		if appenderDef(t) != nil {
			return appendCheck(jen.Add(ptr).Dot("AppendJSON").Call(jen.Id("b")))
		}
	}
	return appendCheck(impl("AppendValue").Call(jen.Id("b"), ptr))
}

// appendCheck returns the statement assigning b and err from expr and
// returning err when it is not nil.
func appendCheck(expr jen.Code) (jen.Code, bool) {
	return jen.If(jen.List(jen.Id("b"), jen.Err()).Op("=").Add(expr), jen.Err().Op("!=").Nil()).Block(
		jen.Return(jen.Nil(), jen.Err()),
	), true
}

// maxInline bounds how deeply lists and maps are appended inline, for
// types that nest without end through aliases.
const maxInline = 8

// appendable reports whether values of t append without encoding/json:
// basic values, generated types with an AppendJSON, and lists and maps of
// those.
func (g *generator) appendable(t *idl.Type, depth int) bool {
	if depth > maxInline {
		return false
	}
	u := t.Underlying()
	switch u.Kind {
	case idl.KindString, idl.KindInteger, idl.KindBoolean, idl.KindNumber, idl.KindEnum, idl.KindAny:
		return true
	case idl.KindArray:
		return g.appendable(u.Elem, depth+1)
	case idl.KindMap:
		return stringKeys(u) && g.appendable(u.Elem, depth+1)
	}
	return appenderDef(t) != nil
}

// stringKeys reports whether the keys of the map t are strings, which
// encoding/json writes as they are, sorted.
func stringKeys(t *idl.Type) bool {
	if t.Key == nil {
		return true
	}
	k := t.Key.Underlying()
	return k.Kind == idl.KindString || k.Kind == idl.KindEnum && k.EnumBase == idl.KindString
}

// appendList returns the statement appending v, a list of elem, item by
// item; a nil list is null, as encoding/json writes it.
func (g *generator) appendList(elem *idl.Type, v jen.Code) (jen.Code, bool) {
	i, e := g.loopVars()
	g.depth++
	stmts, errs := g.appendItem(elem, false, jen.Id(e))
	g.depth--
	loop := append([]jen.Code{jen.If(jen.Id(i).Op(">").Lit(0)).Block(jen.Id("b").Op("=").Append(jen.Id("b"), jen.LitRune(',')))}, stmts...)
	return jen.If(jen.Add(v).Op("==").Nil()).Block(
		jen.Id("b").Op("=").Append(jen.Id("b"), jen.Lit("null").Op("...")),
	).Else().Block(
		jen.Id("b").Op("=").Append(jen.Id("b"), jen.LitRune('[')),
		jen.For(jen.List(jen.Id(i), jen.Id(e)).Op(":=").Range().Add(v)).Block(loop...),
		jen.Id("b").Op("=").Append(jen.Id("b"), jen.LitRune(']')),
	), errs
}

// appendMap returns the statement appending v, a map of elem with string
// keys, member by member in the order of their keys.
func (g *generator) appendMap(elem *idl.Type, v jen.Code) (jen.Code, bool) {
	_, e := g.loopVars()
	g.depth++
	stmts, errs := g.appendItem(elem, false, jen.Id(e))
	g.depth--
	var body []jen.Code
	if errs {
		body = append(body, jen.Var().Err().Error())
	}
	body = append(body, stmts...)
	body = append(body, jen.Return(jen.Id("b"), jen.Nil()))
	fn := jen.Func().Params(jen.Id("b").Index().Byte(), jen.Id(e).Add(goType(elem, false))).
		Params(jen.Index().Byte(), jen.Error()).Block(body...)
	return appendCheck(impl("AppendMap").Call(jen.Id("b"), v, fn))
}

// loopVars names the index and element of a list appended at the current
// depth of nesting.
func (g *generator) loopVars() (index, elem string) {
	if g.depth == 0 {
		return "i", "e"
	}
	n := strconv.Itoa(g.depth + 1)
	return "i" + n, "e" + n
}

// appenderDef returns the generated type with an AppendJSON method that t
// refers to, through aliases, or nil: objects, unions and tuples have one.
func appenderDef(t *idl.Type) *idl.TypeDef {
	for hops := 0; t != nil && t.Kind == idl.KindRef && hops < 64; hops++ {
		switch t.Ref.Type.Kind {
		case idl.KindObject, idl.KindUnion:
			return t.Ref
		case idl.KindTuple:
			return t.Ref
		}
		t = t.Ref.Type
	}
	return nil
}
