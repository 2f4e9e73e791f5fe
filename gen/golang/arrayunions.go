package golang

import (
	"fmt"
	"slices"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/idl"
)

// arrayRule is the decision rule for arrays, as the doc comment of a union
// with several array variants states it.
const arrayRule = "An array is the array variant whose item type its first item would be, told apart as the variants of one union are: by JSON kind, and an object by the item type whose required members it holds and whose declared members leave the fewest of its members unexplained (of those, the one listed first); every item is then decoded as that variant's item. An empty array is the first array variant."

// decodeVariant returns the statements that decode b into variant i of
// the union def. A list decodes item by item, so that an item's error
// names its index.
func (g *generator) decodeVariant(def *idl.TypeDef, i int) []jen.Code {
	v := def.Type.Variants[i]
	field := jen.Id("v").Dot(g.variants[def][i])
	return []jen.Code{
		field.Clone().Op("=").New(baseType(v.Type)),
		jen.Err().Op("=").Add(g.decodeTo(v.Type, jen.Id("b"), field.Clone())),
	}
}

// decodeTo returns the expression decoding the JSON src, known to be
// valid, into ptr, a pointer to a value of base Go type baseType(t): as
// members are decoded (see decodeInto), through generated decoders and the
// runtime's reflection-free ones rather than json.Unmarshal.
func (g *generator) decodeTo(t *idl.Type, src jen.Code, ptr *jen.Statement) *jen.Statement {
	switch {
	case g.container(t):
		return g.decodeContainer(t, src, ptr)
	case t.Kind == idl.KindRef && g.hasDecoder(t.Ref):
		return ptr.Dot("UnmarshalJSON").Call(src)
	case checked(t):
		return rangeDecoder(t, src, ptr)
	}
	if helper := basicDecoder(t); helper != "" {
		return impl(helper).Call(src, ptr)
	}
	return jen.Qual(jsonPkg, "Unmarshal").Call(src, ptr)
}

// arraySwitch returns the statements that decode a JSON array b into the
// array variant of the union def that its first item chooses among the
// items of the array variants (see [idl.ItemUnion]), or into the first
// array variant when it is empty. The array is not decoded twice: its
// first item is looked at where it lies.
func (g *generator) arraySwitch(f *file, def *idl.TypeDef) []jen.Code {
	t := def.Type
	arrays := idl.ArrayChoices(t)
	union := idl.ItemUnion(t)
	items := idl.Choices(union)
	outer := func(c idl.Choice) int { return arrays[c.Variant].Variant }
	byMembers := idl.ByMembers(union)

	var labels []string
	for _, c := range arrays {
		labels = append(labels, idl.ArrayLabel(c))
	}
	noItem := []jen.Code{jen.Return(impl("AtIndex").Call(jen.Lit(0), jen.Qual("fmt", "Errorf").Call(
		jen.Lit(fmt.Sprintf("expected an item of %s, got JSON %%s", orList(labels))), jen.Id("itemKind"))))}
	other, _ := g.catchAll(def)
	if other >= 0 {
		noItem = g.otherValue(def)
	}

	// The JSON kinds each variant takes as a first item, in order;
	// "nothing" (an empty array) goes to the first array variant.
	kinds := map[int][]string{arrays[0].Variant: {"nothing"}}
	order := []int{arrays[0].Variant}
	taken := map[string]bool{"nothing": true}
	catchAll := -1
	for _, c := range items {
		if c.CatchAll {
			catchAll = outer(c)
			continue
		}
		for _, k := range jsonKinds(c.Type) {
			if taken[k] || k == "object" && byMembers {
				continue
			}
			taken[k] = true
			if !slices.Contains(order, outer(c)) {
				order = append(order, outer(c))
			}
			kinds[outer(c)] = append(kinds[outer(c)], k)
		}
	}
	var cases []jen.Code
	for _, i := range order {
		var lits []jen.Code
		for _, k := range kinds[i] {
			lits = append(lits, jen.Lit(k))
		}
		cases = append(cases, jen.Case(lits...).Block(g.decodeVariant(def, i)...))
	}
	fallback := noItem
	if catchAll >= 0 {
		fallback = g.decodeVariant(def, catchAll)
	}
	if byMembers {
		want := fmt.Sprintf("object matches the items of no array variant of %s; an item needs every required member of one item type: %s", def.Name, idl.ObjectRequirements(union))
		none := []jen.Code{jen.Return(impl("AtIndex").Call(jen.Lit(0), jen.Qual("errors", "New").Call(jen.Lit(want))))}
		if catchAll >= 0 || other >= 0 {
			none = fallback
		}
		table := tableName(def.GoName + "Item")
		cases = append(cases, jen.Case(jen.Lit("object")).Block(
			g.chooseObject(f, def, union, "item", table, "the first item of each array variant", outer, none)...))
	}
	cases = append(cases, jen.Default().Block(fallback...))
	return []jen.Code{
		jen.Var().Id("item").Index().Byte(),
		jen.If(jen.List(jen.Id("item"), jen.Err()).Op("=").Add(impl("FirstItem")).Call(jen.Id("b")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Switch(jen.Id("itemKind").Op(":=").Add(impl("JSONKind")).Call(jen.Id("item")), jen.Id("itemKind")).Block(cases...),
	}
}
