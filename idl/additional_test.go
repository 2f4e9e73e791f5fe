package idl

import (
	"strings"
	"testing"
)

func TestAdditionalMembers(t *testing.T) {
	src := `protocol:
  name: demo
  roles: {a: A., b: B.}
  framing: ndjson
types:
  Meta:
    additional: any
  Result:
    fields:
      _meta?: Meta
    additional: {fields: {n: integer}}
    example: {_meta: {x: [1]}, other: {n: 2}}
`
	p, err := Parse("demo.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	meta := p.Type("Meta").Type
	if meta.Kind != KindObject || meta.Additional == nil || meta.Additional.Kind != KindAny || len(meta.Fields) != 0 {
		t.Errorf("Meta = %+v, want an object of any members", meta)
	}
	res := p.Type("Result").Type
	if res.Additional == nil || res.Additional.Kind != KindRef || res.Additional.Ref.Name != "ResultExtra" {
		t.Errorf("Result.Additional = %+v, want a reference to the synthesized ResultExtra", res.Additional)
	}

	// Undeclared members of an example must be of the additional type.
	bad := strings.Replace(src, "other: {n: 2}", "other: {n: two}", 1)
	_, err = Parse("demo.yaml", []byte(bad))
	if err == nil || !strings.Contains(err.Error(), "demo.yaml:12:43:") || !strings.Contains(err.Error(), "must be an integer") {
		t.Errorf("bad additional member: %v", err)
	}
	// additional applies to objects only.
	_, err = Parse("demo.yaml", []byte(strings.Replace(src, "additional: any", "type: array\n    items: string\n    additional: any", 1)))
	if err == nil || !strings.Contains(err.Error(), "key additional does not apply to type array") {
		t.Errorf("additional on an array: %v", err)
	}
}
