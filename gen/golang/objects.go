package golang

import (
	"fmt"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/idl"
)

// typesFile declares the object types and the other named types that are
// neither enums nor unions.
func (g *generator) typesFile(f *file) error {
	for _, def := range g.p.Types {
		switch def.Type.Kind {
		case idl.KindObject:
			if err := g.object(f, def); err != nil {
				return err
			}
		case idl.KindTuple:
			g.tuple(f, def)
		case idl.KindEnum, idl.KindUnion:
		default:
			g.alias(f, def)
		}
	}
	return nil
}

// object declares a struct, its UnmarshalJSON and, when needed, its
// MarshalJSON.
func (g *generator) object(f *file, def *idl.TypeDef) error {
	var fields []jen.Code
	for i, fl := range def.Type.Fields {
		tag := fl.Name
		switch k := kindOf(fl.Type); {
		case fl.Raw && fl.Optional:
			tag += ",omitempty" // a json.RawMessage, absent when empty
		case fl.Raw:
		case threeState(fl.Type, fl.Optional):
			tag += ",omitzero" // absent is left out; null is sent
		case fl.Optional && (k == idl.KindArray || k == idl.KindMap) && !pointer(fl.Type, true):
			// omitzero leaves out only a nil list or map: an empty one
			// that was received is sent back, not dropped.
			tag += ",omitzero"
		case fl.Optional && k == idl.KindUnion && g.plain(fl):
			tag += ",omitzero" // a union holding no variant, by its IsZero
		case fl.Optional:
			tag += ",omitempty"
		}
		field := jen.Null()
		if c := fieldDoc(fl); len(c.paras) > 0 {
			if i > 0 {
				field.Line()
			}
			field.Add(c.code())
		}
		typ := goType(fl.Type, g.held(fl))
		if fl.Raw {
			typ = jen.Qual(jsonPkg, "RawMessage")
		}
		fields = append(fields, field.Id(fl.GoName).Add(typ).Tag(map[string]string{"json": tag}))
	}
	if add := def.Type.Additional; add != nil {
		field := jen.Comment(extraField + " holds the members not declared above, in the order received.").Line()
		if len(fields) == 0 {
			field = jen.Comment(extraField + " holds the object's members, in the order received.").Line()
		} else {
			field = jen.Line().Add(field)
		}
		fields = append(fields, field.Id(extraField).Qual(jsonrpcPkg, "Members").Types(goType(add, false)).Tag(map[string]string{"json": "-", "rpcgen": "extra"}))
	}
	f.add(g.typeDoc(def).code().Type().Id(def.GoName).Struct(fields...))
	if def.Type.Positional {
		return g.positional(f, def)
	}
	if err := g.marshalObject(f, def); err != nil {
		return err
	}
	if err := g.appendObject(f, def); err != nil {
		return err
	}
	if err := g.unmarshalObject(f, def); err != nil {
		return err
	}
	g.rawMethods(f, def)
	return nil
}

// normalize returns the statements an encoder of an object runs first:
// they fill in its constant members (or fail when one holds another
// value) and turn its nil required lists and maps into empty ones.
func (g *generator) normalize(def *idl.TypeDef) ([]jen.Code, error) {
	var body []jen.Code
	for _, fl := range def.Type.Fields {
		if fl.Optional {
			continue
		}
		x := jen.Id("x").Dot(fl.GoName)
		if c := fl.Type.Const; c != nil && !pointer(fl.Type, false) {
			lit, text, err := literal(c, fl.Type.Kind)
			if err != nil {
				return nil, err
			}
			verb := "%v"
			if fl.Type.Kind == idl.KindString {
				verb = "%q"
			}
			wrong := jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(fmt.Sprintf("%s must be %s, not %s", fl.Name, text, verb)), x.Clone()))
			if isZero(c) {
				body = append(body, jen.If(x.Clone().Op("!=").Add(lit)).Block(wrong))
			} else {
				body = append(body, jen.If(x.Clone().Op("==").Add(zero(fl.Type.Kind))).Block(
					x.Clone().Op("=").Add(lit),
				).Else().If(x.Clone().Op("!=").Add(lit)).Block(wrong))
			}
			continue
		}
		if fl.Raw {
			body = append(body, jen.If(jen.Len(x.Clone()).Op("==").Lit(0)).Block(
				x.Clone().Op("=").Qual(jsonPkg, "RawMessage").Call(jen.Lit("{}")),
			))
			continue
		}
		if !nullable(fl.Type) && (kindOf(fl.Type) == idl.KindArray || kindOf(fl.Type) == idl.KindMap) {
			body = append(body, jen.If(x.Clone().Op("==").Nil()).Block(
				x.Clone().Op("=").Add(goType(fl.Type, false)).Values(),
			))
		}
	}
	return body, nil
}

// marshalObject declares the MarshalJSON of an object with constant
// members to fill in, or required arrays and maps to send as [] or {}.
func (g *generator) marshalObject(f *file, def *idl.TypeDef) error {
	body, err := g.normalize(def)
	if err != nil {
		return err
	}
	extra := def.Type.Additional != nil
	if len(body) == 0 && !extra {
		return nil
	}
	body = append(body, jen.Type().Id("plain").Id(def.GoName))
	what := "filling in its constant members and sending nil required lists and maps as [] and {}"
	if extra {
		what = "with its additional members"
		body = append(body,
			jen.List(jen.Id("b"), jen.Err()).Op(":=").Qual(jsonPkg, "Marshal").Call(jen.Id("plain").Call(jen.Id("x"))),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(impl("AppendMembers").Call(jen.Id("b"), jen.Id("x").Dot(extraField))),
		)
	} else {
		body = append(body, jen.Return(jen.Qual(jsonPkg, "Marshal").Call(jen.Id("plain").Call(jen.Id("x")))))
	}
	f.add(doc("MarshalJSON encodes x, "+what+".").code().
		Func().Params(jen.Id("x").Id(def.GoName)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(body...))
	return nil
}

// isZero reports whether a constant is its Go type's zero value.
func isZero(c *idl.Value) bool {
	switch s := string(c.JSON); s {
	case `""`, "false":
		return true
	default:
		f, err := strconv.ParseFloat(s, 64)
		return err == nil && f == 0
	}
}

// unmarshalObject declares the UnmarshalJSON of an object.
func (g *generator) unmarshalObject(f *file, def *idl.TypeDef) error {
	name := def.GoName
	fields := def.Type.Fields
	sig := doc("UnmarshalJSON decodes a JSON object into x member by member, naming the member at fault when one does not decode or a required one is missing.").code().
		Func().Params(jen.Id("x").Op("*").Id(name)).Id("UnmarshalJSON").Params(jen.Id("b").Index().Byte()).Error()
	add := def.Type.Additional
	if len(fields) == 0 && add == nil {
		f.add(sig.Block(jen.Return(impl("DecodeObject").Call(jen.Id("b"), ignoreMembers()))))
		return nil
	}
	// Members no field takes: kept in Extra, or ignored.
	other := []jen.Code{jen.Return(jen.Nil())}
	rawExtra := add != nil && add.Kind == idl.KindAny
	if rawExtra {
		// Kept from the message and copied at once when decoded.
		other = []jen.Code{jen.Id("extra").Dot("Add").Call(jen.Id("key"), jen.Id("value")), jen.Return(jen.Nil())}
	} else if add != nil {
		other = []jen.Code{
			jen.Var().Id("e").Add(goType(add, false)),
			jen.If(jen.Err().Op(":=").Add(g.decodeInto(add, false, jen.Id("value"), jen.Id("e"))), jen.Err().Op("!=").Nil()).Block(
				jen.Return(impl("AtField").Call(jen.String().Call(jen.Id("key")), jen.Err())),
			),
			jen.If(jen.Id("v").Dot(extraField).Op("==").Nil()).Block(
				// Room for a few members at once, rather than growing one by one.
				jen.Id("v").Dot(extraField).Op("=").Make(jen.Qual(jsonrpcPkg, "Members").Types(goType(add, false)), jen.Lit(0), jen.Lit(4)),
			),
			jen.Id("v").Dot(extraField).Op("=").Append(jen.Id("v").Dot(extraField), jen.Qual(jsonrpcPkg, "Member").Types(goType(add, false)).Values(
				jen.Id("Name").Op(":").String().Call(jen.Id("key")), jen.Id("Value").Op(":").Id("e"),
			)),
			jen.Return(jen.Nil()),
		}
	}
	var has []jen.Code
	var cases []jen.Code
	var checks []jen.Code
	for _, fl := range fields {
		decode := g.decodeInto(fl.Type, g.held(fl), jen.Id("value"), jen.Id("v").Dot(fl.GoName))
		if fl.Raw {
			decode = impl("DecodeRawObject").Call(jen.Id("value"), jen.Op("&").Id("v").Dot(fl.GoName))
		}
		stmts := g.nullIsAbsent(fl)
		if !fl.Optional || g.plain(fl) && fl.Type.Const != nil {
			// A plain member that must hold its constant when present:
			// its zero value does not tell whether it was sent.
			has = append(has, jen.Id(fl.GoName))
			stmts = append(stmts, jen.Id("has").Dot(fl.GoName).Op("=").True())
		}
		if !fl.Optional {
			checks = append(checks, jen.Case(jen.Op("!").Id("has").Dot(fl.GoName)).Block(
				jen.Return(impl("MissingField").Call(jen.Lit(fl.Name))),
			))
			if !nullable(fl.Type) && kindOf(fl.Type) != idl.KindAny {
				decode = impl("NonNull").Call(jen.Id("value"), decode)
			}
		}
		stmts = append(stmts, jen.Return(impl("AtField").Call(jen.Lit(fl.Name), decode)))
		cases = append(cases, jen.Case(jen.Lit(fl.Name)).Block(stmts...))
		if c := fl.Type.Const; c != nil {
			lit, text, err := literal(c, fl.Type.Kind)
			if err != nil {
				return err
			}
			cond := jen.Id("v").Dot(fl.GoName).Op("!=").Add(lit)
			if threeState(fl.Type, fl.Optional) {
				cond = jen.Id("v").Dot(fl.GoName).Dot("State").Op("==").Qual(jsonrpcPkg, "Present").Op("&&").Id("v").Dot(fl.GoName).Dot("Value").Op("!=").Add(lit)
			} else if g.plain(fl) {
				cond = jen.Id("has").Dot(fl.GoName).Op("&&").Id("v").Dot(fl.GoName).Op("!=").Add(lit)
			} else if pointer(fl.Type, g.held(fl)) {
				cond = jen.Id("v").Dot(fl.GoName).Op("!=").Nil().Op("&&").Op("*").Id("v").Dot(fl.GoName).Op("!=").Add(lit)
			}
			checks = append(checks, jen.Case(cond).Block(jen.Return(impl("AtField").Call(
				jen.Lit(fl.Name), jen.Qual("errors", "New").Call(jen.Lit("must be "+text))))))
		}
	}
	body := []jen.Code{jen.Var().Id("v").Id(name)}
	if len(has) > 0 {
		body = append(body, jen.Var().Id("has").Struct(jen.List(has...).Bool()))
	}
	if rawExtra {
		body = append(body, jen.Var().Id("extra").Add(impl("RawMembers")))
	}
	body = append(body,
		jen.Err().Op(":=").Add(impl("DecodeObject")).Call(jen.Id("b"), jen.Func().Params(jen.List(jen.Id("key"), jen.Id("value")).Index().Byte()).Error().Block(
			append(switchOn(cases), other...)...,
		)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
	)
	if len(checks) > 0 {
		body = append(body, jen.Switch().Block(checks...))
	}
	if rawExtra {
		body = append(body, jen.Id("v").Dot(extraField).Op("=").Id("extra").Dot("Members").Call())
	}
	body = append(body, jen.Op("*").Id("x").Op("=").Id("v"), jen.Return(jen.Nil()))
	f.add(sig.Block(body...))
	return nil
}

// switchOn switches on the member name when there are cases.
func switchOn(cases []jen.Code) []jen.Code {
	if len(cases) == 0 {
		return nil
	}
	return []jen.Code{jen.Switch(jen.String().Call(jen.Id("key"))).Block(cases...)}
}

// ignoreMembers is a DecodeObject callback that accepts every member.
func ignoreMembers() jen.Code {
	return jen.Func().Params(jen.List(jen.Id("_"), jen.Id("_")).Index().Byte()).Error().Block(jen.Return(jen.Nil()))
}

// aOrAn prefixes a name with its indefinite article.
func aOrAn(name string) string {
	if name != "" && (name[0] == 'A' || name[0] == 'E' || name[0] == 'I' || name[0] == 'O' || name[0] == 'U') {
		return "an " + name
	}
	return "a " + name
}

// decodeInto returns the expression decoding the JSON src into target,
// an addressable value of Go type goType(t, optional). Basic types decode
// through the runtime's reflection-free decoders and generated types
// through their own UnmarshalJSON, called directly. Lists and maps of
// types with an UnmarshalJSON of their own are decoded element by element,
// so that errors name the element's index or key.
func (g *generator) decodeInto(t *idl.Type, optional bool, src jen.Code, target *jen.Statement) *jen.Statement {
	dst := jen.Op("&").Add(target)
	if threeState(t, optional) {
		return impl("DecodeNullable").Call(src, dst, g.valueDecoder(t))
	}
	if pointer(t, optional) {
		return impl("DecodeOptional").Call(src, dst, g.valueDecoder(t))
	}
	if g.container(t) {
		return g.decodeContainer(t, src, dst)
	}
	if call := g.decodePlainContainer(t, src, dst); call != nil {
		return call
	}
	if t.Kind == idl.KindRef && g.hasDecoder(t.Ref) {
		return target.Dot("UnmarshalJSON").Call(src)
	}
	if checked(t) {
		return rangeDecoder(t, src, dst)
	}
	if helper := basicDecoder(t); helper != "" {
		return impl(helper).Call(src, dst)
	}
	return jen.Qual(jsonPkg, "Unmarshal").Call(src, dst)
}

// basicDecoder names the runtime decoder of a value of basic type t, or
// returns "" when t is not a basic type.
func basicDecoder(t *idl.Type) string {
	switch kindOf(t) {
	case idl.KindString:
		return "DecodeString"
	case idl.KindInteger:
		return "DecodeInt"
	case idl.KindNumber:
		return "DecodeFloat"
	case idl.KindBoolean:
		return "DecodeBool"
	case idl.KindAny:
		return "DecodeRaw"
	}
	return ""
}

// decodeContainer decodes a list or map element by element.
func (g *generator) decodeContainer(t *idl.Type, src, dst jen.Code) *jen.Statement {
	helper := "DecodeArray"
	if t.Kind == idl.KindMap && t.Key != nil {
		return impl("DecodeKeyedMap").Call(src, dst, jen.Lit(t.Key.IntegerKey()), g.valueDecoder(t.Key), g.elemDecoder(t.Elem))
	}
	if t.Kind == idl.KindMap {
		helper = "DecodeMap"
	}
	return impl(helper).Call(src, dst, g.elemDecoder(t.Elem))
}

// decodePlainContainer decodes a list or map of basic values (strings,
// numbers, booleans, raw JSON) without reflection, or returns nil for any
// other type. A map of raw JSON values shares one copy of its names and
// one of its values.
func (g *generator) decodePlainContainer(t *idl.Type, src, dst jen.Code) *jen.Statement {
	if (t.Kind != idl.KindArray && t.Kind != idl.KindMap) || t.Key != nil {
		return nil
	}
	e := t.Elem
	helper := basicDecoder(e)
	if helper == "" || g.custom(e) || pointer(e, false) || threeState(e, false) {
		return nil
	}
	if t.Kind == idl.KindMap && helper == "DecodeRaw" {
		return impl("DecodeRawMap").Call(src, dst)
	}
	container := "DecodeArray"
	if t.Kind == idl.KindMap {
		container = "DecodeMap"
	}
	return impl(container).Call(src, dst, impl(helper).Index(baseType(e)))
}

// elemDecoder returns a func([]byte, *T) error decoding an element of
// type t of a list or map.
func (g *generator) elemDecoder(t *idl.Type) jen.Code {
	if pointer(t, false) { // a nullable element is held through a pointer
		return impl("Unmarshal").Index(goType(t, false))
	}
	return g.valueDecoder(t)
}

// valueDecoder returns a func([]byte, *T) error decoding a non-null value
// of type t into its base Go type T.
func (g *generator) valueDecoder(t *idl.Type) jen.Code {
	switch {
	case g.container(t):
		return jen.Func().Params(jen.Id("b").Index().Byte(), jen.Id("v").Op("*").Add(baseType(t))).Error().Block(
			jen.Return(g.decodeContainer(t, jen.Id("b"), jen.Id("v"))),
		)
	case t.Kind == idl.KindRef && g.hasDecoder(t.Ref):
		return impl("UnmarshalJSON").Index(jen.Id(t.Ref.GoName))
	case checked(t):
		return rangeFunc(t)
	}
	if helper := basicDecoder(t); helper != "" {
		return impl(helper).Index(baseType(t))
	}
	return impl("Unmarshal").Index(baseType(t))
}

// custom reports whether values of t decode through a generated
// UnmarshalJSON that reports where an error is.
func (g *generator) custom(t *idl.Type) bool {
	switch t.Kind {
	case idl.KindRef:
		return g.hasDecoder(t.Ref)
	case idl.KindArray, idl.KindMap:
		return g.container(t)
	}
	return checked(t)
}

// container reports whether a list or map is decoded element by element:
// its elements have decoders of their own, or its keys are typed.
func (g *generator) container(t *idl.Type) bool {
	switch t.Kind {
	case idl.KindArray:
		return g.custom(t.Elem)
	case idl.KindMap:
		return t.Key != nil || g.custom(t.Elem)
	}
	return false
}

// hasDecoder reports whether the Go type of def has an UnmarshalJSON.
func (g *generator) hasDecoder(def *idl.TypeDef) bool {
	if has, done := g.decodes[def]; done {
		return has
	}
	g.decodes[def] = false // a type made of itself, such as A: "[]A"
	var has bool
	switch t := def.Type; t.Kind {
	case idl.KindObject, idl.KindEnum, idl.KindUnion, idl.KindTuple:
		has = true
	case idl.KindRef:
		has = g.hasDecoder(t.Ref)
	case idl.KindArray, idl.KindMap:
		has = g.container(t)
	default:
		has = checked(t)
	}
	g.decodes[def] = has
	return has
}

// alias declares a named type that is not an object, enum or union.
func (g *generator) alias(f *file, def *idl.TypeDef) {
	t := def.Type
	c := g.typeDoc(def)
	switch t.Kind {
	case idl.KindRef:
		f.add(c.code().Type().Id(def.GoName).Op("=").Id(t.Ref.GoName))
		return
	case idl.KindAny:
		f.add(c.code().Type().Id(def.GoName).Op("=").Qual(jsonPkg, "RawMessage"))
		return
	}
	f.add(c.code().Type().Id(def.GoName).Add(baseType(t)))
	if checked(t) {
		f.add(doc(fmt.Sprintf("UnmarshalJSON decodes %s, refusing a value out of its range.", aOrAn(def.GoName))).code().
			Func().Params(jen.Id("x").Op("*").Id(def.GoName)).Id("UnmarshalJSON").Params(jen.Id("b").Index().Byte()).Error().Block(
			jen.Return(rangeDecoder(t, jen.Id("b"), jen.Id("x"))),
		))
	}
	if g.container(t) {
		f.add(doc(fmt.Sprintf("UnmarshalJSON decodes %s element by element, naming the element that does not decode.", aOrAn(def.GoName))).code().
			Func().Params(jen.Id("x").Op("*").Id(def.GoName)).Id("UnmarshalJSON").Params(jen.Id("b").Index().Byte()).Error().Block(
			jen.Return(g.decodeContainer(t, jen.Id("b"), jen.Parens(jen.Op("*").Add(baseType(t))).Call(jen.Id("x")))),
		))
	}
}
