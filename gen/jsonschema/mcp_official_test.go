package jsonschema_test

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/rpcgen/rpcgen/idl"
)

// The MCP protocol file must describe every definition of the official
// schema of its revision. The official schema (descriptions removed) is
// protocols/mcp/testdata; the differences allowed, each with its reason,
// are listed in protocols/mcp/README.md.

var mcpDir = filepath.Join("..", "..", "protocols")

// mcpNames maps official definitions to ours where the names differ.
var mcpNames = map[string]string{}

// mcpRoles maps the official unions of messages to the role sending them.
var mcpRoles = map[string]struct{ from, kind string }{
	"ClientRequest":      {"client", "request"},
	"ServerRequest":      {"server", "request"},
	"ClientNotification": {"client", "notification"},
	"ServerNotification": {"server", "notification"},
}

// ourMCP is what the comparison needs of our description of MCP.
type ourMCP struct {
	schema *schemaDoc
	proto  *idl.Protocol
	// optionalParams names the methods declared with params?: (params may
	// be absent).
	optionalParams map[string]bool
}

// loadOurMCP loads the protocol file at path and the bundle of the
// schemas generated from it.
func loadOurMCP(t *testing.T, path string, bundle []byte) *ourMCP {
	t.Helper()
	p, err := idl.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := parseSchemaDoc(bundle)
	if err != nil {
		t.Fatalf("generated bundle: %v", err)
	}
	for _, td := range p.Types {
		if td.Type != nil && td.Type.Kind == idl.KindObject && td.Type.Additional != nil {
			s.open[td.Name] = true
		}
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Methods map[string]map[string]any `yaml:"methods"`
	}
	if err := yaml.Unmarshal(src, &file); err != nil {
		t.Fatal(err)
	}
	opt := map[string]bool{}
	for name, m := range file.Methods {
		if _, ok := m["params?"]; ok {
			opt[name] = true
		}
	}
	return &ourMCP{schema: s, proto: p, optionalParams: opt}
}

func loadOfficialMCP(t *testing.T) *schemaDoc {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(mcpDir, "mcp", "testdata", "schema-2025-11-25.json"))
	if err != nil {
		t.Fatal(err)
	}
	off, err := parseSchemaDoc(data)
	if err != nil {
		t.Fatalf("official schema: %v", err)
	}
	return off
}

// compareMCP returns every difference between the official schema and
// ours, sorted.
func compareMCP(off *schemaDoc, ours *ourMCP) []difference {
	c := newComparer(off, ours.schema, mcpNames)
	for _, name := range slices.Sorted(maps.Keys(off.defs)) {
		def := off.defs[name]
		switch {
		case mcpRoles[name].from != "":
			c.messageSet(name, def, ours.proto)
		case methodOf(def) != "":
			c.message(name, def, ours)
		case errorCodeOf(def) != nil:
			c.errorData(name, def, ours.proto)
		default:
			c.definition(name)
		}
	}
	c.unreached()
	slices.SortFunc(c.diffs, func(a, b difference) int { return strings.Compare(a.key(), b.key()) })
	return c.diffs
}

// methodOf returns the method name a request or notification definition
// fixes, or "".
func methodOf(def map[string]any) string {
	m, _ := schemaAt(def, "properties")["method"].(map[string]any)
	name, _ := m["const"].(string)
	return name
}

// errorCodeOf returns the code an error response definition fixes, or nil.
func errorCodeOf(def map[string]any) any {
	e, _ := schemaAt(def, "properties")["error"].(map[string]any)
	for _, part := range anyList(e["allOf"]) {
		if code, ok := schemaAt(part.(map[string]any), "properties")["code"].(map[string]any); ok && code["const"] != nil {
			return code["const"]
		}
	}
	return nil
}

func anyList(v any) []any {
	l, _ := v.([]any)
	return l
}

// message compares a request or notification definition with our method.
func (c *comparer) message(name string, def map[string]any, ours *ourMCP) {
	wire := methodOf(def)
	m := findMethod(ours.proto, wire)
	if m == nil {
		c.add(name, "definition", "no method %s in ours", wire)
		return
	}
	props := schemaAt(def, "properties")
	kind := "notification"
	if props["id"] != nil {
		kind = "request"
	}
	if string(m.Kind) != kind {
		c.add(name, "kind", "official %s, ours %s", kind, m.Kind)
	}
	offParams, _ := props["params"].(map[string]any)
	switch {
	case offParams == nil && m.Params == nil:
		return
	case offParams == nil || m.Params == nil || m.Params.Ref == nil:
		c.add(name, "params", "official %s, ours %v", describe(offParams), m.Params)
		return
	}
	c.compare(name+".params", offParams, map[string]any{"$ref": "#/$defs/" + m.Params.Ref.Name}, "")
	offRequired, ourRequired := requiredOf(def)["params"] != nil, !ours.optionalParams[wire]
	if offRequired != ourRequired {
		c.add(name+".params", "required", "official %s, ours %s", requiredWord(offRequired), requiredWord(ourRequired))
	}
}

func requiredWord(required bool) string {
	if required {
		return "required"
	}
	return "optional"
}

// messageSet compares an official union of messages with the methods of
// ours that the role sends.
func (c *comparer) messageSet(name string, def map[string]any, p *idl.Protocol) {
	want := mcpRoles[name]
	var official, ourSet []string
	for _, v := range anyList(def["anyOf"]) {
		ref, _ := refName(v.(map[string]any))
		official = append(official, methodOf(c.off.defs[ref]))
	}
	for _, m := range p.Methods {
		if string(m.Kind) == want.kind && m.SentBy(want.from) {
			ourSet = append(ourSet, m.Name)
		}
	}
	slices.Sort(official)
	slices.Sort(ourSet)
	if !slices.Equal(official, ourSet) {
		c.add(name, "methods", "official %v, ours %v", official, ourSet)
	}
}

// errorData compares an error response definition with our error of the
// same code.
func (c *comparer) errorData(name string, def map[string]any, p *idl.Protocol) {
	code := jsonOf(errorCodeOf(def))
	for _, e := range p.Errors {
		if fmt.Sprint(e.Code) != code {
			continue
		}
		var data map[string]any
		for _, part := range anyList(schemaAt(schemaAt(def, "properties"), "error")["allOf"]) {
			if d, ok := schemaAt(part.(map[string]any), "properties")["data"].(map[string]any); ok {
				data = d
			}
		}
		if e.Data == nil || e.Data.Ref == nil || data == nil {
			c.add(name+".error.data", "type", "official %s, ours %v", describe(data), e.Data)
			return
		}
		c.compare(name+".error.data", data, map[string]any{"$ref": "#/$defs/" + e.Data.Ref.Name}, "")
		return
	}
	c.add(name, "definition", "no error with code %s in ours", code)
}

func findMethod(p *idl.Protocol, name string) *idl.Method {
	for _, m := range p.Methods {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// allowedEntry matches a listed difference in protocols/mcp/README.md:
//
//   - `Path` aspect[, aspect...]: reason
var allowedEntry = regexp.MustCompile("^- `([^`]+)` ([a-zA-Z]+(?:, [a-zA-Z]+)*): (.+)$")

// allowedDifferences reads the listed differences of the README: key
// (path and aspect) to reason.
func allowedDifferences(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(mcpDir, "mcp", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		m := allowedEntry.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		for _, aspect := range strings.Split(m[2], ", ") {
			key := m[1] + " " + aspect
			if _, dup := allowed[key]; dup {
				t.Errorf("README.md:%d: %s is listed twice", n, key)
			}
			allowed[key] = strings.TrimSpace(m[3])
		}
	}
	return allowed
}

// checkListed fails t for every difference not listed in the README and
// for every listed one that no longer occurs.
func checkListed(t *testing.T, diffs []difference, allowed map[string]string) {
	t.Helper()
	seen := map[string]bool{}
	for _, d := range diffs {
		seen[d.key()] = true
		if _, ok := allowed[d.key()]; !ok {
			t.Errorf("not listed in protocols/mcp/README.md: %s", d)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(allowed)) {
		if !seen[key] {
			t.Errorf("protocols/mcp/README.md lists %q, which no longer differs: remove it", key)
		}
	}
}

func TestMCPMatchesOfficialSchema(t *testing.T) {
	off := loadOfficialMCP(t)
	if len(off.defs) < 140 {
		t.Fatalf("the official schema has %d definitions, want the 145 of 2025-11-25", len(off.defs))
	}
	bundle, err := os.ReadFile(filepath.Join("..", "..", "generated", "mcp", "schema", "mcp.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	ours := loadOurMCP(t, filepath.Join(mcpDir, "mcp.yaml"), bundle)
	allowed := allowedDifferences(t)
	for key, reason := range allowed {
		if len(reason) < 10 {
			t.Errorf("protocols/mcp/README.md: %s needs its reason", key)
		}
	}
	checkListed(t, compareMCP(off, ours), allowed)
}

// TestMCPComparisonCatchesMutations changes a copy of the MCP protocol
// file and checks that the comparison then finds an unlisted difference
// where the change was made.
func TestMCPComparisonCatchesMutations(t *testing.T) {
	off := loadOfficialMCP(t)
	allowed := allowedDifferences(t)
	for _, tc := range []struct {
		name, file, old, new, want string
	}{
		{"required member made optional", "mcp/client.yaml", "      maxTokens: integer\n", "      maxTokens?: integer\n",
			"CreateMessageRequestParams.maxTokens required"},
		{"member removed", "mcp/base.yaml", "      sizes?: {type:", "      sizes_?: {type:",
			"Icon.sizes member"},
		{"enum value added", "mcp/base.yaml", `type: "'user' | 'assistant'"`, `type: "'user' | 'assistant' | 'system'"`,
			"Role enum"},
		{"format dropped", "mcp/features.yaml", "      blob: {type: string, format: base64}\n", "      blob: string\n",
			"BlobResourceContents.blob format"},
		{"union variant dropped", "mcp/base.yaml", "variants: [TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource]",
			"variants: [TextContent, ImageContent, ResourceLink, EmbeddedResource]", "ContentBlock variants"},
		{"extra members dropped", "mcp/base.yaml", "      _meta?: {type: Meta, go_name: Meta}\n    additional: any\n  EmptyResult:",
			"      _meta?: {type: Meta, go_name: Meta}\n  EmptyResult:", "Result additionalProperties"},
		{"member type changed", "mcp/features.yaml", "      size?: {type: integer,", "      size?: {type: number,",
			"Resource.size type"},
		{"method dropped", "mcp.yaml", "  notifications/roots/list_changed:\n    from: client\n", "  notifications/roots/list_changed:\n    from: server\n",
			"ClientNotification methods"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyMCP(t)
			path := filepath.Join(dir, tc.file)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(src), tc.old); n != 1 {
				t.Fatalf("%s holds %q %d times, want once", tc.file, tc.old, n)
			}
			if err := os.WriteFile(path, []byte(strings.Replace(string(src), tc.old, tc.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			diffs := compareMCP(off, generateOurMCP(t, filepath.Join(dir, "mcp.yaml")))
			var found bool
			for _, d := range diffs {
				found = found || d.key() == tc.want
			}
			if !found {
				t.Errorf("no difference %q after the change; got %v", tc.want, diffs)
			}
			if _, ok := allowed[tc.want]; ok {
				t.Errorf("%q is listed in the README, so the change would pass", tc.want)
			}
		})
	}
}

// TestMCPComparisonOfCopy checks that the copy the mutation test changes
// compares like the committed protocol: only the listed differences.
func TestMCPComparisonOfCopy(t *testing.T) {
	dir := copyMCP(t)
	checkListed(t, compareMCP(loadOfficialMCP(t), generateOurMCP(t, filepath.Join(dir, "mcp.yaml"))), allowedDifferences(t))
}

// copyMCP copies mcp.yaml and the files it includes into a new directory.
func copyMCP(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "mcp"), 0o755); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(mcpDir, "mcp", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(files, filepath.Join(mcpDir, "mcp.yaml")) {
		rel, _ := filepath.Rel(mcpDir, f)
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// generateOurMCP loads the protocol file at path and generates its schemas
// in memory.
func generateOurMCP(t *testing.T, path string) *ourMCP {
	t.Helper()
	_, files := load(t, path)
	for _, f := range files {
		if f.Path == "schema/mcp.schema.json" {
			return loadOurMCP(t, path, f.Content)
		}
	}
	t.Fatal("no schema/mcp.schema.json generated")
	return nil
}
