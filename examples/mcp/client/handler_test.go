package main

import (
	"encoding/json"
	"testing"

	"github.com/rpcgen/rpcgen/generated/mcp"
)

// TestDefaultValue shows the value an accepted form submits for each kind
// of property: its default, else a number's minimum, an enum's first value,
// an empty string, false, or an empty list.
func TestDefaultValue(t *testing.T) {
	for property, want := range map[string]string{
		`{"type":"string"}`:                                         `""`,
		`{"type":"string","default":"x"}`:                           `"x"`,
		`{"type":"boolean"}`:                                        `false`,
		`{"type":"boolean","default":true}`:                         `true`,
		`{"type":"integer","minimum":3}`:                            `3`,
		`{"type":"number","minimum":3,"default":4.5}`:               `4.5`,
		`{"type":"string","enum":["a","b"]}`:                        `"a"`,
		`{"type":"string","enum":["a","b"],"default":"b"}`:          `"b"`,
		`{"type":"string","enum":["a"],"enumNames":["A"]}`:          `"a"`,
		`{"type":"string","oneOf":[{"const":"c","title":"C"}]}`:     `"c"`,
		`{"type":"array","items":{"type":"string","enum":["a"]}}`:   `[]`,
		`{"type":"array","items":{"anyOf":[]},"default":["d","e"]}`: `["d","e"]`,
	} {
		var p mcp.PrimitiveSchemaDefinition
		if err := json.Unmarshal([]byte(property), &p); err != nil {
			t.Fatalf("%s: %v", property, err)
		}
		v, err := defaultValue(p)
		if err != nil {
			t.Fatalf("%s: %v", property, err)
		}
		if got, _ := json.Marshal(v); string(got) != want {
			t.Errorf("%s: submits %s, want %s", property, got, want)
		}
	}
	if _, err := defaultValue(mcp.PrimitiveSchemaDefinition{}); err == nil {
		t.Error("an empty property has a default value")
	}
}
