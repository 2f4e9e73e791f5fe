package golang

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/idl"
)

// unionMethods are the methods generated for unions, which no variant
// field may be named.
var unionMethods = append([]string{"Value"}, methodNames...)

// sharedGoTypes returns, for each variant of the union def, the variants
// listed before it whose Go type is the same (two string formats, say):
// a type switch cannot tell such variants apart, nor can type inference.
func sharedGoTypes(def *idl.TypeDef) map[int][]int {
	seen := map[string][]int{}
	shared := map[int][]int{}
	for i, v := range def.Type.Variants {
		key := baseType(v.Type).GoString()
		if prev := seen[key]; len(prev) > 0 {
			shared[i] = prev
		}
		seen[key] = append(seen[key], i)
	}
	return shared
}

// unionConstructors returns the names of the constructors of the union
// def whose variant fields are named names: one generic New<Union> whose
// type argument picks the variant, or, when two variants share a Go type,
// New<Union><Variant> per variant.
func unionConstructors(def *idl.TypeDef, names []string) []string {
	if len(sharedGoTypes(def)) == 0 {
		return []string{"New" + def.GoName}
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "New" + def.GoName + n
	}
	return out
}

// unionAPI declares the constructors of the union def and its Value
// method.
func (g *generator) unionAPI(f *file, def *idl.TypeDef, catchAll int) {
	name := def.GoName
	names := g.variants[def]
	ctors := unionConstructors(def, names)
	if len(ctors) > 1 {
		for i, v := range def.Type.Variants {
			holding := jen.Op("&").Id("v")
			if i == catchAll {
				holding = jen.Id("v")
			}
			f.add(doc(fmt.Sprintf("%s returns %s holding v as its %s variant.", ctors[i], aOrAn(name), names[i])).code().
				Func().Id(ctors[i]).Params(jen.Id("v").Add(baseType(v.Type))).Id(name).Block(
				jen.Return(jen.Id(name).Values(jen.Dict{jen.Id(names[i]): holding})),
			))
		}
	} else {
		var terms []jen.Code
		var cases []jen.Code
		for i, v := range def.Type.Variants {
			terms = append(terms, baseType(v.Type))
			holding := jen.Op("&").Id("v")
			if i == catchAll {
				holding = jen.Id("v")
			}
			cases = append(cases, jen.Case(baseType(v.Type)).Block(jen.Id("x").Dot(names[i]).Op("=").Add(holding)))
		}
		f.add(doc(fmt.Sprintf("%s returns %s holding v, in the field of v's type.", ctors[0], aOrAn(name))).code().
			Func().Id(ctors[0]).Types(jen.Id("V").Union(terms...)).Params(jen.Id("v").Id("V")).Id(name).Block(
			jen.Var().Id("x").Id(name),
			jen.Switch(jen.Id("v").Op(":=").Any().Parens(jen.Id("v")).Assert(jen.Type())).Block(cases...),
			jen.Return(jen.Id("x")),
		))
	}

	cases := []jen.Code{jen.Case(jen.Id("x").Op("==").Nil()).Block(jen.Return(jen.Nil()))}
	for i := range def.Type.Variants {
		held := jen.Op("*").Id("x").Dot(names[i])
		if i == catchAll {
			held = jen.Id("x").Dot(names[i])
		}
		cases = append(cases, jen.Case(jen.Id("x").Dot(names[i]).Op("!=").Nil()).Block(jen.Return(held)))
	}
	c := doc("Value returns the variant x holds, as a value of its Go type, for a type switch; nil when x is nil or holds none.")
	if shared := sharedGoTypes(def); len(shared) > 0 {
		for i := range def.Type.Variants {
			if prev := shared[i]; len(prev) > 0 {
				c.addf("%s and %s share one Go type: read the fields to tell them apart.", names[prev[len(prev)-1]], names[i])
			}
		}
	}
	f.add(c.code().Func().Params(jen.Id("x").Op("*").Id(name)).Id("Value").Params().Any().Block(
		jen.Switch().Block(cases...),
		jen.Return(jen.Nil()),
	))
}

// linkedType describes t for a doc comment, a named type as a doc link:
// "[HoverOptions]", "a list of [TextEdit]", "string (uri)".
func linkedType(t *idl.Type) string {
	switch {
	case t.Kind == idl.KindRef:
		return "[" + t.Ref.GoName + "]"
	case t.Kind == idl.KindArray && t.Elem.Kind == idl.KindRef:
		return "a list of [" + t.Elem.Ref.GoName + "]"
	}
	return describe(t)
}
