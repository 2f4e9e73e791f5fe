package golang

import (
	"github.com/dave/jennifer/jen"
)

// helpersFile declares the unexported helpers the other files call.
func (g *generator) helpersFile(f *file) error {
	byte_ := func() *jen.Statement { return jen.Index().Byte() }
	if g.helpers["nonNull"] {
		f.add(doc("nonNull returns err, or an error when the member value is null: the member is required and not nullable.").code().
			Func().Id("nonNull").Params(jen.Id("value").Add(byte_()), jen.Err().Error()).Error().Block(
			jen.If(jen.String().Call(jen.Id("value")).Op("==").Lit("null")).Block(
				jen.Return(jen.Qual("errors", "New").Call(jen.Lit("must not be null"))),
			),
			jen.Return(jen.Err()),
		))
	}
	if g.helpers["unmarshal"] {
		f.add(doc("unmarshal decodes one element of a list or map.").code().
			Func().Id("unmarshal").Types(jen.Id("T").Any()).Params(jen.Id("b").Add(byte_()), jen.Id("v").Op("*").Id("T")).Error().Block(
			jen.Return(jen.Qual(jsonPkg, "Unmarshal").Call(jen.Id("b"), jen.Id("v"))),
		))
	}
	if g.helpers["decodeArray"] {
		f.add(doc("decodeArray decodes the JSON array b into *v with decode, one element at a time, placing an element's error at its index.").code().
			Func().Id("decodeArray").Types(jen.Id("T").Any()).Params(
			jen.Id("b").Add(byte_()), jen.Id("v").Op("*").Index().Id("T"), jen.Id("decode").Func().Params(byte_(), jen.Op("*").Id("T")).Error(),
		).Error().Block(
			jen.Var().Id("items").Index().Qual(jsonPkg, "RawMessage"),
			jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("b"), jen.Op("&").Id("items")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Err()),
			),
			jen.If(jen.Id("items").Op("==").Nil()).Block(
				jen.Op("*").Id("v").Op("=").Nil(),
				jen.Return(jen.Nil()),
			),
			jen.Id("out").Op(":=").Make(jen.Index().Id("T"), jen.Len(jen.Id("items"))),
			jen.For(jen.List(jen.Id("i"), jen.Id("item")).Op(":=").Range().Id("items")).Block(
				jen.If(jen.Err().Op(":=").Id("decode").Call(jen.Id("item"), jen.Op("&").Id("out").Index(jen.Id("i"))), jen.Err().Op("!=").Nil()).Block(
					jen.Return(jen.Qual(jsonrpcPkg, "AtIndex").Call(jen.Id("i"), jen.Err())),
				),
			),
			jen.Op("*").Id("v").Op("=").Id("out"),
			jen.Return(jen.Nil()),
		))
	}
	if g.helpers["decodeMap"] {
		f.add(doc("decodeMap decodes the JSON object b into *v with decode, one member at a time, placing a member's error at its key.").code().
			Func().Id("decodeMap").Types(jen.Id("T").Any()).Params(
			jen.Id("b").Add(byte_()), jen.Id("v").Op("*").Map(jen.String()).Id("T"), jen.Id("decode").Func().Params(byte_(), jen.Op("*").Id("T")).Error(),
		).Error().Block(
			jen.If(jen.String().Call(jen.Id("b")).Op("==").Lit("null")).Block(
				jen.Op("*").Id("v").Op("=").Nil(),
				jen.Return(jen.Nil()),
			),
			jen.Id("out").Op(":=").Map(jen.String()).Id("T").Values(),
			jen.Err().Op(":=").Qual(jsonrpcPkg, "DecodeObject").Call(jen.Id("b"), jen.Func().Params(jen.List(jen.Id("key"), jen.Id("value")).Add(byte_())).Error().Block(
				jen.Var().Id("x").Id("T"),
				jen.If(jen.Err().Op(":=").Id("decode").Call(jen.Id("value"), jen.Op("&").Id("x")), jen.Err().Op("!=").Nil()).Block(
					jen.Return(jen.Qual(jsonrpcPkg, "AtField").Call(jen.String().Call(jen.Id("key")), jen.Err())),
				),
				jen.Id("out").Index(jen.String().Call(jen.Id("key"))).Op("=").Id("x"),
				jen.Return(jen.Nil()),
			)),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.Op("*").Id("v").Op("=").Id("out"),
			jen.Return(jen.Nil()),
		))
	}
	if g.helpers["jsonKind"] {
		f.add(doc(`jsonKind returns the kind of the JSON value b: "string", "number", "boolean", "array", "object" or "null".`).code().
			Func().Id("jsonKind").Params(jen.Id("b").Add(byte_())).String().Block(
			jen.For(jen.List(jen.Id("_"), jen.Id("c")).Op(":=").Range().Id("b")).Block(
				jen.Switch(jen.Id("c")).Block(
					jen.Case(jen.LitRune(' '), jen.LitRune('\t'), jen.LitRune('\r'), jen.LitRune('\n')).Block(jen.Continue()),
					jen.Case(jen.LitRune('"')).Block(jen.Return(jen.Lit("string"))),
					jen.Case(jen.LitRune('t'), jen.LitRune('f')).Block(jen.Return(jen.Lit("boolean"))),
					jen.Case(jen.LitRune('[')).Block(jen.Return(jen.Lit("array"))),
					jen.Case(jen.LitRune('{')).Block(jen.Return(jen.Lit("object"))),
					jen.Case(jen.LitRune('n')).Block(jen.Return(jen.Lit("null"))),
				),
				jen.Return(jen.Lit("number")),
			),
			jen.Return(jen.Lit("nothing")),
		))
	}
	return nil
}
