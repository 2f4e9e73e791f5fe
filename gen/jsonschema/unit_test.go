package jsonschema_test

import (
	"encoding/json"
	"strings"
	"testing"

	invopop "github.com/invopop/jsonschema"

	"github.com/rpcgen/rpcgen/gen/jsonschema"
	"github.com/rpcgen/rpcgen/idl"
)

func TestMethodFileNames(t *testing.T) {
	wire := []string{
		"tools/call", "$/cancelRequest", "autohand.prompt", "tools_call",
		"Tools/Call", "a//b..c", "-x-", "$/", "tools_call_2", "método",
	}
	want := []string{
		"tools_call", "cancelRequest", "autohand_prompt", "tools_call_2",
		"Tools_Call_3", "a_b_c", "x", "method", "tools_call_2_2", "m_todo",
	}
	p := &idl.Protocol{}
	for _, name := range wire {
		p.Methods = append(p.Methods, &idl.Method{Name: name})
	}
	got := jsonschema.MethodFileNames(p)
	for i, name := range wire {
		if got[name] != want[i] {
			t.Errorf("%q: got %q, want %q", name, got[name], want[i])
		}
	}
}

func TestEncodeKeepsHTML(t *testing.T) {
	s := &invopop.Schema{Description: `a <b> & c \u0026 "d"`, Const: json.RawMessage(`"x\\u0026y"`)}
	data, err := jsonschema.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"const\": \"x\\\\u0026y\",\n  \"description\": \"a <b> & c \\\\u0026 \\\"d\\\"\"\n}\n"
	if string(data) != want {
		t.Errorf("got\n%s\nwant\n%s", data, want)
	}
	var back invopop.Schema
	if err := json.Unmarshal(data, &back); err != nil || back.Description != s.Description {
		t.Errorf("round trip: %q, %v", back.Description, err)
	}
}

func TestBundle(t *testing.T) {
	p, err := idl.Load(protocols(t)[0].path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := jsonschema.Bundle(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Definitions) != len(p.Types) {
		t.Errorf("bundle has %d definitions, want %d", len(b.Definitions), len(p.Types))
	}
	if string(b.ID) != "https://rpcgen.dev/schemas/full/full.schema.json" {
		t.Errorf("bundle $id %q", b.ID)
	}
	item := b.Definitions["Item"]
	if item == nil || item.Properties == nil {
		t.Fatal("no Item in the bundle")
	}
	var order []string
	for pair := item.Properties.Oldest(); pair != nil; pair = pair.Next() {
		order = append(order, pair.Key)
	}
	if got := strings.Join(order[:4], ","); got != "id,createdAt,name,count" {
		t.Errorf("Item properties start %s, want inherited fields then IDL order", got)
	}
	if !item.Deprecated || item.Title != "Item" {
		t.Errorf("Item: deprecated %v, title %q", item.Deprecated, item.Title)
	}
}

func TestWithoutAnnotations(t *testing.T) {
	p, err := idl.Load(protocols(t)[0].path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := jsonschema.Bundle(p)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := jsonschema.Encode(b)
	stripped := jsonschema.WithoutAnnotations(b)
	after, _ := jsonschema.Encode(b)
	if string(before) != string(after) {
		t.Error("WithoutAnnotations changed its argument")
	}
	data, err := jsonschema.Encode(stripped)
	if err != nil {
		t.Fatal(err)
	}
	// The keywords with their values: full.yaml also has a member named
	// $schema, which stays.
	for _, kw := range []string{`"title":`, `"description":`, `"examples":`, `"default":`, `"deprecated":`, `"$id":"`, `"$schema":"`} {
		if strings.Contains(string(data), kw) {
			t.Errorf("%s left in the stripped schema", kw)
		}
	}
	for _, kw := range []string{`"$defs"`, `"required"`, `"enum"`, `"const"`, `"oneOf"`, `"$ref"`} {
		if !strings.Contains(string(data), kw) {
			t.Errorf("%s removed from the stripped schema", kw)
		}
	}
}

func TestNilProtocol(t *testing.T) {
	if _, err := jsonschema.Generate(nil); err == nil {
		t.Error("Generate(nil) succeeded")
	}
	if _, err := jsonschema.Bundle(nil); err == nil {
		t.Error("Bundle(nil) succeeded")
	}
}

func TestBrokenModel(t *testing.T) {
	td := &idl.TypeDef{Name: "Broken", Type: &idl.Type{Kind: idl.KindRef}}
	p := &idl.Protocol{Name: "broken", Types: []*idl.TypeDef{td}}
	_, err := jsonschema.Generate(p)
	if err == nil || !strings.Contains(err.Error(), "Broken") {
		t.Errorf("Generate of a dangling reference: %v", err)
	}
}
