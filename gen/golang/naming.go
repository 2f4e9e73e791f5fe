package golang

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/rpcgen/rpcgen/idl"
	"github.com/rpcgen/rpcgen/internal/goname"
)

// owner is what a generated package-level name stands for.
type owner struct {
	what string
	pos  idl.Pos
}

// namespace finds Go names given twice in the generated package.
type namespace struct {
	names map[string]owner
	errs  idl.Errors
}

// declare records that name stands for what, written at pos.
func (ns *namespace) declare(name, what string, pos idl.Pos) {
	if first, dup := ns.names[name]; dup {
		ns.errs = append(ns.errs, idl.Error{Pos: pos, Msg: fmt.Sprintf(
			"%s and %s (at %s) would both be named %s in the generated Go package; rename one of them",
			what, first.what, first.pos, name)})
		return
	}
	ns.names[name] = owner{what, pos}
}

// methodNames are the methods generated for objects and unions, which no
// field may be named.
var methodNames = []string{"MarshalJSON", "UnmarshalJSON"}

// extraField is the Go field holding an object's additional members.
const extraField = "Extra"

// check computes the names the generated code adds and reports every
// collision, and every name Go cannot express, sorted by position.
func (g *generator) check() idl.Errors {
	p := g.p
	ns := &namespace{names: map[string]owner{}}
	var errs idl.Errors
	fail := func(pos idl.Pos, format string, args ...any) {
		errs = append(errs, idl.Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
	}
	ns.declare("Options", "the generated function Options (the protocol's connection options)", p.Pos)
	for _, t := range p.Transports {
		switch {
		case t.Kind == idl.TransportSubprocess && t.Command != "":
			ns.declare("DefaultCommand", "the default command of transport subprocess", t.Pos)
		case t.Kind == idl.TransportTCP:
			ns.declare("DefaultTCPAddress", "the default address of transport tcp", t.Pos)
		case t.Kind == idl.TransportUnix && t.Path != "":
			ns.declare("DefaultUnixPath", "the default path of transport unix", t.Pos)
		}
	}
	for i, r := range p.Roles {
		what := fmt.Sprintf("role %s", r.Name)
		// A role receiving nothing has only its Connect function; its name
		// stays reserved, since the docs speak of the role by it.
		ns.declare(r.GoName, what+" (its interface)", r.Pos)
		if !g.deaf(i) {
			ns.declare("Unimplemented"+r.GoName, what+" (its Unimplemented struct)", r.Pos)
			ns.declare("New"+r.GoName+"Remote", what+" (its remote constructor)", r.Pos)
			ns.declare("New"+r.GoName+"Handler", what+" (its handler constructor)", r.Pos)
		}
		ns.declare("Connect"+r.GoName, what+" (its Connect function)", r.Pos)
	}
	goNames := map[string]*idl.Method{}
	for _, m := range p.Methods {
		ns.declare("Method"+m.GoName, fmt.Sprintf("the name constant of method %q", m.Name), m.Pos)
		goNames[m.GoName] = m
		if f := m.NotificationForm; f != nil {
			goNames[f.GoName] = f
		}
	}
	for i, r := range p.Roles {
		if remoteType(r, g.handled(i)) != r.GoName {
			ns.declare(r.GoName+"Remote", fmt.Sprintf("role %s (the interface of its remote)", r.Name), r.Pos)
		}
	}
	for _, m := range p.Methods {
		if other := goNames["Notify"+m.GoName]; m.AlsoNotification && other != nil {
			what := fmt.Sprintf("method %q", other.Name)
			if other.RequestForm != nil {
				what = fmt.Sprintf("the notification form of %q", other.Name)
			}
			fail(other.Pos, "%s has the Go name %s, the name of the stub sending %q as a notification; set another go_name:", what, other.GoName, m.Name)
		}
	}
	for _, e := range p.Errors {
		if e.Standard {
			continue
		}
		what := "error " + e.Name
		base := errorBase(e)
		ns.declare("Code"+base, what+" (its code constant)", e.Pos)
		ns.declare("Err"+base, what+" (its sentinel)", e.Pos)
		ns.declare("New"+base+"Error", what+" (its constructor)", e.Pos)
	}
	for _, def := range p.Types {
		ns.declare(def.GoName, "type "+def.Name, def.Pos)
		switch def.Type.Kind {
		case idl.KindObject:
			var raw []string
			for _, f := range def.Type.Fields {
				raw = append(raw, rawMethodNames(f)...)
			}
			for _, f := range def.Type.Fields {
				if slices.Contains(raw, f.GoName) {
					fail(f.Pos, "field %q of %s has the Go name %s, the name of a method generated for its raw: true field; set another go_name:", f.Name, def.Name, f.GoName)
				}
				if slices.Contains(methodNames, f.GoName) {
					fail(f.Pos, "field %q of %s has the Go name %s, the name of a method generated for %s; set another go_name:", f.Name, def.Name, f.GoName, def.GoName)
				}
				if def.Type.Additional != nil && f.GoName == extraField {
					fail(f.Pos, "field %q of %s has the Go name %s, which holds the object's additional members; set another go_name:", f.Name, def.Name, extraField)
				}
				if !validTag(f.Name) {
					fail(f.Pos, "field name %q cannot be written in a Go struct tag; use letters, digits, spaces and the punctuation !#$%%&()*+-./:;<=>?@[]^_{|}~ only, and not \"-\" alone", f.Name)
				}
			}
		case idl.KindEnum:
			for _, v := range def.Type.Values {
				ns.declare(def.GoName+v.GoName, fmt.Sprintf("value %v of enum %s", v.Value, def.Name), v.Pos)
			}
		case idl.KindUnion:
			names := variantNames(def)
			g.variants[def] = names
			seen := map[string]bool{}
			for i, v := range def.Type.Variants {
				if seen[names[i]] || slices.Contains(unionMethods, names[i]) {
					fail(v.Pos, "variant %d of union %s would be the Go field %s, which is taken; rename the variant's type", i+1, def.Name, names[i])
				}
				seen[names[i]] = true
			}
			if ctors := unionConstructors(def, names); len(ctors) == 1 {
				ns.declare(ctors[0], fmt.Sprintf("the constructor of union %s", def.Name), def.Pos)
			} else {
				for i, v := range def.Type.Variants {
					ns.declare(ctors[i], fmt.Sprintf("the constructor of variant %s of union %s", names[i], def.Name), v.Pos)
				}
			}
		}
	}
	errs = append(errs, ns.errs...)
	g.declared = ns.names
	slices.SortStableFunc(errs, func(a, b idl.Error) int {
		return cmp.Or(
			cmp.Compare(a.Pos.File, b.Pos.File),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Col, b.Pos.Col),
			cmp.Compare(a.Msg, b.Msg),
		)
	})
	return errs
}

// variantNames returns the Go field names of the variants of a union:
// from their tags when they make distinct names, else from their types.
func variantNames(def *idl.TypeDef) []string {
	t := def.Type
	names := make([]string, len(t.Variants))
	if t.Discriminator != "" {
		seen := map[string]bool{}
		ok := true
		for i, v := range t.Variants {
			names[i] = goname.Exported(v.Tag)
			if names[i] == "" || seen[names[i]] || slices.Contains(unionMethods, names[i]) {
				ok = false
			}
			seen[names[i]] = true
		}
		if ok {
			return names
		}
	}
	for i, v := range t.Variants {
		switch v.Type.Kind {
		case idl.KindRef:
			names[i] = v.Type.Ref.GoName
		case idl.KindMap:
			names[i] = "Map"
		default:
			names[i] = title(v.Type.Kind.String())
			if v.Type.Kind == idl.KindAny && i == len(t.Variants)-1 {
				names[i] = "Other" // the catch-all
			}
		}
	}
	arrays := 0
	for i, v := range t.Variants {
		if v.Type.Kind == idl.KindArray && names[i] == "Array" {
			arrays++
		}
	}
	if arrays > 1 {
		// Several arrays, told apart by their items: named by them.
		for i, v := range t.Variants {
			if v.Type.Kind != idl.KindArray || names[i] != "Array" {
				continue
			}
			if item := v.Type.Elem; item.Kind == idl.KindRef {
				names[i] = item.Ref.GoName + "List"
			} else {
				names[i] = title(item.Kind.String()) + "List"
			}
		}
	}
	return names
}

// validTag reports whether encoding/json accepts name in a struct tag.
func validTag(name string) bool {
	if name == "" || name == "-" {
		return false
	}
	for _, c := range name {
		if !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}

// findOrigins describes where each inline type appears, for its doc.
func (g *generator) findOrigins() {
	for _, m := range g.p.Methods {
		if m.Params != nil {
			g.origin(m.Params, "are the params of "+m.Name)
		}
		if f := m.NotificationForm; f != nil && f.Params != nil {
			g.origin(f.Params, "are the params of "+m.Name+" sent as a notification")
		}
		if m.Result != nil {
			g.origin(m.Result, "is the result of "+m.Name)
		}
	}
	for _, e := range g.p.Errors {
		if e.Data != nil {
			g.origin(e.Data, "is the data of error "+e.Name)
		}
	}
	for _, def := range g.p.Types {
		switch t := def.Type; t.Kind {
		case idl.KindObject:
			for _, f := range t.Fields {
				if f.DeclaredIn == def {
					g.origin(f.Type, fmt.Sprintf("is the %s member of %s", f.Name, def.GoName))
				}
			}
		case idl.KindUnion:
			for i, v := range t.Variants {
				g.origin(v.Type, fmt.Sprintf("is the %s variant of %s", g.variants[def][i], def.GoName))
			}
		case idl.KindArray, idl.KindMap:
			g.origin(t, "is part of "+def.GoName)
		}
	}
}

// origin records desc as the origin of the inline types t holds.
func (g *generator) origin(t *idl.Type, desc string) {
	switch t.Kind {
	case idl.KindRef:
		if _, done := g.origins[t.Ref]; !done && t.Ref.Inline {
			g.origins[t.Ref] = desc
		}
	case idl.KindArray:
		g.origin(t.Elem, "is an element of "+strings.TrimPrefix(strings.TrimPrefix(desc, "is "), "are "))
	case idl.KindMap:
		g.origin(t.Elem, "is a value of "+strings.TrimPrefix(strings.TrimPrefix(desc, "is "), "are "))
	}
}
