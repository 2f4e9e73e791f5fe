package golang

import (
	"fmt"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/idl"
)

// unionsFile declares the unions.
func (g *generator) unionsFile(f *file) error {
	for _, def := range g.p.Types {
		if def.Type.Kind == idl.KindUnion {
			g.union(f, def)
		}
	}
	return nil
}

// union declares a union struct, a constructor per variant, MarshalJSON
// and UnmarshalJSON.
func (g *generator) union(f *file, def *idl.TypeDef) {
	t := def.Type
	name := def.GoName
	names := g.variants[def]
	c := g.typeDoc(def)
	var items []string
	byMembers := false
	for i, v := range t.Variants {
		item := fmt.Sprintf("  - %s: %s", names[i], describe(v.Type))
		switch {
		case t.Discriminator != "":
			item = fmt.Sprintf("  - %s: %s, whose %q member is %q", names[i], v.Type.Ref.GoName, t.Discriminator, v.Tag)
		case len(v.Distinguishing) > 0:
			item += ", the object with " + memberList(v.Distinguishing)
			byMembers = true
		}
		items = append(items, item)
	}
	how := "the kind of JSON value they are"
	switch {
	case t.Discriminator != "":
		how = fmt.Sprintf("their %q member", t.Discriminator)
	case byMembers:
		how += ", and objects by the members they hold"
	}
	c.addf("Exactly one field is set. On the wire the value is that variant alone, and the variants are told apart by %s:", how)
	for _, item := range items {
		c.paras[len(c.paras)-1] += "\n" + item
	}
	var fields []jen.Code
	for i, v := range t.Variants {
		fields = append(fields, jen.Id(names[i]).Op("*").Add(baseType(v.Type)))
	}
	f.add(c.code().Type().Id(name).Struct(fields...))

	for i, v := range t.Variants {
		fn := "New" + name + names[i]
		f.add(doc(fmt.Sprintf("%s returns %s holding v.", fn, aOrAn(name))).code().
			Func().Id(fn).Params(jen.Id("v").Add(baseType(v.Type))).Id(name).Block(
			jen.Return(jen.Id(name).Values(jen.Dict{jen.Id(names[i]): jen.Op("&").Id("v")})),
		))
	}

	var count []jen.Code
	for _, n := range names {
		count = append(count, jen.If(jen.Id("x").Dot(n).Op("!=").Nil()).Block(
			jen.List(jen.Id("v"), jen.Id("n")).Op("=").List(jen.Id("x").Dot(n), jen.Id("n").Op("+").Lit(1)),
		))
	}
	body := append([]jen.Code{jen.Var().Id("v").Any(), jen.Id("n").Op(":=").Lit(0)}, count...)
	body = append(body,
		jen.If(jen.Id("n").Op("!=").Lit(1)).Block(
			jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(fmt.Sprintf("%s holds %%d variants; set exactly one", name)), jen.Id("n"))),
		),
		jen.Return(jen.Qual(jsonPkg, "Marshal").Call(jen.Id("v"))),
	)
	f.add(doc("MarshalJSON encodes the variant x holds; exactly one field must be set.").code().
		Func().Params(jen.Id("x").Id(name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(body...))

	if t.Discriminator != "" {
		g.unmarshalTagged(f, def)
	} else {
		g.unmarshalUntagged(f, def)
	}
}

// unmarshalTagged declares the UnmarshalJSON of a union with a
// discriminator: it reads the tag, then decodes the variant it names.
func (g *generator) unmarshalTagged(f *file, def *idl.TypeDef) {
	t := def.Type
	name := def.GoName
	disc := t.Discriminator
	var cases []jen.Code
	var tags []string
	for i, v := range t.Variants {
		field := g.variants[def][i]
		tags = append(tags, strconv.Quote(v.Tag))
		cases = append(cases, jen.Case(jen.Lit(v.Tag)).Block(
			jen.Id("v").Dot(field).Op("=").New(baseType(v.Type)),
			jen.Err().Op("=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("b"), jen.Id("v").Dot(field)),
		))
	}
	cases = append(cases, jen.Default().Block(jen.Return(jen.Qual(jsonrpcPkg, "AtField").Call(
		jen.Lit(disc), jen.Qual("fmt", "Errorf").Call(jen.Lit("unknown value %q; want "+orList(tags)), jen.Id("tag"))))))
	f.add(doc(fmt.Sprintf("UnmarshalJSON decodes %s from the variant named by the %q member.", aOrAn(name), disc)).code().
		Func().Params(jen.Id("x").Op("*").Id(name)).Id("UnmarshalJSON").Params(jen.Id("b").Index().Byte()).Error().Block(
		jen.Var().Id("raw").Index().Byte(),
		jen.Err().Op(":=").Qual(jsonrpcPkg, "DecodeObject").Call(jen.Id("b"), jen.Func().Params(jen.List(jen.Id("key"), jen.Id("value")).Index().Byte()).Error().Block(
			jen.If(jen.String().Call(jen.Id("key")).Op("==").Lit(disc)).Block(jen.Id("raw").Op("=").Id("value")),
			jen.Return(jen.Nil()),
		)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.If(jen.Id("raw").Op("==").Nil()).Block(jen.Return(jen.Qual(jsonrpcPkg, "MissingField").Call(jen.Lit(disc)))),
		jen.Var().Id("tag").String(),
		jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("raw"), jen.Op("&").Id("tag")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Qual(jsonrpcPkg, "AtField").Call(jen.Lit(disc), jen.Err())),
		),
		jen.Var().Id("v").Id(name),
		jen.Switch(jen.Id("tag")).Block(cases...),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Op("*").Id("x").Op("=").Id("v"),
		jen.Return(jen.Nil()),
	))
}

// unmarshalUntagged declares the UnmarshalJSON of a union without a
// discriminator: the JSON kind of the value picks the variant, and the
// members of an object pick among object variants.
func (g *generator) unmarshalUntagged(f *file, def *idl.TypeDef) {
	t := def.Type
	name := def.GoName
	var cases []jen.Code
	var all []string
	byMembers := false
	for i, v := range t.Variants {
		field := g.variants[def][i]
		if len(v.Distinguishing) > 0 {
			if !byMembers {
				byMembers = true
				all = append(all, "object")
				cases = append(cases, jen.Case(jen.Lit("object")).Block(g.memberSwitch(def)...))
			}
			continue
		}
		kinds := jsonKinds(v.Type)
		all = append(all, kinds...)
		var lits []jen.Code
		for _, k := range kinds {
			lits = append(lits, jen.Lit(k))
		}
		decode := jen.Qual(jsonPkg, "Unmarshal").Call(jen.Id("b"), jen.Id("v").Dot(field))
		if checked(v.Type) {
			decode = rangeDecoder(v.Type, jen.Id("b"), jen.Id("v").Dot(field))
		}
		cases = append(cases, jen.Case(lits...).Block(
			jen.Id("v").Dot(field).Op("=").New(baseType(v.Type)),
			jen.Err().Op("=").Add(decode),
		))
	}
	cases = append(cases, jen.Default().Block(jen.Return(jen.Qual("fmt", "Errorf").Call(
		jen.Lit(fmt.Sprintf("expected %s, got JSON %%s", orList(all))), jen.Id("kind")))))
	what := fmt.Sprintf("UnmarshalJSON decodes %s into the variant matching the kind of JSON value b holds.", aOrAn(name))
	if byMembers {
		what = fmt.Sprintf("UnmarshalJSON decodes %s into the variant matching the kind of JSON value b holds. An object decodes into the variant whose distinguishing members it holds; holding those of no variant, or of several, is an error.", aOrAn(name))
	}
	f.add(doc(what).code().
		Func().Params(jen.Id("x").Op("*").Id(name)).Id("UnmarshalJSON").Params(jen.Id("b").Index().Byte()).Error().Block(
		jen.Var().Id("v").Id(name),
		jen.Var().Err().Error(),
		jen.Switch(jen.Id("kind").Op(":=").Qual(jsonrpcPkg, "JSONKind").Call(jen.Id("b")), jen.Id("kind")).Block(cases...),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Op("*").Id("x").Op("=").Id("v"),
		jen.Return(jen.Nil()),
	))
}

// memberSwitch returns the statements that decode a JSON object b into
// the object variant of the untagged union def whose distinguishing
// members b holds: has[i] records whether b holds a distinguishing member
// of the i-th object variant, and exactly one must be true.
func (g *generator) memberSwitch(def *idl.TypeDef) []jen.Code {
	t := def.Type
	var objects []int // indexes in t.Variants
	var keys []jen.Code
	for i, v := range t.Variants {
		if len(v.Distinguishing) == 0 {
			continue
		}
		var lits []jen.Code
		for _, m := range v.Distinguishing {
			lits = append(lits, jen.Lit(m))
		}
		keys = append(keys, jen.Case(lits...).Block(jen.Id("has").Index(jen.Lit(len(objects))).Op("=").True()))
		objects = append(objects, i)
	}
	n := len(objects)
	arr := func(set int) *jen.Statement {
		var vals []jen.Code
		for j := range n {
			vals = append(vals, jen.Lit(j == set))
		}
		if set < 0 {
			vals = nil
		}
		return jen.Index(jen.Lit(n)).Bool().Values(vals...)
	}
	var cases []jen.Code
	for j, i := range objects {
		field := g.variants[def][i]
		cases = append(cases, jen.Case(arr(j)).Block(
			jen.Id("v").Dot(field).Op("=").New(baseType(t.Variants[i].Type)),
			jen.Err().Op("=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("b"), jen.Id("v").Dot(field)),
		))
	}
	want := "want the members of exactly one variant: " + idl.DistinguishingMembers(t)
	cases = append(cases,
		jen.Case(arr(-1)).Block(jen.Return(jen.Qual("errors", "New").Call(jen.Lit(fmt.Sprintf("object matches no variant of %s; %s", def.Name, want))))),
		jen.Default().Block(jen.Return(jen.Qual("errors", "New").Call(jen.Lit(fmt.Sprintf("object matches several variants of %s; %s", def.Name, want))))),
	)
	return []jen.Code{
		jen.Var().Id("has").Index(jen.Lit(n)).Bool(),
		jen.Err().Op("=").Qual(jsonrpcPkg, "DecodeObject").Call(jen.Id("b"), jen.Func().Params(jen.Id("key"), jen.Id("_").Index().Byte()).Error().Block(
			jen.Switch(jen.String().Call(jen.Id("key"))).Block(keys...),
			jen.Return(jen.Nil()),
		)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Switch(jen.Id("has")).Block(cases...),
	}
}

// memberList writes member names for people: `a "text" member`, `"insert"
// and "replace" members`.
func memberList(members []string) string {
	var quoted []string
	for _, m := range members {
		quoted = append(quoted, strconv.Quote(m))
	}
	if len(quoted) == 1 {
		return "a " + quoted[0] + " member"
	}
	return joinList(quoted, "and") + " members"
}
