package idl_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/rpcgen/rpcgen/idl"
)

// schemaFile is the JSON Schema of the IDL, which editors use through the
// first line of every IDL file: modeline followed by a path relative to
// the file.
const (
	schemaFile = "rpcgen-idl.schema.json"
	modeline   = "# yaml-language-server: $schema="
)

// notIDL lists the YAML files of the repository that are not IDL files.
var notIDL = map[string]string{
	"examples/hermes/testdata/upstream/message.yaml": "an HL7 message the Hermes example reads",
	"rpcgen.yaml": "the project file rpcgen generate reads",
}

// compileSchema compiles the IDL's schema, which checks it against the
// draft 2020-12 meta-schema.
func compileSchema(t *testing.T) *sjs.Schema {
	t.Helper()
	abs, err := filepath.Abs(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sjs.NewCompiler().Compile(abs)
	if err != nil {
		t.Fatalf("compiling %s: %v", schemaFile, err)
	}
	return s
}

// yamlValue converts a YAML document into the JSON value a schema
// validator takes, as editors do.
func yamlValue(t *testing.T, name string, src []byte) any {
	t.Helper()
	j, err := yaml.YAMLToJSON(src)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	v, err := sjs.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// TestSchemaValidatesEveryIDL validates every IDL file of the repository
// (the invalid corpus aside) against the schema, and checks that its
// first line points editors at the schema.
func TestSchemaValidatesEveryIDL(t *testing.T) {
	s := compileSchema(t)
	want, err := filepath.Abs(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, ".."+string(filepath.Separator)))
		if d.IsDir() {
			if path != ".." && strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || rel == "bin" || rel == "idl/testdata/invalid" || d.Name() == "fuzz" {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" || notIDL[rel] != "" {
			return nil
		}
		checked++
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		first, _, _ := strings.Cut(string(src), "\n")
		ref, ok := strings.CutPrefix(first, modeline)
		if target, _ := filepath.Abs(filepath.Join(filepath.Dir(path), filepath.FromSlash(ref))); !ok || target != want {
			t.Errorf("%s: first line %q; want %s followed by the path of idl/%s from the file", rel, first, modeline, schemaFile)
		}
		if err := s.Validate(yamlValue(t, rel, src)); err != nil {
			t.Errorf("%s does not validate against the IDL schema: %v", rel, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 20 {
		t.Errorf("checked %d IDL files; want every one of the repository (protocols/, testdata, examples, bench)", checked)
	}
	t.Logf("checked %d IDL files", checked)
}

// schemaDoc is the schema as plain JSON, to read its keys.
func schemaDoc(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// at returns the value at the JSON pointer ptr of doc.
func at(t *testing.T, doc any, ptr string) any {
	t.Helper()
	v := doc
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if tok == "" {
			continue
		}
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i := int(tok[0] - '0')
			if len(tok) != 1 || i >= len(x) {
				t.Fatalf("%s: no item %s", ptr, tok)
			}
			v = x[i]
		default:
			t.Fatalf("%s: nothing at %s", ptr, tok)
		}
	}
	if v == nil {
		t.Fatalf("the schema has nothing at %s", ptr)
	}
	return v
}

// props returns the sorted property names of the object schema at ptr,
// which must refuse other properties.
func props(t *testing.T, doc any, ptr string) []string {
	t.Helper()
	s, ok := at(t, doc, ptr).(map[string]any)
	if !ok || s["additionalProperties"] != false {
		t.Errorf("%s: not an object schema with additionalProperties false", ptr)
		return nil
	}
	var keys []string
	for k := range s["properties"].(map[string]any) {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// sorted returns keys sorted, without duplicates.
func sorted(keys ...string) []string {
	out := slices.Clone(keys)
	slices.Sort(out)
	return slices.Compact(out)
}

// Places of the IDL's mappings: a pointer into the schema, and a protocol
// with the unknown key zqxjkv at that place, so that the loader lists the
// keys it accepts there.
var places = []struct {
	what, ptr, src string
}{
	{"file", "", "zqxjkv: 1\n"},
	{"protocol", "/$defs/protocol", "  zqxjkv: 1\n"},
	{"role", "/$defs/role/anyOf/2", ""},
	{"transport", "/$defs/transport/anyOf/1", "  transports: [{kind: stdio, zqxjkv: 1}]\n"},
	{"on_timeout", "/$defs/on_timeout", "  timeout: 1s\n  on_timeout: {zqxjkv: 1}\n"},
	{"handshake", "/$defs/protocol/properties/handshake/anyOf/1", "  handshake: {method: ping, zqxjkv: 1}\n"},
	{"batches", "/$defs/protocol/properties/batches/anyOf/1", "  batches: {versions: [\"1\"], zqxjkv: 1}\n"},
	{"error", "/$defs/error", "errors: {E: {code: 1, message: m, zqxjkv: 1}}\n"},
	{"method", "/$defs/method", "methods: {ping: {from: client, kind: request, zqxjkv: 1}}\n"},
	{"notification form", "/$defs/notificationForm", "methods: {ping: {from: client, kind: request, notification: {from: server, zqxjkv: 1}}}\n"},
	{"example", "/$defs/example", "methods: {ping: {from: client, kind: request, examples: [{result: null, zqxjkv: 1}]}}\n"},
	{"example error", "/$defs/example/properties/error/anyOf/1", "methods: {ping: {from: client, kind: request, examples: [{error: {code: -32600, zqxjkv: 1}}]}}\n"},
	{"type", "/$defs/type/anyOf/2", "types: {T: {type: string, zqxjkv: 1}}\n"},
	{"field", "/$defs/field/anyOf/2", "types: {T: {fields: {a: {type: string, zqxjkv: 1}}}}\n"},
	{"enum value", "/$defs/enumValue/anyOf/2", "types: {T: {type: enum, values: [{value: a, zqxjkv: 1}]}}\n"},
}

var validKeysRE = regexp.MustCompile(`unknown key "zqxjkv" in [^;]*; valid keys: (.*)`)

// TestSchemaKeysMatchTheLoader checks each mapping of the schema against
// the keys the loader accepts at that place, as its "unknown key" error
// lists them: the schema knows every key, and refuses the others.
func TestSchemaKeysMatchTheLoader(t *testing.T) {
	doc := schemaDoc(t)
	for _, pl := range places {
		src := "protocol:\n  name: demo\n  roles: {client: C., server: S.}\n  framing: ndjson\n" + pl.src
		if pl.what == "role" {
			src = strings.Replace(src, "client: C.", "client: {doc: C., zqxjkv: 1}", 1)
		}
		_, err := idl.Parse("demo.yaml", []byte(src))
		m := validKeysRE.FindStringSubmatch(errString(err))
		if m == nil {
			t.Errorf("%s: the loader lists no valid keys for zqxjkv: %v", pl.what, err)
			continue
		}
		loader := sorted(strings.Split(m[1], ", ")...)
		if pl.what == "notification form" {
			// Keys the loader takes only to explain that they belong to
			// the request.
			loader = slices.DeleteFunc(loader, func(k string) bool {
				return slices.Contains([]string{"kind", "result", "errors", "timeout", "on_timeout", "notification"}, k)
			})
		}
		if got := props(t, doc, pl.ptr); !slices.Equal(got, loader) {
			t.Errorf("%s: the schema (%s) has keys %v; the loader accepts %v", pl.what, pl.ptr, got, loader)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
