// Package openrpc_test validates the OpenRPC documents rpcgen writes
// against the official OpenRPC meta-schema, npm @open-rpc/meta-schema, and
// the JSON Schema meta-schema it refers to, @json-schema-tools/meta-schema,
// both installed by make deps (npm ci in this directory). See README.md.
package openrpc_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/rpcgen/rpcgen/gen/openrpc"
	"github.com/rpcgen/rpcgen/internal/openrpctest"
)

// The $id of the two meta-schemas.
const (
	openrpcMetaID = "https://meta.open-rpc.org/"
	toolsMetaID   = "https://meta.json-schema.tools/"
)

// metaSchema compiles the OpenRPC meta-schema from the installed npm
// packages, failing the test when they are missing or not the versions
// package.json pins.
func metaSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	var pins struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	readJSON(t, "package.json", &pins)
	for pkg, want := range pins.Dependencies {
		var meta struct{ Version string }
		path := filepath.Join("node_modules", filepath.FromSlash(pkg), "package.json")
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("the npm package %s is not installed (%v): run make deps (npm ci in interop/openrpc)", pkg, err)
		}
		readJSON(t, path, &meta)
		if meta.Version != want {
			t.Fatalf("the npm package %s is version %s, package.json pins %s: run make deps", pkg, meta.Version, want)
		}
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is not on PATH (%v): install Node.js 20 or newer, then run make deps", err)
	}
	// The package is a CommonJS module exporting the meta-schema as an
	// object: node prints it as JSON.
	cmd := exec.Command("node", "-e", `process.stdout.write(JSON.stringify(require("@open-rpc/meta-schema").openrpcDocument))`)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node could not load @open-rpc/meta-schema (%v): %s\nrun make deps", err, stderr.Bytes())
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	c.AssertFormat()
	tools, err := os.ReadFile(filepath.Join("node_modules", "@json-schema-tools", "meta-schema", "schema.json"))
	if err != nil {
		t.Fatalf("%v: run make deps", err)
	}
	docs := loader{}
	for id, data := range map[string][]byte{openrpcMetaID: out, toolsMetaID: tools} {
		doc := decode(t, id, data)
		// Both name the JSON Schema tools' meta-schema as their $schema,
		// which names itself: the compiler takes them as draft 07, which
		// that meta-schema follows, instead.
		delete(doc.(map[string]any), "$schema")
		docs[id] = doc
	}
	// The OpenRPC meta-schema refers to the tools' one both with and
	// without the trailing slash of its $id.
	docs[strings.TrimSuffix(toolsMetaID, "/")] = docs[toolsMetaID]
	c.UseLoader(docs)
	s, err := c.Compile(openrpcMetaID)
	if err != nil {
		t.Fatalf("compiling the OpenRPC meta-schema: %v", err)
	}
	return s
}

// loader serves the meta-schemas by URL, and nothing else.
type loader map[string]any

// Load returns the meta-schema at url.
func (l loader) Load(url string) (any, error) {
	if doc, ok := l[url]; ok {
		return doc, nil
	}
	return nil, fmt.Errorf("no schema at %s in interop/openrpc", url)
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func decode(t *testing.T, name string, data []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

func TestDocumentsMatchTheMetaSchema(t *testing.T) {
	meta := metaSchema(t)
	files := openrpctest.IDLFiles(t, filepath.Join("..", ".."))
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		t.Run(name, func(t *testing.T) {
			if err := meta.Validate(decode(t, path, openrpctest.Generate(t, filepath.Join("..", ".."), path))); err != nil {
				t.Errorf("the OpenRPC document of %s does not match the meta-schema: %v", path, err)
			}
		})
	}
	// The committed documents too: what users of the repository read.
	committed, err := filepath.Glob(filepath.Join("..", "..", "generated", "*", openrpc.FileName))
	if err != nil || len(committed) == 0 {
		t.Fatalf("no generated/*/%s (%v): run make generate", openrpc.FileName, err)
	}
	for _, path := range committed {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := meta.Validate(decode(t, path, data)); err != nil {
			t.Errorf("%s does not match the meta-schema: %v", path, err)
		}
	}
}

// TestMetaSchemaRejectsBrokenDocuments shows that the validation above
// has teeth: documents that break the specification are refused.
func TestMetaSchemaRejectsBrokenDocuments(t *testing.T) {
	meta := metaSchema(t)
	data := openrpctest.Generate(t, filepath.Join("..", ".."), filepath.Join("..", "..", "idl", "testdata", "full.yaml"))
	for name, breakIt := range map[string]func(doc map[string]any){
		"method without params": func(doc map[string]any) {
			delete(method(doc, 0), "params")
		},
		"extension without x-": func(doc map[string]any) {
			m := method(doc, 0)
			m["rpcgen-from"] = m["x-rpcgen-from"]
		},
		"reference with a bad URI": func(doc map[string]any) {
			method(doc, 1)["result"] = map[string]any{"$ref": "#/components/schemas/a b\\c"}
		},
		"schema of an unknown type": func(doc map[string]any) {
			schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
			schemas["State"].(map[string]any)["type"] = "text"
		},
		"unknown OpenRPC version": func(doc map[string]any) {
			doc["openrpc"] = "9.0.0"
		},
		"error with a fractional code": func(doc map[string]any) {
			errs := doc["components"].(map[string]any)["errors"].(map[string]any)
			for _, e := range errs {
				e.(map[string]any)["code"] = json.Number("1.5")
				break
			}
		},
	} {
		doc := decode(t, name, data).(map[string]any)
		breakIt(doc)
		if err := meta.Validate(doc); err == nil {
			t.Errorf("%s: the meta-schema accepts it", name)
		}
	}
}

// method returns the i-th method of doc.
func method(doc map[string]any, i int) map[string]any {
	return doc["methods"].([]any)[i].(map[string]any)
}
