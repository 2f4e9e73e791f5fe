package golang

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

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

// union declares a union struct, its constructors and Value method (see
// unionAPI), MarshalJSON and UnmarshalJSON.
func (g *generator) union(f *file, def *idl.TypeDef) {
	t := def.Type
	name := def.GoName
	names := g.variants[def]
	c := g.typeDoc(def)
	var items []string
	byMembers := t.Discriminator == "" && idl.ByMembers(t)
	catchAll, direct := g.catchAll(def)
	if !direct {
		catchAll = -1 // held by a nested union, in its own type
	}
	for i, v := range t.Variants {
		item := fmt.Sprintf("  - %s: %s", names[i], linkedType(v.Type))
		switch {
		case t.Discriminator != "":
			item = fmt.Sprintf("  - %s: [%s], whose %q member is %q", names[i], v.Type.Ref.GoName, t.Discriminator, v.Tag)
		case i == catchAll:
			item = fmt.Sprintf("  - %s: any other JSON value, as is", names[i])
		case byMembers && v.Type.Kind == idl.KindRef && v.Type.Underlying().Kind == idl.KindObject:
			if req := (idl.Choice{Type: v.Type, Object: v.Type.Underlying()}).Required(); len(req) > 0 {
				item += ", an object with " + memberList(req)
			}
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
	if t.Discriminator == "" && idl.ByItems(t) {
		how += ", and arrays by their first item"
	}
	list := len(c.paras)
	if strings.TrimSpace(def.Doc) == "" && g.originDoc(def) == "" {
		// No doc of its own: the list of variants leads, rather than
		// follow a sentence naming them.
		list = 0
		c.paras[0] = fmt.Sprintf("%s holds exactly one of these variants, in its field; on the wire it is that variant alone, and the variants are told apart by %s:", name, how)
	} else {
		c.addf("Exactly one field is set. On the wire the value is that variant alone, and the variants are told apart by %s:", how)
	}
	for _, item := range items {
		c.paras[list] += "\n" + item
	}
	if byMembers {
		c.add(objectRule)
	}
	if t.Discriminator == "" && idl.ByItems(t) {
		c.add(arrayRule)
	}
	var fields []jen.Code
	for i, v := range t.Variants {
		if i == catchAll {
			fields = append(fields, jen.Id(names[i]).Qual(jsonPkg, "RawMessage"))
			continue
		}
		fields = append(fields, jen.Id(names[i]).Op("*").Add(baseType(v.Type)))
	}
	f.add(c.code().Type().Id(name).Struct(fields...))

	g.unionAPI(f, def, catchAll)

	g.unionIsZero(f, def)

	g.appendUnion(f, def, catchAll)

	// MarshalJSON goes through encoding/json, independently of
	// AppendJSON, which the generated tests check against it.
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

// appendUnion declares the AppendJSON of a union: it appends the variant
// x holds, which must be exactly one.
func (g *generator) appendUnion(f *file, def *idl.TypeDef, catchAll int) {
	name := def.GoName
	var count, cases []jen.Code
	usesErr := false
	for i, v := range def.Type.Variants {
		field := jen.Id("x").Dot(g.variants[def][i])
		count = append(count, jen.If(field.Clone().Op("!=").Nil()).Block(jen.Id("n").Op("++")))
		value, errs := g.appendValue(v.Type, jen.Op("*").Add(field.Clone()), field.Clone())
		if i == catchAll {
			value, errs = appendCheck(impl("AppendRaw").Call(jen.Id("b"), field.Clone()))
		}
		usesErr = usesErr || errs
		cases = append(cases, jen.Case(field.Clone().Op("!=").Nil()).Block(value))
	}
	body := append([]jen.Code{jen.Id("n").Op(":=").Lit(0)}, count...)
	body = append(body, jen.If(jen.Id("n").Op("!=").Lit(1)).Block(
		jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(fmt.Sprintf("%s holds %%d variants; set exactly one", name)), jen.Id("n"))),
	))
	if usesErr {
		body = append(body, jen.Var().Err().Error())
	}
	body = append(body, jen.Switch().Block(cases...), jen.Return(jen.Id("b"), jen.Nil()))
	f.add(doc("AppendJSON appends the variant x holds to b, encoded as json.Marshal encodes it, without reflection; exactly one field must be set.").code().
		Func().Params(jen.Id("x").Id(name)).Id("AppendJSON").Params(jen.Id("b").Index().Byte()).
		Params(jen.Index().Byte(), jen.Error()).Block(body...))
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
		tags = append(tags, strconv.Quote(v.Tag))
		cases = append(cases, jen.Case(jen.Lit(v.Tag)).Block(g.decodeVariant(def, i)...))
	}
	cases = append(cases, jen.Default().Block(jen.Return(impl("AtField").Call(
		jen.Lit(disc), jen.Qual("fmt", "Errorf").Call(jen.Lit("unknown value %q; want "+orList(tags)), jen.Qual(jsonrpcPkg, "Truncate").Call(jen.String().Call(jen.Id("tag"))))))))
	f.add(doc(fmt.Sprintf("UnmarshalJSON decodes %s from the variant named by the %q member.", aOrAn(name), disc)).code().
		Func().Params(jen.Id("x").Op("*").Id(name)).Id("UnmarshalJSON").Params(jen.Id("b").Index().Byte()).Error().Block(
		jen.Var().Id("raw").Index().Byte(),
		jen.Err().Op(":=").Add(impl("DecodeObject")).Call(jen.Id("b"), jen.Func().Params(jen.List(jen.Id("key"), jen.Id("value")).Index().Byte()).Error().Block(
			jen.If(jen.String().Call(jen.Id("key")).Op("==").Lit(disc)).Block(jen.Id("raw").Op("=").Id("value")),
			jen.Return(jen.Nil()),
		)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.If(jen.Id("raw").Op("==").Nil()).Block(jen.Return(impl("MissingField").Call(jen.Lit(disc)))),
		jen.List(jen.Id("tag"), jen.Err()).Op(":=").Add(impl("TagOf")).Call(jen.Id("raw")),
		jen.If(jen.Err().Op("!=").Nil()).Block(
			jen.Return(impl("AtField").Call(jen.Lit(disc), jen.Err())),
		),
		jen.Var().Id("v").Id(name),
		jen.Switch(jen.String().Call(jen.Id("tag"))).Block(cases...),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Op("*").Id("x").Op("=").Id("v"),
		jen.Return(jen.Nil()),
	))
}

// objectRule is the decision rule for objects, as the doc comment of a
// union whose object variants overlap states it.
const objectRule = "An object is the object variant whose required members it holds (with the values the variant allows in the members it declares as a constant or a closed enum) and whose declared members leave the fewest of its members unexplained; of those, the one listed first."

// catchAll returns the index of the variant of the union def that holds
// its catch-all choice (any, listed last, in def or in a union nested
// last), or -1; direct reports that the variant is the catch-all itself,
// held as raw JSON.
func (g *generator) catchAll(def *idl.TypeDef) (i int, direct bool) {
	if def.Type.Discriminator != "" {
		return -1, false
	}
	choices := idl.Choices(def.Type)
	last := choices[len(choices)-1]
	if !last.CatchAll {
		return -1, false
	}
	return last.Variant, unionOf(def.Type.Variants[last.Variant].Type) == nil
}

// otherValue returns the statements that decode b, which no other choice
// of the union def takes, into the variant holding its catch-all: a copy
// of b itself without the space around it (as encoding/json keeps a raw
// value), or b decoded by the nested union that holds it.
func (g *generator) otherValue(def *idl.TypeDef) []jen.Code {
	i, direct := g.catchAll(def)
	field := g.variants[def][i]
	if direct {
		return []jen.Code{jen.Err().Op("=").Add(impl("DecodeRaw")).Call(jen.Id("b"), jen.Op("&").Id("v").Dot(field))}
	}
	return g.decodeVariant(def, i)
}

// unionOf returns the union type t refers to, or nil.
func unionOf(t *idl.Type) *idl.TypeDef {
	for t != nil && t.Kind == idl.KindRef {
		if t.Ref.Type.Kind == idl.KindUnion {
			return t.Ref
		}
		t = t.Ref.Type
	}
	return nil
}

// unmarshalUntagged declares the UnmarshalJSON of a union without a
// discriminator: the JSON kind of the value picks the variant, and, when
// object variants overlap, the members of an object pick among them.
func (g *generator) unmarshalUntagged(f *file, def *idl.TypeDef) {
	t := def.Type
	name := def.GoName
	var cases []jen.Code
	var all []string
	byMembers, byItems := idl.ByMembers(t), idl.ByItems(t)
	catchAll, direct := g.catchAll(def)
	for i, v := range t.Variants {
		if i == catchAll && direct {
			continue
		}
		var lits []jen.Code
		for _, k := range jsonKinds(v.Type) {
			if k == "array" && byItems {
				if !slices.Contains(all, k) {
					all = append(all, k)
					cases = append(cases, jen.Case(jen.Lit(k)).Block(g.arraySwitch(f, def)...))
				}
				continue
			}
			if k == "object" && byMembers {
				if !slices.Contains(all, k) {
					all = append(all, k)
					cases = append(cases, jen.Case(jen.Lit(k)).Block(g.objectSwitch(f, def)...))
				}
				continue
			}
			all = append(all, k)
			lits = append(lits, jen.Lit(k))
		}
		if len(lits) == 0 {
			continue
		}
		cases = append(cases, jen.Case(lits...).Block(g.decodeVariant(def, i)...))
	}
	if catchAll >= 0 {
		cases = append(cases, jen.Default().Block(g.otherValue(def)...))
	} else {
		cases = append(cases, jen.Default().Block(jen.Return(jen.Qual("fmt", "Errorf").Call(
			jen.Lit(fmt.Sprintf("expected %s, got JSON %%s", orList(all))), jen.Id("kind")))))
	}
	what := fmt.Sprintf("UnmarshalJSON decodes %s into the variant matching the kind of JSON value b holds.", aOrAn(name))
	if byMembers {
		what += " An object decodes into the object variant the members it holds choose, as the type's comment says."
	}
	if byItems {
		what += " An array decodes into the array variant its first item chooses (an empty one into the first), as the type's comment says."
	}
	if catchAll >= 0 {
		what += fmt.Sprintf(" Any other value goes to %s.", g.variants[def][catchAll])
	}
	f.add(doc(what).code().
		Func().Params(jen.Id("x").Op("*").Id(name)).Id("UnmarshalJSON").Params(jen.Id("b").Index().Byte()).Error().Block(
		jen.Var().Id("v").Id(name),
		jen.Var().Err().Error(),
		jen.Switch(jen.Id("kind").Op(":=").Add(impl("JSONKind")).Call(jen.Id("b")), jen.Id("kind")).Block(cases...),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Op("*").Id("x").Op("=").Id("v"),
		jen.Return(jen.Nil()),
	))
}

// objectSwitch returns the statements that decode a JSON object b into
// the object variant of the untagged union def that the decision rule
// picks (see [idl.ChooseObject]), in one pass over the object's members:
// held gets a bit per member name the object variants declare, failed
// marks the variants whose constants (a constant or a closed enum) a member
// contradicts. It declares
// beside the union the table of what each object variant requires and
// declares.
func (g *generator) objectSwitch(f *file, def *idl.TypeDef) []jen.Code {
	t := def.Type
	fallback := []jen.Code{jen.Return(jen.Qual("errors", "New").Call(jen.Lit(fmt.Sprintf("object matches no variant of %s; an object needs every required member of one variant: %s", def.Name, idl.ObjectRequirements(t)))))}
	if c, _ := g.catchAll(def); c >= 0 {
		fallback = g.otherValue(def)
	}
	return g.chooseObject(f, def, t, "b", tableName(def.GoName), "each object variant", func(c idl.Choice) int { return c.Variant }, fallback)
}

// chooseObject returns the statements that decode the members of the
// JSON object src, pick among the object choices of the union u by the
// decision rule, and decode b into the variant of def that variant
// returns for the chosen choice, or run fallback when none matches. The
// table of what each object choice needs, named table, is declared
// beside def; what says what its rows are.
func (g *generator) chooseObject(f *file, def *idl.TypeDef, u *idl.Type, src, table, what string, variant func(idl.Choice) int, fallback []jen.Code) []jen.Code {
	var objects []idl.Choice
	index := map[string]int{} // member name -> bit
	var order []string
	for _, c := range idl.Choices(u) {
		if c.Object == nil {
			continue
		}
		objects = append(objects, c)
		for _, fl := range c.Object.Fields {
			if _, ok := index[fl.Name]; !ok {
				index[fl.Name] = len(order)
				order = append(order, fl.Name)
			}
		}
	}
	words := (len(order) + 63) / 64
	word := func(c idl.Choice, required bool) jen.Code {
		w := make([]uint64, words)
		for _, fl := range c.Object.Fields {
			if !required || !fl.Optional {
				k := index[fl.Name]
				w[k/64] |= 1 << (k % 64)
			}
		}
		var lits []jen.Code
		for _, x := range w {
			lits = append(lits, jen.Op(fmt.Sprintf("%#x", x)))
		}
		return jen.Index().Uint64().Values(lits...)
	}
	var rows []jen.Code
	for _, c := range objects {
		rows = append(rows, jen.Values(jen.Dict{jen.Id("Required"): word(c, true), jen.Id("Declared"): word(c, false)}))
	}
	f.add(doc(fmt.Sprintf("%s is what an object needs to be %s of %s (%s), over the members %s, one bit each in this order.", table, what, def.GoName, joinList(choiceLabels(objects), "and"), joinList(quoteAll(order), "and"))).code().
		Var().Id(table).Op("=").Index().Add(impl("ObjectChoice")).Values(rows...))

	consts := false
	var keys []jen.Code
	for _, m := range order {
		k := index[m]
		stmts := []jen.Code{jen.Id("held").Index(jen.Lit(k / 64)).Op("|=").Lit(1).Op("<<").Lit(k % 64)}
		for i, c := range objects {
			for _, fl := range c.Object.Fields {
				lits := idl.FieldLiterals(fl)
				if fl.Name != m || lits == nil {
					continue
				}
				consts = true
				stmts = append(stmts, jen.Id("failed").Index(jen.Lit(i)).Op("=").Id("failed").Index(jen.Lit(i)).Op("||").Add(notOneOf(lits)))
			}
		}
		keys = append(keys, jen.Case(jen.Lit(m)).Block(stmts...))
	}
	var cases []jen.Code
	for i := 0; i < len(objects); {
		v := variant(objects[i])
		var lits []jen.Code
		for ; i < len(objects) && variant(objects[i]) == v; i++ {
			lits = append(lits, jen.Lit(i))
		}
		cases = append(cases, jen.Case(lits...).Block(g.decodeVariant(def, v)...))
	}
	cases = append(cases, jen.Default().Block(fallback...))
	failed := jen.Nil()
	var decls []jen.Code
	decls = append(decls, jen.Var().Id("held").Index(jen.Lit(words)).Uint64())
	if consts {
		decls = append(decls, jen.Var().Id("failed").Index(jen.Lit(len(objects))).Bool())
		failed = jen.Id("failed").Index(jen.Empty(), jen.Empty())
	}
	return append(decls,
		jen.Err().Op("=").Add(impl("DecodeObject")).Call(jen.Id(src), jen.Func().Params(jen.Id("key"), jen.Id(valueName(consts)).Index().Byte()).Error().Block(
			jen.Switch(jen.String().Call(jen.Id("key"))).Block(keys...),
			jen.Return(jen.Nil()),
		)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Switch(impl("ChooseObject").Call(jen.Id("held").Index(jen.Empty(), jen.Empty()), failed, jen.Id(table))).Block(cases...),
	)
}

// valueName names the member value parameter: "_" when unused.
func valueName(used bool) string {
	if used {
		return "value"
	}
	return "_"
}

// choiceLabels returns the labels of choices.
func choiceLabels(choices []idl.Choice) []string {
	var out []string
	for _, c := range choices {
		out = append(out, c.Label())
	}
	return out
}

// quoteAll returns each item quoted.
func quoteAll(items []string) []string {
	var out []string
	for _, s := range items {
		out = append(out, strconv.Quote(s))
	}
	return out
}

// tableName returns the name of the unexported table of the object
// variants of the union named goName: "hoverProviderObjects",
// "urlTargetObjects".
func tableName(goName string) string {
	n := 0
	for n < len(goName) && unicode.IsUpper(rune(goName[n])) {
		n++
	}
	if n > 1 && n < len(goName) {
		n-- // the last capital starts the next word
	}
	return strings.ToLower(goName[:n]) + goName[n:] + "Objects"
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

// notOneOf is the condition that the member's JSON, value, is none of the
// literals lits: !SameJSON(value, a), or !(SameJSON(value, a) || ...).
func notOneOf(lits [][]byte) jen.Code {
	same := func(l []byte) *jen.Statement {
		return impl("SameJSON").Call(jen.Id("value"), jen.Lit(string(l)))
	}
	if len(lits) == 1 {
		return jen.Op("!").Add(same(lits[0]))
	}
	either := same(lits[0])
	for _, l := range lits[1:] {
		either = either.Op("||").Add(same(l))
	}
	return jen.Op("!").Parens(either)
}
