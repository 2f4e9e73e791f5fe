package golang

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/idl"
)

// rawMethods declares, for each raw member of an object (raw: true in the
// IDL, held as its JSON object), Set<Field> and Decode<Field>: they encode
// the application's own value into the member and decode the member into
// one, in one pass, without a map of its members.
func (g *generator) rawMethods(f *file, def *idl.TypeDef) {
	for _, fl := range def.Type.Fields {
		if !fl.Raw {
			continue
		}
		x := jen.Id("x").Dot(fl.GoName)
		set := fmt.Sprintf("Set%s sets %s to v encoded as a JSON object: with v's own AppendJSON or MarshalJSON method when it has one, else with encoding/json. A nil v, or one that encodes as null, clears it.", fl.GoName, fl.GoName)
		f.add(doc(set).code().
			Func().Params(jen.Id("x").Op("*").Id(def.GoName)).Id("Set"+fl.GoName).Params(jen.Id("v").Any()).Error().Block(
			jen.List(jen.Id("raw"), jen.Err()).Op(":=").Add(impl("EncodeObject")).Call(jen.Id("v")),
			jen.If(jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit(fl.Name+": %w"), jen.Err())),
			),
			x.Clone().Op("=").Id("raw"),
			jen.Return(jen.Nil()),
		))
		dec := fmt.Sprintf("Decode%s decodes %s into v, with v's own UnmarshalJSON method when it has one, else with encoding/json; an absent member decodes as {}. A failure is a -32602 *jsonrpc.Error naming the member at fault, which a handler may return as it is.", fl.GoName, fl.GoName)
		f.add(doc(dec).code().
			Func().Params(jen.Id("x").Id(def.GoName)).Id("Decode" + fl.GoName).Params(jen.Id("v").Any()).Error().Block(
			jen.Return(impl("DecodeRawInto").Call(jen.Lit(fl.Name), x.Clone(), jen.Id("v"))),
		))
	}
}

// rawMethodNames returns the names of the methods rawMethods declares for
// the field fl.
func rawMethodNames(fl *idl.Field) []string {
	if !fl.Raw {
		return nil
	}
	return []string{"Set" + fl.GoName, "Decode" + fl.GoName}
}
