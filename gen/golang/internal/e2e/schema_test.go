package e2e_test

import (
	"slices"
	"testing"

	invopop "github.com/invopop/jsonschema"
	"github.com/rpcgen/rpcgen/gen/golang/internal/e2e"
	"github.com/rpcgen/rpcgen/gen/jsonschema"
	"github.com/rpcgen/rpcgen/idl"
)

// goObjects maps every object type of e2e.yaml to a value of its generated
// Go type.
var goObjects = map[string]any{
	"Circle":                     e2e.Circle{},
	"ShapeRect":                  e2e.ShapeRect{},
	"TextResource":               e2e.TextResource{},
	"BlobResource":               e2e.BlobResource{},
	"BusyData":                   e2e.BusyData{},
	"InitializeParams":           e2e.InitializeParams{},
	"InitializeParamsClientInfo": e2e.InitializeParamsClientInfo{},
	"InitializeResult":           e2e.InitializeResult{},
	"SlowParams":                 e2e.SlowParams{},
	"LogParams":                  e2e.LogParams{},
	"EchoParams":                 e2e.EchoParams{},
	"EchoResult":                 e2e.EchoResult{},
	"ProgressParams":             e2e.ProgressParams{},
}

// TestGoTypesAgreeWithSchemas reflects the generated Go types with
// invopop/jsonschema and checks them against the schemas rpcgen generates
// from the same IDL: the same properties in the same order, the same
// required ones, and the same JSON type wherever both state one.
func TestGoTypesAgreeWithSchemas(t *testing.T) {
	p, err := idl.Load("../../testdata/e2e/e2e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bundle, err := jsonschema.Bundle(p)
	if err != nil {
		t.Fatal(err)
	}
	r := &invopop.Reflector{AllowAdditionalProperties: true, ExpandedStruct: true, DoNotReference: true}
	checked := 0
	for _, def := range p.Types {
		if def.Type.Kind != idl.KindObject {
			continue
		}
		v, ok := goObjects[def.Name]
		if !ok {
			t.Errorf("object type %s has no Go type in goObjects: add it", def.Name)
			continue
		}
		checked++
		got, want := r.Reflect(v), bundle.Definitions[def.Name]
		if want == nil {
			t.Errorf("%s: no schema in the bundle", def.Name)
			continue
		}
		if g, w := propertyNames(got), propertyNames(want); !slices.Equal(g, w) {
			t.Errorf("%s: Go properties %v, schema properties %v", def.Name, g, w)
		}
		g, w := slices.Sorted(slices.Values(got.Required)), slices.Sorted(slices.Values(want.Required))
		if !slices.Equal(g, w) {
			t.Errorf("%s: Go requires %v, schema requires %v", def.Name, g, w)
		}
		for pair := want.Properties.Oldest(); pair != nil; pair = pair.Next() {
			gp, ok := got.Properties.Get(pair.Key)
			if !ok || pair.Value.Type == "" || gp.Type == "" {
				continue // a reference, a union or a nullable: no plain type to compare
			}
			if gp.Type != pair.Value.Type {
				t.Errorf("%s.%s: Go type %s, schema type %s", def.Name, pair.Key, gp.Type, pair.Value.Type)
			}
		}
	}
	if checked != len(goObjects) {
		t.Errorf("checked %d object types, goObjects lists %d: remove stale entries", checked, len(goObjects))
	}
}

func propertyNames(s *invopop.Schema) []string {
	var names []string
	if s.Properties == nil {
		return nil
	}
	for pair := s.Properties.Oldest(); pair != nil; pair = pair.Next() {
		names = append(names, pair.Key)
	}
	return names
}
