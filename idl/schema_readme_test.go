package idl_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	sjs "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/rpcgen/rpcgen/idl"
)

// TestSchemaRefusesInvalidCorpus validates a sample of the invalid
// corpus whose errors a schema can see (unknown keys, values of the wrong
// type, values outside an enum, missing keys, keys a notification may not
// have, keys that do not apply to the kind type: names) and expects the
// schema to refuse each for that reason. The rest of the corpus is errors
// only the loader sees: unknown type names, cycles, Go name clashes, the
// error-code rule, examples, syntax inside compact types.
func TestSchemaRefusesInvalidCorpus(t *testing.T) {
	s := compileSchema(t)
	for name, want := range map[string][]string{
		"unknown_key":             {"at '/methods/ping': additional properties", "'paramz'", "'descripton'"},
		"http_unknown_key":        {"at '/protocol/transports/0': additional properties 'sesion_header' not allowed"},
		"wrong_shapes":            {"at '/protocol/roles': got array, want object", "at '/types': got array, want object", "at '/methods/ping': got string, want object"},
		"bad_framing":             {"at '/protocol/framing': value must be one of", "at '/protocol/ids': value must be one of", "at '/protocol/cancellation': value must be one of"},
		"bad_ordering":            {"at '/protocol/ordering': value must be one of"},
		"ignore_not_list":         {"at '/protocol/ignore_unknown_notifications': got string, want array"},
		"batches_not_bool":        {"at '/protocol/batches': got string, want boolean"},
		"batches_versions_string": {"at '/protocol/batches/versions': got string, want array"},
		"handshake_not_string":    {"at '/protocol/handshake': got array, want string"},
		"idempotent_misused":      {"at '/methods/ping/idempotent': got string, want boolean", "at '/methods/log/idempotent': false schema"},
		"missing_from":            {"at '/methods/ping': missing property 'from'"},
		"missing_kind":            {"at '/methods/ping': missing property 'kind'"},
		"roles_count":             {"at '/protocol/roles': maxProperties: got 3, want 2"},
		"notification_form":       {"at '/methods/pause/notification': missing property 'from'", "at '/methods/resume/notification': additional properties", "'on_timeout'"},
		"notification_result":     {"at '/methods/progress/result': false schema"},
		"empty_field_name":        {"invalid propertyName ''"},
		"key_misplaced":           {"at '/types/T/values': false schema", "at '/types/T/items': false schema", "at '/types/E/fields': false schema", "at '/types/S/discriminator': false schema"},
	} {
		file := filepath.Join("testdata", "invalid", name+".yaml")
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		err = s.Validate(yamlValue(t, file, src))
		if err == nil {
			t.Errorf("%s: the schema accepts it", file)
			continue
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: the schema's errors do not say %q:\n%v", file, w, err)
			}
		}
	}
}

// section is the text of one section of idl/README.md, under its heading.
type section struct {
	heading string
	text    string
}

// readmeSections splits idl/README.md at its headings.
func readmeSections(t *testing.T) []section {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []section
	fence := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if !fence && strings.HasPrefix(line, "#") {
			out = append(out, section{heading: strings.TrimSpace(strings.TrimLeft(line, "#"))})
			continue
		}
		if len(out) > 0 {
			out[len(out)-1].text += line + "\n"
		}
	}
	return out
}

// sectionText returns the text of the section with heading h.
func sectionText(t *testing.T, secs []section, h string) string {
	t.Helper()
	for _, s := range secs {
		if s.heading == h {
			return s.text
		}
	}
	t.Fatalf("idl/README.md has no section %q", h)
	return ""
}

// tables returns the rows of the tables of text, each row as its cells,
// the header row first and the separator row left out.
func tables(text string) [][][]string {
	var out [][][]string
	in := false
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "|") {
			in = false
			continue
		}
		if strings.HasPrefix(line, "|---") {
			continue
		}
		line = strings.ReplaceAll(line, `\|`, "\x00")
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(strings.ReplaceAll(cells[i], "\x00", "|"))
		}
		if !in {
			out = append(out, nil)
			in = true
		}
		out[len(out)-1] = append(out[len(out)-1], cells)
	}
	return out
}

var (
	backticked = regexp.MustCompile("`([^`]+)`")
	parens     = regexp.MustCompile(`\([^)]*\)`)
)

// keysOf returns the keys written in backticks in cell, leaving out what
// parentheses say about them ("`host` (default `localhost`)").
func keysOf(cell string) []string {
	var keys []string
	for _, m := range backticked.FindAllStringSubmatch(parens.ReplaceAllString(cell, ""), -1) {
		keys = append(keys, m[1])
	}
	return keys
}

// keyTable returns the keys of the first column of the table of section h
// whose header starts with header.
func keyTable(t *testing.T, secs []section, h, header string) []string {
	t.Helper()
	for _, tab := range tables(sectionText(t, secs, h)) {
		if tab[0][0] != header {
			continue
		}
		var keys []string
		for _, row := range tab[1:] {
			keys = append(keys, keysOf(row[0])...)
		}
		return sorted(keys...)
	}
	t.Fatalf("section %q of idl/README.md has no table starting with %q", h, header)
	return nil
}

// TestSchemaKeysMatchTheREADME checks the schema against the key
// reference of idl/README.md: every key of its tables is in the schema,
// and every key of the schema in its table. Mappings without a table
// (roles, handshake, batches, examples, enum values, the notification
// form) must have each of their keys named in the section that documents
// them.
func TestSchemaKeysMatchTheREADME(t *testing.T) {
	doc := schemaDoc(t)
	secs := readmeSections(t)
	for _, c := range []struct{ section, header, ptr string }{
		{"File layout", "key", ""},
		{"`protocol`", "key", "/$defs/protocol"},
		{"on_timeout", "key", "/$defs/on_timeout"},
		{"Long form", "key", "/$defs/type/anyOf/2"},
		{"`errors`", "key", "/$defs/error"},
		{"`methods`", "key", "/$defs/method"},
	} {
		readme := keyTable(t, secs, c.section, c.header)
		if got := props(t, doc, c.ptr); !slices.Equal(got, readme) {
			t.Errorf("section %q of idl/README.md lists %v; the schema (%s) has %v", c.section, readme, c.ptr, got)
		}
	}

	// A field takes the keys of a type in long form and its own.
	field := sorted(append(keyTable(t, secs, "Long form", "key"), keyTable(t, secs, "Fields", "key")...)...)
	if got := props(t, doc, "/$defs/field/anyOf/2"); !slices.Equal(got, field) {
		t.Errorf("sections Long form and Fields of idl/README.md list %v for a field; the schema has %v", field, got)
	}

	// Transports: the options of each kind, the http table, and doc.
	transport := at(t, doc, "/$defs/transport/anyOf/1").(map[string]any)
	schemaOpts := map[string][]string{}
	for _, rule := range transport["allOf"].([]any) {
		r := rule.(map[string]any)
		kind := r["if"].(map[string]any)["properties"].(map[string]any)["kind"].(map[string]any)["const"].(string)
		var opts []string
		for _, k := range r["then"].(map[string]any)["propertyNames"].(map[string]any)["enum"].([]any) {
			if k != "kind" && k != "doc" {
				opts = append(opts, k.(string))
			}
		}
		schemaOpts[kind] = sorted(opts...)
	}
	all := []string{"kind", "doc"}
	var kinds []string
	for _, tab := range tables(sectionText(t, secs, "Transports")) {
		switch tab[0][0] {
		case "kind":
			for _, row := range tab[1:] {
				kind := keysOf(row[0])[0]
				kinds = append(kinds, kind)
				if readme := sorted(keysOf(row[1])...); !slices.Equal(schemaOpts[kind], readme) {
					t.Errorf("transport %s: idl/README.md lists options %v; the schema allows %v", kind, readme, schemaOpts[kind])
				}
				all = append(all, keysOf(row[1])...)
			}
		case "key":
			var keys []string
			for _, row := range tab[1:] {
				keys = append(keys, keysOf(row[0])...)
			}
			if !slices.Equal(sorted(keys...), schemaOpts["http"]) {
				t.Errorf("the http table of idl/README.md lists %v; the schema allows %v", sorted(keys...), schemaOpts["http"])
			}
		}
	}
	if len(kinds) != len(schemaOpts) {
		t.Errorf("idl/README.md lists transports %v; the schema has %d", kinds, len(schemaOpts))
	}
	if got := props(t, doc, "/$defs/transport/anyOf/1"); !slices.Equal(got, sorted(all...)) {
		t.Errorf("idl/README.md documents transport keys %v; the schema has %v", sorted(all...), got)
	}
	if !strings.Contains(sectionText(t, secs, "Transports"), "Every entry also takes `doc`.") {
		t.Error("section Transports of idl/README.md no longer says that every entry takes doc")
	}

	for _, c := range []struct {
		ptr      string
		sections []string
	}{
		{"/$defs/role/anyOf/2", []string{"Roles"}},
		{"/$defs/protocol/properties/handshake/anyOf/1", []string{"Handshake"}},
		{"/$defs/protocol/properties/batches/anyOf/1", []string{"Batches"}},
		{"/$defs/example", []string{"Examples"}},
		{"/$defs/example/properties/error/anyOf/1", []string{"Examples"}},
		{"/$defs/enumValue/anyOf/2", []string{"Enums", "since and proposed"}},
		{"/$defs/notificationForm", []string{"One wire name as a request one way and a notification the other"}},
	} {
		var text string
		for _, h := range c.sections {
			text += sectionText(t, secs, h)
		}
		for _, k := range props(t, doc, c.ptr) {
			if !regexp.MustCompile(`(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(k) + `([^A-Za-z0-9_?]|$)`).MatchString(text) {
				t.Errorf("key %s of %s is not named in section %q of idl/README.md", k, c.ptr, c.sections)
			}
		}
	}
}

// TestSchemaTellsKeysFromValues makes sure the validator used here is not
// lenient: an IDL with an unknown key deep inside a type fails.
func TestSchemaTellsKeysFromValues(t *testing.T) {
	s := compileSchema(t)
	src := []byte("protocol: {name: demo, roles: {a: A., b: B.}, framing: ndjson}\ntypes:\n  T: {fields: {x: {type: string, optinal: true}}}\n")
	err := s.Validate(yamlValue(t, "demo.yaml", src))
	if _, ok := err.(*sjs.ValidationError); !ok || !strings.Contains(err.Error(), "'optinal' not allowed") {
		t.Errorf("an unknown key of a field: %v; want it refused", err)
	}
}

// kindWords are the values of type: that name a kind, each with the keys
// that only some kinds take.
var (
	kindWords   = []string{"object", "enum", "union", "array", "map", "tuple", "string", "integer", "int32", "uint32", "number", "boolean", "any"}
	limitedKeys = []string{"fields", "extends", "additional", "positional", "values", "discriminator", "variants", "items", "format", "const", "minimum", "maximum", "open", "base"}
)

// TestSchemaKindKeysMatchTheLoader checks, for a type in long form whose
// type: names a kind, which keys the schema refuses: exactly those the
// loader reports as not applying to that kind.
func TestSchemaKindKeysMatchTheLoader(t *testing.T) {
	doc := schemaDoc(t)
	for _, ptr := range []string{"/$defs/type/anyOf/2", "/$defs/field/anyOf/2"} {
		banned := map[string][]string{}
		for _, rule := range at(t, doc, ptr+"/allOf").([]any) {
			r := rule.(map[string]any)
			kind := r["if"].(map[string]any)["properties"].(map[string]any)["type"].(map[string]any)["const"].(string)
			for k, v := range r["then"].(map[string]any)["properties"].(map[string]any) {
				if v == false {
					banned[kind] = append(banned[kind], k)
				}
			}
		}
		if len(banned) != len(kindWords) {
			t.Errorf("%s: rules for %d kinds; want %d", ptr, len(banned), len(kindWords))
		}
		for _, kind := range kindWords {
			var loader []string
			for _, k := range limitedKeys {
				src := "protocol: {name: demo, roles: {a: A., b: B.}, framing: ndjson}\ntypes:\n  T: {type: " + kind + ", " + k + ": 1}\n"
				if ptr == "/$defs/field/anyOf/2" {
					src = "protocol: {name: demo, roles: {a: A., b: B.}, framing: ndjson}\ntypes:\n  T: {fields: {f: {type: " + kind + ", " + k + ": 1}}}\n"
				}
				_, err := idl.Parse("demo.yaml", []byte(src))
				if strings.Contains(errString(err), "key "+k+" does not apply to type ") {
					loader = append(loader, k)
				}
			}
			if got := sorted(banned[kind]...); !slices.Equal(got, sorted(loader...)) {
				t.Errorf("%s, type: %s: the schema refuses %v; the loader %v", ptr, kind, got, sorted(loader...))
			}
		}
	}
}
