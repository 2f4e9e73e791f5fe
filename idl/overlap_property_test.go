package idl_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/gen"
	"github.com/rpcgen/rpcgen/gen/golang"
	"github.com/rpcgen/rpcgen/idl"
)

const overlapHead = "protocol: {name: overlap, roles: {a: , b: }, framing: ndjson}\ntypes:\n"

// randomUnion returns the types of a random union named u over the
// members a, b, c and d (a sometimes a constant or a closed enum): two to
// four object variants, some of them in a nested union, maybe a string
// variant, and maybe any last.
func randomUnion(rng *rand.Rand, u string) string {
	var b strings.Builder
	n := 2 + rng.IntN(3)
	var objects []string
	for j := range n {
		name := fmt.Sprintf("%sO%d", u, j)
		objects = append(objects, name)
		var fields []string
		for _, m := range []string{"a", "b", "c", "d"} {
			typ := "string"
			if m == "a" && rng.IntN(3) == 0 {
				typ = []string{`"'x'"`, `"'y'"`, `"'x' | 'y'"`, `"'y' | 'z'"`}[rng.IntN(4)]
			}
			switch rng.IntN(3) {
			case 1:
				fields = append(fields, m+": "+typ)
			case 2:
				fields = append(fields, m+"?: "+typ)
			}
		}
		fmt.Fprintf(&b, "  %s: {fields: {%s}}\n", name, strings.Join(fields, ", "))
	}
	variants := objects
	if rng.IntN(3) == 0 { // the last two objects in a nested union
		fmt.Fprintf(&b, "  %sN: %s | %s\n", u, objects[n-2], objects[n-1])
		variants = append(objects[:n-2:n-2], u+"N")
	}
	if rng.IntN(3) == 0 {
		variants = append(variants, "string")
	}
	if rng.IntN(3) == 0 {
		variants = append(variants, "any")
	}
	fmt.Fprintf(&b, "  %s: %s\n", u, strings.Join(variants, " | "))
	return b.String()
}

// someObjects returns every object over the members a to d and an
// undeclared e, a taking the values "x", "y", "z" and "w" in turn, with their
// member names and values.
func someObjects() (objs []string, members [][]string, values [][][]byte) {
	for set := range 1 << 5 {
		for _, a := range []string{"x", "y", "z", "w"} {
			if set&1 == 0 && a != "x" {
				continue
			}
			var ms []string
			var vs [][]byte
			var parts []string
			for i, m := range []string{"a", "b", "c", "d", "e"} {
				if set&(1<<i) == 0 {
					continue
				}
				v := `"s"`
				if m == "a" {
					v = `"` + a + `"`
				}
				ms, vs = append(ms, m), append(vs, []byte(v))
				parts = append(parts, fmt.Sprintf("%q:%s", m, v))
			}
			objs, members, values = append(objs, "{"+strings.Join(parts, ",")+"}"), append(members, ms), append(values, vs)
		}
	}
	return objs, members, values
}

// TestPropertyShadowedVariants checks rpcgen check's rejection of object
// variants that can never be chosen against the rule itself, on random
// overlapping unions: a union is accepted exactly when every object
// variant is chosen for some object, and the error names the first that
// never is.
func TestPropertyShadowedVariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(uint64(*seed), 7))
	objs, members, values := someObjects()
	accepted := 0
	for range 400 {
		types := randomUnion(rng, "U")
		src := overlapHead + types
		_, err := idl.Parse("u.yaml", []byte(src))
		if err != nil && !strings.Contains(err.Error(), "can never be chosen") {
			t.Fatalf("%v\n%s", err, src)
		}
		choices := ruleChoices(t, types)
		wins := map[int]bool{}
		for k := range objs {
			if c := idl.ChooseObject(choices, members[k], func(m int) []byte { return values[k][m] }); c >= 0 {
				wins[c] = true
			}
		}
		var never []string
		for c, ch := range choices {
			if ch.Object != nil && !wins[c] {
				never = append(never, ch.Label())
			}
		}
		switch {
		case err == nil && len(never) > 0:
			t.Errorf("accepted, but %v can never be chosen:\n%s", never, src)
		case err != nil && len(never) == 0:
			t.Errorf("every variant can be chosen, but: %v\n%s", err, src)
		case err != nil && !strings.Contains(err.Error(), "object variant "+never[0]+" "):
			t.Errorf("the first variant that can never be chosen is %s, but: %v\n%s", never[0], err, src)
		case err == nil:
			accepted++
		}
	}
	if accepted < 50 {
		t.Errorf("only %d random unions accepted", accepted)
	}
}

// ruleChoices returns the choices of the union U of types (as randomUnion
// writes them), built from its object types alone, so that the rule can be
// applied to unions that check rejects.
func ruleChoices(t *testing.T, types string) []idl.Choice {
	var objects, union []string
	nested := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSuffix(types, "\n"), "\n") {
		name, def, _ := strings.Cut(strings.TrimSpace(line), ": ")
		switch {
		case name == "U":
			union = strings.Split(def, " | ")
		case name == "UN":
			nested["UN"] = strings.Split(def, " | ")
		default:
			objects = append(objects, line)
		}
	}
	p, err := idl.Parse("o.yaml", []byte(overlapHead+strings.Join(objects, "\n")+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	var choices []idl.Choice
	add := func(name string) {
		def := p.Type(name)
		choices = append(choices, idl.Choice{Type: &idl.Type{Kind: idl.KindRef, Ref: def}, Object: def.Type})
	}
	for _, v := range union {
		switch {
		case nested[v] != nil:
			for _, o := range nested[v] {
				add(o)
			}
		case v == "any":
			choices = append(choices, idl.Choice{Type: &idl.Type{Kind: idl.KindAny}, CatchAll: true})
		case v != "string":
			add(v)
		}
	}
	return choices
}

// TestPropertyOverlappingDecoders generates Go for random overlapping
// unions that check accepts, and checks that the generated decoders choose,
// for every object over their members, the variant idl.ChooseObject (the
// rule the checks of examples apply) chooses.
func TestPropertyOverlappingDecoders(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated package with the go command")
	}
	rng := rand.New(rand.NewPCG(uint64(*seed), 8))
	var types strings.Builder
	for i := 0; i < 40; i++ {
		u := randomUnion(rng, fmt.Sprintf("U%d", i))
		if _, err := idl.Parse("u.yaml", []byte(overlapHead+u)); err == nil {
			types.WriteString(u)
		}
	}
	src := overlapHead + types.String()
	p, err := idl.Parse("overlap.yaml", []byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	objs, members, values := someObjects()
	var cases strings.Builder
	for _, def := range p.Types {
		if def.Type.Kind != idl.KindUnion || strings.HasSuffix(def.Name, "N") {
			continue
		}
		choices := idl.Choices(def.Type)
		for k, obj := range objs {
			want := ""
			if c := idl.ChooseObject(choices, members[k], func(m int) []byte { return values[k][m] }); c >= 0 {
				want = def.Type.Variants[choices[c].Variant].Type.Ref.GoName
			} else if choices[len(choices)-1].CatchAll {
				want = "Other"
			}
			fmt.Fprintf(&cases, "\t{%q, func() any { return new(overlap.%s) }, %q, %q},\n", def.Name, def.GoName, obj, want)
		}
	}
	files, err := golang.Generate(p, golang.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	root, _ := filepath.Abs("..")
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module proptest\n\ngo 1.25\n\nrequire github.com/rpcgen/rpcgen v0.0.0\n\nreplace github.com/rpcgen/rpcgen => "+root+"\n")
	write("go.sum", string(sum))
	if err := gen.Write(filepath.Join(dir, "overlap"), files); err != nil {
		t.Fatal(err)
	}
	write("check/main.go", `package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"

	"proptest/overlap"
)

var cases = []struct {
	union string
	new   func() any
	in    string
	want  string
}{
`+cases.String()+`}

func main() {
	bad := 0
	for _, c := range cases {
		v := c.new()
		got := ""
		if err := json.Unmarshal([]byte(c.in), v); err == nil {
			e := reflect.ValueOf(v).Elem()
			for i := range e.NumField() {
				if !e.Field(i).IsNil() {
					got = e.Type().Field(i).Name
				}
			}
		}
		if got != c.want {
			fmt.Printf("%s %s: decoder chose %q, the rule %q\n", c.union, c.in, got, c.want)
			bad++
		}
	}
	fmt.Printf("%d objects checked, %d failed\n", len(cases), bad)
	if bad > 0 {
		os.Exit(1)
	}
}
`)
	cmd := exec.Command("go", "run", "./check")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod -buildvcs=false", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s\n%s", err, out, src)
	}
	t.Logf("%s", out)
}
