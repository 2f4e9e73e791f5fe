package idl

import "testing"

func TestNullableNamedCompoundTypes(t *testing.T) {
	src := `protocol:
  name: demo
  roles: {a: A., b: B.}
  framing: ndjson
types:
  Tagged:
    type: union
    nullable: true
    discriminator: kind
    variants:
      - fields: {kind: "'x'"}
      - fields: {kind: "'y'"}
  Kinds: "(string | integer)?"
  Mode: {type: enum, values: [on, off], nullable: true}
  Box: {fields: {size: integer}, nullable: true}
  Plain: {fields: {size: integer}}
`
	p, err := Parse("demo.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"Tagged": true, "Kinds": true, "Mode": true, "Box": true, "Plain": false} {
		def := p.Type(name)
		if def == nil {
			t.Fatalf("type %s not found", name)
		}
		if def.Type.Nullable != want {
			t.Errorf("%s: Nullable = %v, want %v", name, def.Type.Nullable, want)
		}
	}
}
