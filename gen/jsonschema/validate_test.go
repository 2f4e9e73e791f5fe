package jsonschema_test

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"testing"

	sjs "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/rpcgen/rpcgen/gen"
	"github.com/rpcgen/rpcgen/gen/jsonschema"
	"github.com/rpcgen/rpcgen/idl"
)

// noLoader refuses to load anything, so that a schema compiles only when
// it needs no other file.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema %s is not in the file", url)
}

// schemas holds the generated files of one protocol, each compiled with a
// compiler that knows no other file.
type schemas struct {
	p         *idl.Protocol
	compilers map[string]*sjs.Compiler // by file path
	ids       map[string]string        // $id by file path
	docs      map[string]any           // decoded file by path
}

// compileAll decodes and compiles every file standalone, failing the test
// when one does not compile.
func compileAll(t *testing.T, p *idl.Protocol, files []gen.File) *schemas {
	t.Helper()
	s := &schemas{p: p, compilers: map[string]*sjs.Compiler{}, ids: map[string]string{}, docs: map[string]any{}}
	for _, f := range files {
		doc, err := sjs.UnmarshalJSON(bytes.NewReader(f.Content))
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		id, _ := doc.(map[string]any)["$id"].(string)
		if want := jsonschema.ID(p, strings.TrimPrefix(f.Path, "schema/")); id != want {
			t.Errorf("%s: $id %q, want %q", f.Path, id, want)
		}
		c := sjs.NewCompiler()
		c.DefaultDraft(sjs.Draft2020)
		c.AssertFormat()
		c.AssertContent()
		c.UseLoader(noLoader{})
		if err := c.AddResource(id, doc); err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		if _, err := c.Compile(id); err != nil {
			t.Errorf("%s does not compile on its own: %v", f.Path, err)
			continue
		}
		s.compilers[f.Path], s.ids[f.Path], s.docs[f.Path] = c, id, doc
	}
	return s
}

// schema compiles the schema at fragment (a JSON pointer, "" for the root)
// of the file at path.
func (s *schemas) schema(t *testing.T, path, fragment string) *sjs.Schema {
	t.Helper()
	c := s.compilers[path]
	if c == nil {
		t.Fatalf("no compiled file %s", path)
	}
	loc := s.ids[path]
	if fragment != "" {
		loc += "#" + fragment
	}
	sch, err := c.Compile(loc)
	if err != nil {
		t.Fatalf("compiling %s: %v", loc, err)
	}
	return sch
}

// validate reports whether the JSON text instance is valid at fragment of
// the file at path.
func (s *schemas) validate(t *testing.T, path, fragment string, instance []byte) error {
	t.Helper()
	v, err := sjs.UnmarshalJSON(bytes.NewReader(instance))
	if err != nil {
		t.Fatalf("instance %s: %v", instance, err)
	}
	return s.schema(t, path, fragment).Validate(v)
}

// pointer writes a JSON pointer, escaped for a URL fragment.
func pointer(tokens ...string) string {
	var b strings.Builder
	for _, tok := range tokens {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
		b.WriteString("/" + url.PathEscape(tok))
	}
	return b.String()
}

func TestSchemasCompile(t *testing.T) {
	for _, pr := range protocols(t) {
		t.Run(pr.name, func(t *testing.T) {
			p, files := load(t, pr.path)
			s := compileAll(t, p, files)
			bundle := "schema/" + p.Name + ".schema.json"
			for _, td := range p.Types {
				s.schema(t, bundle, pointer("$defs", td.Name))
			}
		})
	}
}

func TestExamplesValidate(t *testing.T) {
	for _, pr := range protocols(t) {
		t.Run(pr.name, func(t *testing.T) {
			p, files := load(t, pr.path)
			s := compileAll(t, p, files)
			names := jsonschema.MethodFileNames(p)
			checked := 0
			check := func(what, path, fragment string, v *idl.Value) {
				t.Helper()
				if v == nil {
					return
				}
				checked++
				if err := s.validate(t, path, fragment, v.JSON); err != nil {
					t.Errorf("%s %s does not validate against %s#%s: %v", what, v.JSON, path, fragment, err)
				}
			}
			for _, m := range p.Methods {
				base := "schema/methods/" + names[m.Name]
				for i, x := range m.Examples {
					where := fmt.Sprintf("%s example %d", m.Name, i+1)
					check(where+" params", base+".params.json", "", x.Params)
					check(where+" result", base+".result.json", "", x.Result)
					if x.Error != nil && x.Error.Data != nil {
						check(where+" error data", "schema/errors/"+x.Error.Error.Name+".data.json", "", x.Error.Data)
					}
				}
				if f := m.NotificationForm; f != nil {
					for i, x := range f.Examples {
						check(fmt.Sprintf("%s notification example %d params", m.Name, i+1), base+".notification.params.json", "", x.Params)
					}
				}
			}
			bundle := "schema/" + p.Name + ".schema.json"
			for _, td := range p.Types {
				check("example of "+td.Name, "schema/"+td.Name+".json", "", td.Example)
				check("example of "+td.Name, bundle, pointer("$defs", td.Name), td.Example)
				if td.Type == nil || td.Type.Kind != idl.KindObject {
					continue
				}
				for _, f := range td.Type.Fields {
					at := pointer("properties", f.Name)
					check("example of "+td.Name+"."+f.Name, "schema/"+td.Name+".json", at, f.Example)
					check("default of "+td.Name+"."+f.Name, "schema/"+td.Name+".json", at, f.Default)
				}
			}
			t.Logf("%d values checked", checked)
		})
	}
}

// TestAnnotationsValidate checks every default and example written in any
// generated file against the schema that holds it.
func TestAnnotationsValidate(t *testing.T) {
	for _, pr := range protocols(t) {
		t.Run(pr.name, func(t *testing.T) {
			p, files := load(t, pr.path)
			s := compileAll(t, p, files)
			var paths []string
			for path := range s.docs {
				paths = append(paths, path)
			}
			sort.Strings(paths)
			for _, path := range paths {
				walkSchemas(s.docs[path], nil, func(at []string, obj map[string]any) {
					var values []any
					if d, ok := obj["default"]; ok {
						values = append(values, d)
					}
					if xs, ok := obj["examples"].([]any); ok {
						values = append(values, xs...)
					}
					if len(values) == 0 {
						return
					}
					sch := s.schema(t, path, pointer(at...))
					for _, v := range values {
						if err := sch.Validate(v); err != nil {
							t.Errorf("%s#%s: default or example %v is invalid: %v", path, pointer(at...), v, err)
						}
					}
				})
			}
		})
	}
}

// walkSchemas calls f for every schema object in the schema doc, with the
// JSON pointer tokens that lead to it.
func walkSchemas(doc any, at []string, f func(at []string, obj map[string]any)) {
	obj, ok := doc.(map[string]any)
	if !ok {
		return
	}
	f(at, obj)
	sub := func(v any, tokens ...string) {
		walkSchemas(v, append(append([]string(nil), at...), tokens...), f)
	}
	for _, k := range []string{"items", "additionalProperties", "not"} {
		if v, ok := obj[k]; ok {
			sub(v, k)
		}
	}
	for _, k := range []string{"properties", "$defs"} {
		if m, ok := obj[k].(map[string]any); ok {
			for name, v := range m {
				sub(v, k, name)
			}
		}
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if list, ok := obj[k].([]any); ok {
			for i, v := range list {
				sub(v, k, fmt.Sprint(i))
			}
		}
	}
}

// TestInvalidRejected checks hand-written instances against full.yaml's
// schemas: the invalid ones must be rejected, the valid ones accepted.
func TestInvalidRejected(t *testing.T) {
	p, files := load(t, protocols(t)[0].path)
	s := compileAll(t, p, files)
	item := `"id":7,"name":"pen","note":null,"alias":null,"kind":"item","schema":2`
	cases := []struct {
		file, instance, why string
		valid               bool
	}{
		{"Item", `{` + item + `}`, "the minimal item", true},
		{"InitializeResult", `{"state":"idle","capabilities":{},"sessions":3}`, "an additional integer member", true},
		{"InitializeResult", `{"state":"idle","capabilities":{},"sessions":"3"}`, "an additional member of the wrong type", false},
		{"Meta", `{"any":[1,{"x":null}],"thing":"s"}`, "an object of any members", true},
		{"Item", `{` + item + `,"unknown":[1]}`, "unknown fields are accepted", true},
		{"Item", `{` + item + `,"either":null}`, "nullable union", true},
		{"Item", `{` + item + `,"either":3,"color":"dark-green","blob":"aGk=","url":"https://x.dev/a"}`, "optional fields", true},
		{"Item", `{"id":7,"note":null,"alias":null,"kind":"item","schema":2}`, "missing required field name", false},
		{"Item", `{"id":7,"name":"pen","alias":null,"kind":"item","schema":2}`, "missing required nullable field note", false},
		{"Item", `{` + item + `,"color":"blue"}`, "wrong enum value", false},
		{"Item", `{"id":7,"name":"pen","note":null,"alias":null,"kind":"thing","schema":2}`, "wrong string const", false},
		{"Item", `{"id":7,"name":"pen","note":null,"alias":null,"kind":"item","schema":3}`, "wrong integer const", false},
		{"Item", `{` + item + `,"count":"two"}`, "wrong type", false},
		{"Item", `{` + item + `,"count":1.5}`, "number for an integer", false},
		{"Item", `{"id":true,"name":"pen","note":null,"alias":null,"kind":"item","schema":2}`, "no variant of Id", false},
		{"Item", `{` + item + `,"note":5}`, "wrong type for a nullable field", false},
		{"Item", `{` + item + `,"either":true}`, "no variant of a nullable union", false},
		{"Item", `{` + item + `,"blob":"not base64!"}`, "bad base64", false},
		{"Item", `{` + item + `,"url":"relative/path"}`, "bad uri", false},
		{"Item", `{` + item + `,"createdAt":"yesterday"}`, "bad date-time", false},
		{"Item", `{` + item + `,"settings":{"theme":"blue"}}`, "wrong enum in an inline object", false},
		{"Item", `{` + item + `,"settings":{"theme":"dark","size":{"width":1}}}`, "missing field in a named inline object", false},
		{"Item", `{` + item + `,"grouped":{"a":[{"line":1}]}}`, "missing field in a map of arrays", false},
		{"Item", `{` + item + `,"history":[{"at":"2025-01-02T03:04:05Z","state":"asleep"}]}`, "wrong enum in an array item", false},
		{"Item", `{` + item + `,"matrix":[[1,"x"]]}`, "wrong type in nested arrays", false},
		{"Item", `[]`, "wrong type", false},
		{"Block", `{"type":"text","text":"hi"}`, "text variant", true},
		{"Block", `{"type":"image","data":"aGk="}`, "image variant", true},
		{"Block", `{"type":"video","data":"aGk="}`, "wrong tag", false},
		{"Block", `{"type":"text"}`, "variant missing a field", false},
		{"Block", `{"text":"hi"}`, "no tag", false},
		{"Block", `"hi"`, "not an object", false},
		{"Severity", `2`, "integer enum", true},
		{"Severity", `3`, "wrong integer enum value", false},
		{"Severity", `"Warning"`, "enum value name instead of value", false},
		{"Id", `"a1"`, "string variant", true},
		{"Id", `1.5`, "fraction for integer | string", false},
		{"Contents", `{"uri":"file:///a","text":"hi"}`, "text object variant", true},
		{"Contents", `{"uri":"file:///b","blob":"aGk=","mimeType":"image/png"}`, "blob object variant", true},
		{"Contents", `"file:///c"`, "string variant beside object variants", true},
		{"Contents", `{"uri":"file:///a"}`, "the required members of no variant", false},
		{"Contents", `{"uri":"file:///a","text":"hi","blob":"aGk="}`, "both variants' members (the anyOf takes it; decoders pick the first)", true},
		{"Contents", `{"uri":"file:///a","blob":"aGk=","text":5}`, "a blob with another variant's member (the anyOf takes it as a blob; decoders pick TextContents, listed first, and reject text)", true},
		{"HoverProvider", `true`, "boolean beside overlapping objects", true},
		{"HoverProvider", `{"documentSelector":null,"id":"x"}`, "the object variant that extends the other", true},
		{"TextDocumentFilter", `{"scheme":"file"}`, "one of three members", true},
		{"TextDocumentFilter", `{}`, "none of three members", false},
		{"ProgressValue", `{"kind":"report"}`, "an object for the catch-all", true},
		{"HoverContents", `["a",{"language":"go","value":"x"}]`, "a list of a nested union", true},
		{"HoverContents", `{"language":"go"}`, "a nested union's object missing a member", false},
		{"Contents", `{"text":"hi"}`, "text variant missing a required member", false},
		{"Item", `{` + item + `,"contents":[{"uri":"a","blob":"aGk="},{"uri":"b"}]}`, "no variant of Contents in an array", false},
		{"Priority", `-1`, "integer enum from literals", true},
		{"Priority", `3`, "integer outside the literals", false},
		{"MaybeName", `null`, "nullable alias", true},
		{"MaybeName", `1`, "wrong type for a nullable alias", false},
		{"Names", `[1]`, "wrong item type", false},
		{"Scores", `{"a":1.5}`, "map", true},
		{"Scores", `{"a":"x"}`, "wrong map value", false},
		{"Fruit", `"cherry"`, "wrong enum value", false},
		{"Timestamp", `"2025-13-45"`, "bad date-time", false},
		{"methods/blocks_show.params", `{"blocks":[]}`, "empty list", true},
		{"methods/blocks_show.params", `{}`, "missing params field", false},
		{"methods/blocks_show.params", `{"blocks":[{"type":"audio"}]}`, "wrong tag in an array", false},
		{"methods/blocks_show.params", `{"blocks":[],"severity":5}`, "wrong enum value", false},
		{"methods/full_initialize.result", `{"state":"idle","capabilities":{"x":"yes"}}`, "wrong map value", false},
		{"methods/ping.result", `null`, "null result", true},
		{"methods/ping.result", `{}`, "a result for a method without one", false},
		{"methods/cancelRequest.params", `{"id":"1"}`, "lsp cancellation", true},
		{"errors/Busy.data", `{"retryAfterMs":"soon"}`, "wrong type in error data", false},
		{"errors/Conflict.data", `{"id":1}`, "error data missing fields", false},
	}
	for _, c := range cases {
		err := s.validate(t, "schema/"+c.file+".json", "", []byte(c.instance))
		var verr *sjs.ValidationError
		switch {
		case c.valid && err != nil:
			t.Errorf("%s: %s (%s) rejected: %v", c.file, c.instance, c.why, err)
		case !c.valid && err == nil:
			t.Errorf("%s: %s (%s) accepted", c.file, c.instance, c.why)
		case err != nil && !errors.As(err, &verr):
			t.Errorf("%s: %s: %v", c.file, c.instance, err)
		}
	}
}
