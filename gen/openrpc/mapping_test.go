package openrpc_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/rpcgen/rpcgen/gen/openrpc"
	"github.com/rpcgen/rpcgen/idl"
)

// shapes is a protocol with every shape of params, a notification each
// way, an error with data and timeouts.
const shapes = `
protocol:
  name: shapes
  version: 0.1.0
  doc: Draws shapes.
  roles:
    client: Asks for shapes.
    server: Draws them.
  framing: ndjson
  transports: [stdio, {kind: tcp, port: 9000}]
  cancellation: lsp
  timeout: 5s
types:
  Point:
    positional: true
    fields:
      x: integer
      y: integer
      label?: {type: string, doc: Shown next to the point.}
  Pair: {type: tuple, items: [string, integer]}
  Circle: {fields: {kind: "'circle'", radius: number}}
  Square: {fields: {kind: "'square'", side: number, label?: string}}
  Shape: {type: union, discriminator: kind, variants: [Circle, Square]}
errors:
  TooBig: {code: 1001, message: Too big, doc: The shape does not fit., data: {fields: {limit: number}}}
methods:
  move:
    from: client
    kind: request
    params: Point
    result: {fields: {ok: boolean}}
    examples:
      - params: [1, 2]
        result: {ok: true}
  pair:
    from: client
    kind: notification
    params: Pair
  draw:
    from: client
    kind: request
    doc: Draws a shape.
    deprecated: Use paint.
    params: Shape
    result: "null"
    errors: [TooBig]
    timeout: 2s
    on_timeout: {cancel: true, action: close}
    examples:
      - params: {kind: circle, radius: 2}
        result: null
      - params: {kind: square, side: 900}
        error: {code: 1001, message: Too big, data: {limit: 100}}
  log:
    from: server
    kind: notification
    params:
      fields:
        message: {type: string, doc: What happened.}
        old?: {type: string, deprecated: Use message.}
`

// shapesDoc returns the decoded document of shapes.
func shapesDoc(t *testing.T) map[string]any {
	t.Helper()
	p, err := idl.Parse("shapes.yaml", []byte(shapes))
	if err != nil {
		t.Fatal(err)
	}
	files, err := openrpc.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(files[0].Content, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// methodNamed returns the method of doc named name.
func methodNamed(t *testing.T, doc map[string]any, name string) map[string]any {
	t.Helper()
	for _, m := range doc["methods"].([]any) {
		if m := m.(map[string]any); m["name"] == name {
			return m
		}
	}
	t.Fatalf("no method %s", name)
	return nil
}

// same fails the test unless got, as JSON, is want.
func same(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad want: %v", what, err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		t.Errorf("%s = %s\nwant %s", what, g, want)
	}
}

func TestProtocolFacts(t *testing.T) {
	doc := shapesDoc(t)
	same(t, "openrpc", doc["openrpc"], `"1.3.2"`)
	same(t, "info", doc["info"], `{"title": "shapes", "version": "0.1.0", "description": "Draws shapes."}`)
	same(t, "roles", doc["x-rpcgen-roles"], `[{"name": "client", "description": "Asks for shapes."}, {"name": "server", "description": "Draws them."}]`)
	same(t, "framing", doc["x-rpcgen-framing"], `"ndjson"`)
	same(t, "transports", doc["x-rpcgen-transports"], `[{"kind": "stdio"}, {"kind": "tcp", "host": "localhost", "port": 9000}]`)
	same(t, "cancellation", doc["x-rpcgen-cancellation"], `{"style": "lsp", "method": "$/cancelRequest"}`)
	same(t, "timeout", doc["x-rpcgen-timeout"], `{"milliseconds": 5000, "cancel": false, "action": "error"}`)
	same(t, "batches", doc["x-rpcgen-batches"], `{"accepted": true}`)
}

func TestParamsByPosition(t *testing.T) {
	doc := shapesDoc(t)
	move := methodNamed(t, doc, "move")
	same(t, "move paramStructure", move["paramStructure"], `"by-position"`)
	same(t, "move params", move["params"], `[
		{"name": "x", "required": true, "schema": {"type": "integer"}},
		{"name": "y", "required": true, "schema": {"type": "integer"}},
		{"name": "label", "description": "Shown next to the point.", "schema": {"anyOf": [{"type": "string"}, {"type": "null"}]}}]`)
	same(t, "move examples", move["examples"], `[{"name": "example 1",
		"params": [{"name": "x", "value": 1}, {"name": "y", "value": 2}],
		"result": {"name": "result", "value": {"ok": true}}}]`)
	if _, ok := move["x-rpcgen-params"]; ok {
		t.Error("move has x-rpcgen-params, though its descriptors say it all")
	}

	pair := methodNamed(t, doc, "pair")
	same(t, "pair paramStructure", pair["paramStructure"], `"by-position"`)
	same(t, "pair params", pair["params"], `[
		{"name": "param1", "required": true, "schema": {"type": "string"}},
		{"name": "param2", "required": true, "schema": {"type": "integer"}}]`)
	same(t, "Point schema", doc["components"].(map[string]any)["schemas"].(map[string]any)["Point"], `{
		"type": "array",
		"items": [
			{"type": "integer", "title": "x"},
			{"type": "integer", "title": "y"},
			{"anyOf": [{"type": "string"}, {"type": "null"}], "title": "label", "description": "Shown next to the point."}],
		"additionalItems": false,
		"maxItems": 3, "minItems": 2, "title": "Point"}`)
}

func TestUnionParamsByName(t *testing.T) {
	draw := methodNamed(t, shapesDoc(t), "draw")
	same(t, "draw paramStructure", draw["paramStructure"], `"by-name"`)
	same(t, "draw params", draw["params"], `[
		{"name": "kind", "required": true, "schema": {"anyOf": [{"type": "string", "const": "circle"}, {"type": "string", "const": "square"}]}},
		{"name": "radius", "schema": {"type": "number"}},
		{"name": "side", "schema": {"type": "number"}},
		{"name": "label", "schema": {"type": "string"}}]`)
	same(t, "draw x-rpcgen-params", draw["x-rpcgen-params"], `{"$ref": "#/components/schemas/Shape"}`)
	same(t, "draw result", draw["result"], `{"name": "result", "schema": {"type": "null"}}`)
	same(t, "draw errors", draw["errors"], `[{"$ref": "#/components/errors/TooBig"}]`)
	same(t, "draw examples", draw["examples"], `[
		{"name": "example 1", "params": [{"name": "kind", "value": "circle"}, {"name": "radius", "value": 2}], "result": {"name": "result", "value": null}},
		{"name": "example 2: TooBig", "params": [{"name": "kind", "value": "square"}, {"name": "side", "value": 900}],
		 "error": {"name": "error", "value": {"code": 1001, "message": "Too big", "data": {"limit": 100}}}}]`)
	same(t, "draw description", draw["description"], `"Draws a shape.\n\nDeprecated: Use paint."`)
	same(t, "draw deprecated", draw["deprecated"], `true`)
	same(t, "draw timeout", draw["x-rpcgen-timeout"], `{"milliseconds": 2000, "cancel": true, "action": "close"}`)
	same(t, "draw direction", []any{draw["x-rpcgen-from"], draw["x-rpcgen-to"], draw["tags"]}, `["client", "server", [{"name": "client to server"}]]`)
}

func TestNotificationToTheClient(t *testing.T) {
	log := methodNamed(t, shapesDoc(t), "log")
	if _, ok := log["result"]; ok {
		t.Error("the notification log has a result")
	}
	same(t, "log", log, `{
		"name": "log",
		"tags": [{"name": "server to client"}, {"name": "notification"}],
		"paramStructure": "by-name",
		"params": [
			{"name": "message", "description": "What happened.", "required": true, "schema": {"type": "string"}},
			{"name": "old", "description": "Deprecated: Use message.", "schema": {"type": "string"}, "deprecated": true}],
		"x-rpcgen-from": "server",
		"x-rpcgen-to": "client",
		"x-rpcgen-notification": true}`)
}

func TestErrorsInComponents(t *testing.T) {
	c := shapesDoc(t)["components"].(map[string]any)
	errs := c["errors"].(map[string]any)
	same(t, "TooBig", errs["TooBig"], `{"code": 1001, "message": "Too big"}`)
	same(t, "MethodNotFound", errs["MethodNotFound"], `{"code": -32601, "message": "Method not found"}`)
	same(t, "TooBig details", c["x-rpcgen-errors"].(map[string]any)["TooBig"], `{
		"description": "The shape does not fit.",
		"dataSchema": {"$ref": "#/components/schemas/TooBigData"}}`)
}

func TestMethodFlags(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(cached(t, "../../idl/testdata/full.yaml"), &doc); err != nil {
		t.Fatal(err)
	}
	get := methodNamed(t, doc, "items/get")
	same(t, "items/get", []any{get["x-rpcgen-idempotent"], get["deprecated"], get["x-rpcgen-from"], get["x-rpcgen-to"]}, `[true, true, "agent", "editor"]`)
	if _, ok := get["x-rpcgen-timeout"]; ok {
		t.Error("items/get, with timeout: none, has x-rpcgen-timeout")
	}
	report := methodNamed(t, doc, "status/report")
	same(t, "status/report also-notification", report["x-rpcgen-also-notification"], `true`)
	same(t, "status/report as a notification", report["examples"].([]any)[1], `{"name": "example 2", "description": "As a notification.",
		"params": [{"name": "state", "value": "processing"}]}`)
	shutdown := methodNamed(t, doc, "shutdown")
	same(t, "shutdown timeout", shutdown["x-rpcgen-timeout"], `{"milliseconds": 5000, "cancel": false, "action": "kill"}`)
	same(t, "shutdown result", shutdown["result"], `{"name": "result", "schema": {"type": "null"}}`)
}
