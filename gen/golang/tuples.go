package golang

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/idl"
)

// tuple declares a tuple type: an array [N]T when its items share one Go
// type, else a struct whose fields V0, V1, ... are the items. Both decode
// only arrays of exactly N items, naming the item at fault, and encode
// as arrays.
func (g *generator) tuple(f *file, def *idl.TypeDef) {
	t := def.Type
	n := len(t.Items)
	c := g.typeDoc(def)
	if sameItems(t) {
		f.add(c.code().Type().Id(def.GoName).Index(jen.Lit(n)).Add(goType(t.Items[0], false)))
		stmts, usesErr := g.appendItem(t.Items[0], false, jen.Id("e"))
		loop := append([]jen.Code{jen.If(jen.Id("i").Op(">").Lit(0)).Block(jen.Id("b").Op("=").Append(jen.Id("b"), jen.LitRune(',')))}, stmts...)
		g.encodeArray(f, def, nil, usesErr, []jen.Code{jen.For(jen.List(jen.Id("i"), jen.Id("e")).Op(":=").Range().Id("x")).Block(loop...)})
		g.decodeItems(f, def, n, n, func(i jen.Code) []jen.Code {
			return []jen.Code{jen.Return(g.itemDecode(t.Items[0], false, false, jen.Id("v").Index(i)))}
		})
		return
	}
	var fields []jen.Code
	for i, it := range t.Items {
		fields = append(fields, jen.Id(fmt.Sprintf("V%d", i)).Add(goType(it, false)))
	}
	f.add(c.code().Type().Id(def.GoName).Struct(fields...))
	var body []jen.Code
	usesErr := false
	for i, it := range t.Items {
		if i > 0 {
			body = append(body, jen.Id("b").Op("=").Append(jen.Id("b"), jen.LitRune(',')))
		}
		stmts, errs := g.appendItem(it, false, jen.Id("x").Dot(fmt.Sprintf("V%d", i)))
		body = append(body, stmts...)
		usesErr = usesErr || errs
	}
	g.encodeArray(f, def, nil, usesErr, body)
	g.decodeItems(f, def, n, n, func(jen.Code) []jen.Code {
		var cases []jen.Code
		for i, it := range t.Items {
			cases = append(cases, jen.Case(jen.Lit(i)).Block(jen.Return(g.itemDecode(it, false, false, jen.Id("v").Dot(fmt.Sprintf("V%d", i))))))
		}
		return []jen.Code{jen.Switch(jen.Id("i")).Block(cases...), jen.Return(jen.Nil())}
	})
}

// sameItems reports whether every item of a tuple has the same type.
func sameItems(t *idl.Type) bool {
	for _, it := range t.Items[1:] {
		if it.String() != t.Items[0].String() || it.Format != t.Items[0].Format {
			return false
		}
	}
	return true
}

// positional declares the encoder and decoder of an object sent as a
// JSON array of its fields in order, its optional fields last and left
// out from the end when absent (null stands for an absent one followed
// by a present one).
func (g *generator) positional(f *file, def *idl.TypeDef) error {
	fields := def.Type.Fields
	required := 0
	for _, fl := range fields {
		if !fl.Optional {
			required++
		}
	}
	head, err := g.normalize(def)
	if err != nil {
		return err
	}
	var body []jen.Code
	if required < len(fields) {
		var cases []jen.Code
		for i := len(fields) - 1; i >= required; i-- {
			cases = append(cases, jen.Case(g.present(fields[i])).Block(jen.Id("n").Op("=").Lit(i+1)))
		}
		body = append(body, jen.Id("n").Op(":=").Lit(required), jen.Switch().Block(cases...))
	}
	usesErr := false
	for i, fl := range fields {
		var stmts []jen.Code
		if i > 0 {
			stmts = append(stmts, jen.Id("b").Op("=").Append(jen.Id("b"), jen.LitRune(',')))
		}
		value, errs := g.appendItem(fl.Type, g.held(fl), jen.Id("x").Dot(fl.GoName))
		if g.plain(fl) { // null stands for an absent member followed by a present one
			value = []jen.Code{jen.If(nonZero(fl.Type, jen.Id("x").Dot(fl.GoName))).Block(value...).Else().Block(
				jen.Id("b").Op("=").Append(jen.Id("b"), jen.Lit("null").Op("...")),
			)}
		}
		stmts = append(stmts, value...)
		usesErr = usesErr || errs
		if fl.Optional {
			stmts = []jen.Code{jen.If(jen.Id("n").Op(">").Lit(i)).Block(stmts...)}
		}
		body = append(body, stmts...)
	}
	g.encodeArray(f, def, head, usesErr, body)
	g.decodeItems(f, def, required, len(fields), func(jen.Code) []jen.Code {
		var cases []jen.Code
		for i, fl := range fields {
			decode := append(g.nullIsAbsent(fl), jen.Return(g.itemDecode(fl.Type, fl.Optional, g.held(fl), jen.Id("v").Dot(fl.GoName))))
			cases = append(cases, jen.Case(jen.Lit(i)).Block(decode...))
		}
		return []jen.Code{jen.Switch(jen.Id("i")).Block(cases...), jen.Return(jen.Nil())}
	})
	return nil
}

// present returns the condition that an optional field of x is present.
func (g *generator) present(fl *idl.Field) jen.Code {
	x := jen.Id("x").Dot(fl.GoName)
	switch {
	case g.plain(fl):
		return nonZero(fl.Type, x)
	case threeState(fl.Type, true):
		return x.Dot("State").Op("!=").Qual(jsonrpcPkg, "Absent")
	case kindOf(fl.Type) == idl.KindAny:
		return jen.Len(x).Op("!=").Lit(0)
	}
	return x.Op("!=").Nil()
}

// encodeArray declares the MarshalJSON and AppendJSON of a type sent as
// an array: head runs first, then body appends the items after "[".
func (g *generator) encodeArray(f *file, def *idl.TypeDef, head []jen.Code, usesErr bool, body []jen.Code) {
	f.add(doc("MarshalJSON encodes x as a JSON array.").code().
		Func().Params(jen.Id("x").Id(def.GoName)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(jen.Id("x").Dot("AppendJSON").Call(jen.Nil())),
	))
	all := head
	if usesErr {
		all = append(all, jen.Var().Err().Error())
	}
	all = append(all, jen.Id("b").Op("=").Append(jen.Id("b"), jen.LitRune('[')))
	all = append(all, body...)
	all = append(all, jen.Return(jen.Append(jen.Id("b"), jen.LitRune(']')), jen.Nil()))
	f.add(doc("AppendJSON appends x to b encoded as a JSON array, without reflection.").code().
		Func().Params(jen.Id("x").Id(def.GoName)).Id("AppendJSON").Params(jen.Id("b").Index().Byte()).
		Params(jen.Index().Byte(), jen.Error()).Block(all...))
}

// decodeItems declares the UnmarshalJSON of a type sent as an array of
// min to max items; item returns the statements decoding item i (named
// by the Go expression it is given) from value into v.
func (g *generator) decodeItems(f *file, def *idl.TypeDef, min, max int, item func(i jen.Code) []jen.Code) {
	count := fmt.Sprint(min)
	if min != max {
		count = fmt.Sprintf("%d to %d", min, max)
	}
	f.add(doc(fmt.Sprintf("UnmarshalJSON decodes a JSON array of %s items into x, naming the item at fault when one does not decode.", count)).code().
		Func().Params(jen.Id("x").Op("*").Id(def.GoName)).Id("UnmarshalJSON").Params(jen.Id("b").Index().Byte()).Error().Block(
		jen.Var().Id("v").Id(def.GoName),
		jen.Err().Op(":=").Add(impl("DecodeItems")).Call(jen.Id("b"), jen.Lit(min), jen.Lit(max),
			jen.Func().Params(jen.Id("i").Int(), jen.Id("value").Index().Byte()).Error().Block(item(jen.Id("i"))...)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Op("*").Id("x").Op("=").Id("v"),
		jen.Return(jen.Nil()),
	))
}

// itemDecode returns the expression decoding value into target, an item
// of type t held as goType(t, held); a required item that is not nullable
// must not be null.
func (g *generator) itemDecode(t *idl.Type, optional, held bool, target *jen.Statement) jen.Code {
	decode := g.decodeInto(t, held, jen.Id("value"), target)
	if !optional && !nullable(t) && kindOf(t) != idl.KindAny {
		return impl("NonNull").Call(jen.Id("value"), decode)
	}
	return decode
}

// appendItem returns the statements appending x, an item of type t, or
// null when it has no value, and whether they assign err.
func (g *generator) appendItem(t *idl.Type, optional bool, x *jen.Statement) ([]jen.Code, bool) {
	null := jen.Id("b").Op("=").Append(jen.Id("b"), jen.Lit("null").Op("..."))
	switch {
	case threeState(t, optional):
		value, errs := g.appendValue(t, x.Clone().Dot("Value"), x.Clone().Dot("Value"))
		return []jen.Code{jen.If(x.Clone().Dot("State").Op("==").Qual(jsonrpcPkg, "Present")).Block(value).Else().Block(null)}, errs
	case pointer(t, optional):
		value, errs := g.appendValue(t, jen.Op("*").Add(x.Clone()), x.Clone())
		return []jen.Code{jen.If(x.Clone().Op("==").Nil()).Block(null).Else().Block(value)}, errs
	case optional && kindOf(t) == idl.KindAny:
		value, errs := g.appendValue(t, x.Clone(), x.Clone())
		return []jen.Code{jen.If(jen.Len(x.Clone()).Op("==").Lit(0)).Block(null).Else().Block(value)}, errs
	}
	value, errs := g.appendValue(t, x.Clone(), x.Clone())
	return []jen.Code{value}, errs
}
