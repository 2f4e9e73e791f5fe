package golang

import (
	"encoding/json"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/idl"
)

// appendObject declares the AppendJSON of an object: the runtime encodes
// params and results through it, member by member, without reflection.
// Its output is exactly json.Marshal's, MarshalJSON included; objects with
// additional members keep json.Marshal alone.
func (g *generator) appendObject(f *file, def *idl.TypeDef) error {
	if def.Type.Additional != nil {
		return nil
	}
	body, err := g.normalize(def)
	if err != nil {
		return err
	}
	var members []jen.Code
	usesErr := false
	for _, fl := range def.Type.Fields {
		stmts, errs := g.appendMember(fl)
		members = append(members, stmts...)
		usesErr = usesErr || errs
	}
	if usesErr {
		body = append(body, jen.Var().Err().Error())
	}
	body = append(body, jen.Id("start").Op(":=").Len(jen.Id("b")))
	body = append(body, members...)
	body = append(body, jen.Return(impl("CloseObject").Call(jen.Id("b"), jen.Id("start")), jen.Nil()))
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
// it assigns err.
func (g *generator) appendValue(t *idl.Type, v, ptr jen.Code) (jen.Code, bool) {
	call := func(helper string, arg jen.Code) jen.Code {
		return jen.Id("b").Op("=").Add(impl(helper)).Call(jen.Id("b"), arg)
	}
	check := func(expr jen.Code) (jen.Code, bool) {
		return jen.If(jen.List(jen.Id("b"), jen.Err()).Op("=").Add(expr), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Err()),
		), true
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
		return check(impl("AppendFloat").Call(jen.Id("b"), v))
	case idl.KindObject:
		if def := objectDef(t); def != nil && def.Type.Additional == nil {
			return check(jen.Add(ptr).Dot("AppendJSON").Call(jen.Id("b")))
		}
	}
	return check(impl("AppendValue").Call(jen.Id("b"), ptr))
}

// objectDef returns the object type t refers to, through aliases, or nil.
func objectDef(t *idl.Type) *idl.TypeDef {
	for hops := 0; t != nil && t.Kind == idl.KindRef && hops < 64; hops++ {
		if t.Ref.Type.Kind == idl.KindObject {
			return t.Ref
		}
		t = t.Ref.Type
	}
	return nil
}
