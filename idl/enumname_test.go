package idl

import "testing"

func TestEnumValueNamesKeepTheirSpelling(t *testing.T) {
	src := `protocol:
  name: demo
  roles: {a: A., b: B.}
  framing: ndjson
types:
  Format:
    type: enum
    values:
      - {value: hl7, name: HL7}
      - {value: yaml, name: yamlFile}
      - {value: x, name: waiting_for_it}
      - {value: y, name: dark-green}
      - json
`
	p, err := Parse("demo.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"HL7", "YamlFile", "WaitingForIt", "DarkGreen", "JSON"}
	for i, v := range p.Type("Format").Type.Values {
		if v.GoName != want[i] {
			t.Errorf("value %v: GoName %q, want %q", v.Value, v.GoName, want[i])
		}
	}
}
