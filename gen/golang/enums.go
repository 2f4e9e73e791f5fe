package golang

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/idl"
)

// maxListed is the number of values an error message lists at most.
const maxListed = 10

// enumsFile declares the enums.
func (g *generator) enumsFile(f *file) error {
	for _, def := range g.p.Types {
		if def.Type.Kind == idl.KindEnum {
			g.enum(f, def)
		}
	}
	return nil
}

// enum declares an enum type, its values, Valid and UnmarshalJSON.
func (g *generator) enum(f *file, def *idl.TypeDef) {
	t := def.Type
	name := def.GoName
	base := jen.String()
	if t.EnumBase == idl.KindInteger {
		base = intType(t.Width)
	}
	f.add(g.typeDoc(def).code().Type().Id(name).Add(base))

	var consts, names []jen.Code
	for _, v := range t.Values {
		c := doc(sentence(v.Doc)).add(metaText(v.Since, v.Proposed)).deprecated(v.Deprecated)
		var lit jen.Code = jen.Lit(v.Value)
		if n, ok := v.Value.(int64); ok {
			lit = jen.Lit(int(n))
		}
		consts = append(consts, c.code().Id(name+v.GoName).Id(name).Op("=").Add(lit))
		names = append(names, jen.Id(name+v.GoName))
	}
	f.add(jen.Comment(fmt.Sprintf("The values of %s.", name)).Line().Const().Defs(consts...))

	valid := fmt.Sprintf("Valid reports whether x is one of the values of %s.", name)
	if t.Open {
		valid = fmt.Sprintf("Valid reports whether x is one of the known values of %s.", name)
	}
	f.add(doc(valid).code().
		Func().Params(jen.Id("x").Id(name)).Id("Valid").Params().Bool().Block(
		jen.Switch(jen.Id("x")).Block(jen.Case(names...).Block(jen.Return(jen.True()))),
		jen.Return(jen.False()),
	))

	read := impl(basicDecoder(&idl.Type{Kind: t.EnumBase})).Call(jen.Id("b"), jen.Op("&").Id("v"))
	if t.EnumBase == idl.KindInteger && t.Width != idl.Int64 {
		read = rangeDecoder(&idl.Type{Kind: idl.KindInteger, Width: t.Width}, jen.Id("b"), jen.Op("&").Id("v"))
	}
	decode := []jen.Code{
		jen.Var().Id("v").Add(baseType(&idl.Type{Kind: t.EnumBase, Width: t.Width})),
		jen.If(jen.Err().Op(":=").Add(read), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Err()),
		),
	}
	if t.Open {
		decode = append(decode, jen.Op("*").Id("x").Op("=").Id(name).Call(jen.Id("v")), jen.Return(jen.Nil()))
		f.add(doc(fmt.Sprintf("UnmarshalJSON decodes %s, keeping values it does not list: other values are accepted.", aOrAn(name))).code().
			Func().Params(jen.Id("x").Op("*").Id(name)).Id("UnmarshalJSON").Params(jen.Id("b").Index().Byte()).Error().Block(decode...))
		return
	}
	want := "a value of " + name
	if values := enumValues(t); len(values) <= maxListed {
		want = orList(values)
	}
	var got jen.Code = jen.Id("v")
	if t.EnumBase == idl.KindString {
		got = jen.Qual(jsonrpcPkg, "Truncate").Call(jen.Id("v")) // the peer's value, echoed in -32602
	}
	decode = append(decode,
		jen.If(jen.Op("!").Id(name).Call(jen.Id("v")).Dot("Valid").Call()).Block(
			jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit(fmt.Sprintf("unknown value %s; want %s", verbOf(t.EnumBase), want)), got)),
		),
		jen.Op("*").Id("x").Op("=").Id(name).Call(jen.Id("v")),
		jen.Return(jen.Nil()),
	)
	f.add(doc(fmt.Sprintf("UnmarshalJSON decodes %s, refusing values it does not list.", aOrAn(name))).code().
		Func().Params(jen.Id("x").Op("*").Id(name)).Id("UnmarshalJSON").Params(jen.Id("b").Index().Byte()).Error().Block(decode...))
}

// verbOf is the fmt verb that writes a value of kind k as JSON does.
func verbOf(k idl.Kind) string {
	if k == idl.KindString {
		return "%q"
	}
	return "%d"
}
