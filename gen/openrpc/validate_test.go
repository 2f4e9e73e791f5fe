package openrpc_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/internal/openrpctest"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"
)

// docURL is where the tests put a document for the schema compiler.
const docURL = "file:///openrpc.json"

// noLoader refuses to load anything: every reference of a document must
// resolve inside it.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s is not in the document", url)
}

// checker compiles the schemas of one document as draft 07, the JSON
// Schema draft OpenRPC uses.
type checker struct {
	t   *testing.T
	c   *sjs.Compiler
	doc map[string]any
}

func newChecker(t *testing.T, data []byte) *checker {
	t.Helper()
	doc, err := sjs.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the document is not JSON: %v", err)
	}
	c := sjs.NewCompiler()
	c.DefaultDraft(sjs.Draft7)
	c.AssertFormat()
	c.AssertContent()
	c.UseLoader(noLoader{})
	if err := c.AddResource(docURL, doc); err != nil {
		t.Fatal(err)
	}
	return &checker{t: t, c: c, doc: doc.(map[string]any)}
}

// schema compiles the schema at the JSON pointer ptr of the document.
func (k *checker) schema(ptr string) *sjs.Schema {
	k.t.Helper()
	s, err := k.c.Compile(docURL + "#" + ptr)
	if err != nil {
		k.t.Fatalf("the schema at %s does not compile as draft 07: %v", ptr, err)
	}
	return s
}

// valid checks v against the schema at ptr.
func (k *checker) valid(what string, v any, ptr string) {
	k.t.Helper()
	if err := k.schema(ptr).Validate(v); err != nil {
		k.t.Errorf("%s does not match the schema at %s: %v", what, ptr, err)
	}
}

// TestSchemasAreDraft07 compiles every schema of every document as draft
// 07 with no loader, so every reference resolves inside the document, and
// checks each named type's own examples against it (a positional object
// or tuple example fails unless its positions are draft 07's items).
func TestSchemasAreDraft07(t *testing.T) {
	for _, path := range openrpctest.IDLFiles(t, filepath.Join("..", "..")) {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".yaml"), func(t *testing.T) {
			k := newChecker(t, cached(t, path))
			schemas := k.doc["components"].(map[string]any)["schemas"].(map[string]any)
			for name, s := range schemas {
				ptr := "/components/schemas/" + name
				k.schema(ptr)
				if o, ok := s.(map[string]any); ok {
					for i, x := range list(o["examples"]) {
						k.valid(fmt.Sprintf("example %d of %s", i+1, name), x, ptr)
					}
				}
			}
			walkRefs(t, k.doc, "")
		})
	}
}

// walkRefs checks that every $ref of the document points into its
// components.
func walkRefs(t *testing.T, v any, at string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if ref, ok := x.(string); ok && k == "$ref" && !strings.HasPrefix(ref, "#/components/") {
				t.Errorf("%s: $ref %q does not point into the components", at, ref)
			}
			walkRefs(t, x, at+"/"+k)
		}
	case []any:
		for i, x := range v {
			walkRefs(t, x, fmt.Sprintf("%s/%d", at, i))
		}
	}
}

// TestExamplesMatchTheirDescriptors checks every example pairing of every
// method: each example param against the schema of the descriptor of its
// name (by name) or position (by position), the params whole against
// x-rpcgen-params when the method has it, the result against the result's
// schema, and an error's data against the schema of its data.
func TestExamplesMatchTheirDescriptors(t *testing.T) {
	for _, path := range openrpctest.IDLFiles(t, filepath.Join("..", "..")) {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".yaml"), func(t *testing.T) {
			k := newChecker(t, cached(t, path))
			n := 0
			for i, m := range list(k.doc["methods"]) {
				ptr := fmt.Sprintf("/methods/%d", i)
				n += k.examples(m.(map[string]any), ptr)
				if f, ok := m.(map[string]any)["x-rpcgen-notification-form"].(map[string]any); ok {
					n += k.examples(f, ptr+"/x-rpcgen-notification-form")
				}
			}
			t.Logf("%d example pairings checked", n)
		})
	}
}

// examples checks the example pairings of the method at ptr and returns
// how many it checked.
func (k *checker) examples(m map[string]any, ptr string) int {
	k.t.Helper()
	name := m["name"].(string)
	params := list(m["params"])
	for _, x := range list(m["examples"]) {
		pair := x.(map[string]any)
		what := fmt.Sprintf("%s %s", name, pair["name"])
		whole := map[string]any{}
		var positions []any
		for j, e := range list(pair["params"]) {
			e := e.(map[string]any)
			pname, value := e["name"].(string), e["value"]
			whole[pname] = value
			positions = append(positions, value)
			switch m["paramStructure"] {
			case "by-name":
				d := descriptor(params, pname)
				if d < 0 {
					if _, loose := m["x-rpcgen-params"]; !loose {
						k.t.Errorf("%s: param %s has no descriptor", what, pname)
					}
					continue
				}
				k.valid(what+" param "+pname, value, fmt.Sprintf("%s/params/%d/schema", ptr, d))
			case "by-position":
				if j >= len(params) {
					k.t.Errorf("%s: param %d has no descriptor", what, j+1)
					continue
				}
				k.valid(what+" param "+pname, value, fmt.Sprintf("%s/params/%d/schema", ptr, j))
			default:
				if pname != "params" {
					k.t.Errorf("%s: params of no known structure are named %q, want params", what, pname)
				}
				whole = nil
				positions = []any{value}
			}
		}
		if m["paramStructure"] == "by-name" && len(list(pair["params"])) > 0 {
			for d, p := range params {
				p := p.(map[string]any)
				if _, ok := whole[p["name"].(string)]; p["required"] == true && !ok {
					k.t.Errorf("%s: leaves out param %s, which its descriptor %d requires", what, p["name"], d)
				}
			}
		}
		if _, ok := m["x-rpcgen-params"]; ok && len(list(pair["params"])) > 0 {
			var v any = whole
			if whole == nil || m["paramStructure"] == "by-position" {
				v = positions
				if m["paramStructure"] == nil {
					v = positions[0]
				}
			}
			k.valid(what+" params", v, ptr+"/x-rpcgen-params")
		}
		if r, ok := pair["result"].(map[string]any); ok {
			k.valid(what+" result", r["value"], ptr+"/result/schema")
		}
		if e, ok := pair["error"].(map[string]any); ok {
			k.errorExample(what, e["value"].(map[string]any))
		}
	}
	return len(list(m["examples"]))
}

// errorExample checks an example error response: its data against the
// data schema of the error of its code, when the protocol declares one.
func (k *checker) errorExample(what string, e map[string]any) {
	k.t.Helper()
	if _, ok := e["message"].(string); !ok {
		k.t.Errorf("%s: error without a message", what)
	}
	components := k.doc["components"].(map[string]any)
	for name, def := range components["errors"].(map[string]any) {
		if fmt.Sprint(def.(map[string]any)["code"]) != fmt.Sprint(e["code"]) {
			continue
		}
		details, _ := components["x-rpcgen-errors"].(map[string]any)
		d, _ := details[name].(map[string]any)
		if _, has := d["dataSchema"]; has {
			if data, sent := e["data"]; sent {
				k.valid(what+" error data", data, "/components/x-rpcgen-errors/"+name+"/dataSchema")
			}
		}
	}
}

// descriptor returns the index of the descriptor named name, or -1.
func descriptor(params []any, name string) int {
	for i, p := range params {
		if p.(map[string]any)["name"] == name {
			return i
		}
	}
	return -1
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}
