package lsp

import (
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// convertType maps one meta-model type, given as JSON, in a meta model
// that defines the structures A and B and the enumeration E.
func convertType(t *testing.T, js string) (string, error) {
	t.Helper()
	var typ Type
	if err := strict([]byte(js), &typ); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	c := &converter{known: map[string]bool{"A": true, "B": true, "E": true}, usedBase: map[string]bool{}}
	e, err := c.typeOf(&typ, "here")
	if err != nil {
		return "", err
	}
	var w yamlWriter
	w.mapping((&mapping{}).set("t", e.node()), 0)
	return strings.TrimPrefix(w.b.String(), "t:"), nil
}

func TestTypeMapping(t *testing.T) {
	ref := func(n string) string { return `{"kind":"reference","name":"` + n + `"}` }
	base := func(n string) string { return `{"kind":"base","name":"` + n + `"}` }
	for _, tc := range []struct{ name, in, want string }{
		{"integer is int32", base("integer"), ` int32`},
		{"uinteger is uint32", base("uinteger"), ` uint32`},
		{"decimal is number", base("decimal"), ` number`},
		{"RegExp is a string", base("RegExp"), ` string`},
		{"URI is the named string type", base("URI"), ` URI`},
		{"DocumentUri too", base("DocumentUri"), ` DocumentUri`},
		{"reference", ref("A"), ` A`},
		{"array", `{"kind":"array","element":` + ref("A") + `}`, ` "[]A"`},
		{"array of a union keeps it whole", `{"kind":"array","element":{"kind":"or","items":[` + ref("A") + `,` + ref("B") + `]}}`, ` "[](A | B)"`},
		{"or with null is nullable", `{"kind":"or","items":[` + ref("A") + `,` + base("null") + `]}`, ` A | null`},
		{"nested or is flattened", `{"kind":"or","items":[` + ref("A") + `,{"kind":"or","items":[` + base("string") + `,` + base("null") + `]}]}`, ` A | string | null`},
		{"map keyed by DocumentUri", `{"kind":"map","key":` + base("DocumentUri") + `,"value":` + ref("A") + `}`, ` map<DocumentUri, A>`},
		{"map keyed by an enum", `{"kind":"map","key":` + ref("E") + `,"value":` + base("string") + `}`, ` map<E, string>`},
		{"map keyed by integer", `{"kind":"map","key":` + base("integer") + `,"value":` + base("boolean") + `}`, ` map<int32, boolean>`},
		{"string literal", `{"kind":"stringLiteral","value":"begin"}`, ` "'begin'"`},
		{"integer literal", `{"kind":"integerLiteral","value":3}`, ` "3"`},
		{"boolean literal", `{"kind":"booleanLiteral","value":false}`, ` "false"`},
		{"tuple", `{"kind":"tuple","items":[` + base("uinteger") + `,` + base("uinteger") + `]}`, "\n  type: tuple\n  items: [uint32, uint32]\n"},
		{"and extends both", `{"kind":"and","items":[` + ref("A") + `,` + ref("B") + `]}`, "\n  extends: [A, B]\n"},
		{"literal", `{"kind":"literal","value":{"properties":[{"name":"x","type":` + base("string") + `,"optional":true}]}}`, "\n  fields:\n    x?: string\n"},
		{"empty literal", `{"kind":"literal","value":{"properties":[]}}`, ` {type: object}`},
		{"union with a literal", `{"kind":"or","items":[` + base("boolean") + `,{"kind":"literal","value":{"properties":[]}},` + base("null") + `]}`, "\n  type: union\n  nullable: true\n  variants:\n    - boolean\n    - {type: object}\n"},
		{"nullable literal", `{"kind":"or","items":[{"kind":"literal","value":{"properties":[{"name":"a","type":` + base("string") + `}]}},` + base("null") + `]}`, "\n  nullable: true\n  fields:\n    a: string\n"},
		{"array of a literal", `{"kind":"array","element":{"kind":"literal","value":{"properties":[]}}}`, "\n  type: array\n  items: {type: object}\n"},
		{"map of a literal", `{"kind":"map","key":` + base("string") + `,"value":{"kind":"literal","value":{"properties":[]}}}`, "\n  type: map\n  values: {type: object}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := convertType(t, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if strings.TrimSuffix(got, "\n") != strings.TrimSuffix(tc.want, "\n") {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestTypeMappingErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"kind":"base","name":"null"}`, "here: null outside a union"},
		{`{"kind":"reference","name":"Nope"}`, `here: reference to "Nope", which the meta model does not define`},
		{`{"kind":"or","items":[{"kind":"base","name":"null"}]}`, "here: a union of null only"},
		{`{"kind":"and","items":[{"kind":"base","name":"string"}]}`, `here: an "and" type of something else than a reference`},
		{`{"kind":"integerLiteral","value":1.5}`, "here: integer literal 1.5 is not a whole number"},
		{`{"kind":"stringLiteral","value":"it's"}`, "holds a quote"},
		{`{"kind":"map","key":{"kind":"base","name":"boolean"},"value":{"kind":"base","name":"string"}}`, `here: a map keyed by base "boolean"`},
		{`{"kind":"map","key":{"kind":"base","name":"integer"},"value":{"kind":"literal","value":{"properties":[]}}}`, "the IDL's long form only has string keys"},
	} {
		_, err := convertType(t, tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got error %v, want one containing %q", tc.in, err, tc.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"metaData":{"version":"3.17.0"},"extra":1}`, `not an LSP meta model: json: unknown field "extra"`},
		{"{\n  \"metaData\": {\"version\": 3}}", "not an LSP meta model: 2:28: json: cannot unmarshal number"},
		{`{"requests":[{"method":"a","messageDirection":"both","result":{"kind":"base","name":"null"},"color":1}]}`, `requests[0] "a": json: unknown field "color"`},
		{`{"structures":[{"name":"S","properties":[{"name":"p","type":{"kind":"weird"}}]}]}`, `structures[0] "S": unknown type kind "weird"`},
		{`{"structures":[{"name":"S","properties":[{"name":"p","type":{"kind":"base","name":"float"}}]}]}`, `unknown base type "float"`},
		{`{"structures":[{"name":"S","properties":[{"name":"p","type":{"kind":"array","element":{"kind":"base","name":"string"},"key":{"kind":"base","name":"string"}}}]}]}`, `unknown field "key"`},
		{`{"typeAliases":[{"name":"T","type":{"kind":"array"}}]}`, `typeAliases[0] "T": missing element`},
	} {
		_, err := Import([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got error %v\nwant one containing %q", tc.in, err, tc.want)
		}
	}
}

func TestConvertErrors(t *testing.T) {
	null := `{"kind":"base","name":"null"}`
	for _, tc := range []struct{ in, want string }{
		{`{"requests":[{"method":"a","messageDirection":"sideways","result":` + null + `}]}`, `request a: unknown messageDirection "sideways"`},
		{`{"requests":[{"method":"a","messageDirection":"both"}]}`, "request a: no result"},
		{`{"notifications":[{"method":"a","messageDirection":"both"},{"method":"a","messageDirection":"both"}]}`, "notification a: declared twice"},
		{`{"requests":[{"method":"a","messageDirection":"both","result":` + null + `,"errorData":{"kind":"base","name":"string"}}]}`, `request a: no error is known for errorData base "string"`},
		{`{"structures":[{"name":"S","since":"someday","properties":[]}]}`, `since "someday" holds no version number`},
		{`{"structures":[{"name":"S","properties":[]},{"name":"S","properties":[]}]}`, `structure "S": defined twice`},
		{`{"structures":[{"name":"S","extends":[{"kind":"reference","name":"E"}],"properties":[]}],"enumerations":[{"name":"E","type":{"kind":"base","name":"string"},"values":[]}]}`, `structure S: extends "E", which is not a structure`},
		{`{"structures":[{"name":"S","extends":[{"kind":"reference","name":"S"},{"kind":"reference","name":"S"}],"properties":[{"name":"p","type":{"kind":"base","name":"string"}}]}]}`, "structure S: extends itself"},
		{`{"structures":[{"name":"A","extends":[{"kind":"reference","name":"B"}],"properties":[]},{"name":"B","mixins":[{"kind":"reference","name":"A"}],"properties":[]}]}`, "structure B: extends itself"},
		{`{"enumerations":[{"name":"E","type":{"kind":"base","name":"boolean"},"values":[]}]}`, "enumeration E: its type must be the base type string, integer or uinteger"},
		{`{"enumerations":[{"name":"E","type":{"kind":"base","name":"uinteger"},"values":[{"name":"A","value":"a"}]}]}`, `enumeration E, value "A": "a" is not an integer`},
		{`{"typeAliases":[{"name":"URI","type":{"kind":"base","name":"string"}}]}`, `type alias "URI": the name of a base type`},
	} {
		_, err := Import([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got error %v\nwant one containing %q", tc.in, err, tc.want)
		}
	}
}

// TestQuoteReadsBack checks that every scalar the writer emits reads back,
// through a YAML parser, as the same string.
func TestQuoteReadsBack(t *testing.T) {
	for _, s := range []string{
		"", "null", "Null", "true", "yes", "off", "~", "3.17.0", "-32800", "2", "[]A", "[](A | B)",
		"'create'", "map<string, any>", "A | null", "$/", "$/progress", "a: b", "a #b", "a:", " a",
		"https://x/#anchor", "Use `tags` instead.", "in favour of rootUri.", "{type}", "a,b", "@x", "*x", "&x", "!x", "%x", "?x", "-x", "#x", "é",
	} {
		for _, flow := range []bool{false, true} {
			doc := "k: " + quote(s, flow) + "\n"
			if flow {
				doc = "k: [" + quote(s, flow) + "]\n"
			}
			var v map[string]any
			if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
				t.Errorf("%q (flow %v): %v", doc, flow, err)
				continue
			}
			got := v["k"]
			if flow {
				l, ok := got.([]any)
				if !ok || len(l) != 1 {
					t.Errorf("%q: read %#v", doc, got)
					continue
				}
				got = l[0]
			}
			if got != s {
				t.Errorf("%q (flow %v): read %#v, want %q", doc, flow, got, s)
			}
		}
	}
}
