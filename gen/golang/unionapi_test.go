package golang

import (
	"slices"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/idl"
)

// TestUnionConstructorNames checks the naming rule: one generic
// New<Union>, and New<Union><Variant> per variant only where two variants
// share a Go type, which type inference could not tell apart.
func TestUnionConstructorNames(t *testing.T) {
	union := func(types ...*idl.Type) *idl.TypeDef {
		def := &idl.TypeDef{Name: "U", GoName: "U", Type: &idl.Type{Kind: idl.KindUnion}}
		for _, ty := range types {
			def.Type.Variants = append(def.Type.Variants, &idl.Variant{Type: ty})
		}
		return def
	}
	str := &idl.Type{Kind: idl.KindString}
	uri := &idl.Type{Kind: idl.KindString, Format: "uri"}
	num := &idl.Type{Kind: idl.KindInteger, Width: idl.Int64}
	opts := &idl.Type{Kind: idl.KindRef, Ref: &idl.TypeDef{Name: "Options", GoName: "Options"}}

	distinct := union(str, num, opts)
	if got := unionConstructors(distinct, []string{"String", "Integer", "Options"}); !slices.Equal(got, []string{"NewU"}) {
		t.Errorf("distinct Go types: constructors %v, want [NewU]", got)
	}
	if got := sharedGoTypes(distinct); len(got) != 0 {
		t.Errorf("distinct Go types: shared %v", got)
	}
	shared := union(str, opts, uri)
	if got := sharedGoTypes(shared); len(got) != 1 || !slices.Equal(got[2], []int{0}) {
		t.Errorf("string and string (uri): shared %v, want variant 2 sharing with 0", got)
	}
	want := []string{"NewUString", "NewUOptions", "NewUURI"}
	if got := unionConstructors(shared, []string{"String", "Options", "URI"}); !slices.Equal(got, want) {
		t.Errorf("shared Go types: constructors %v, want %v", got, want)
	}
}

// TestUnionAPI checks the generated constructor and Value method of a
// union whose variants have distinct Go types, a catch-all among them.
func TestUnionAPI(t *testing.T) {
	src := header + `types:
  HoverOptions: {fields: {a: string}}
  U: "boolean | HoverOptions | any"
`
	p, err := idl.Parse("demo.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var unions string
	for _, f := range files {
		if f.Path == "unions.go" {
			unions = string(f.Content)
		}
	}
	for _, want := range []string{
		"func NewU[V bool | HoverOptions | json.RawMessage](v V) U {",
		"\tcase bool:\n\t\tx.Boolean = &v\n",
		"\tcase json.RawMessage:\n\t\tx.Other = v\n",
		"func (x *U) Value() any {",
		"\tcase x == nil:\n\t\treturn nil\n",
		"\tcase x.Boolean != nil:\n\t\treturn *x.Boolean\n",
		"\tcase x.Other != nil:\n\t\treturn x.Other\n",
		"//   - HoverOptions: [HoverOptions], an object with",
	} {
		if !strings.Contains(unions, want) {
			t.Errorf("unions.go lacks %q:\n%s", want, unions)
		}
	}
}
