package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// call is one tools/call as a tool sees it.
type call struct {
	client mcp.Client
	token  mcp.ProgressToken // zero: the caller wants no progress
	args   map[string]json.RawMessage
}

// tool is a tool of the catalogue and its implementation.
type tool struct {
	def mcp.Tool
	run func(ctx context.Context, s *session, c call) (*mcp.CallToolResult, error)
}

// catalogue lists the tools in listing order; built once, shared by every
// session.
var catalogue = []tool{
	{def: def("test_simple_text", "Returns one text block.", noArgs), run: simpleText},
	{def: def("test_image_content", "Returns a 1x1 red PNG image.", noArgs), run: imageContent},
	{def: def("test_audio_content", "Returns a short silent WAV clip.", noArgs), run: audioContent},
	{def: def("test_embedded_resource", "Returns an embedded text resource.", noArgs), run: embeddedResource},
	{def: def("test_multiple_content_types", "Returns text, an image and an embedded resource.", noArgs), run: multipleContentTypes},
	{def: def("test_tool_with_logging", "Sends three log messages while it runs.", noArgs), run: toolWithLogging},
	{def: def("test_error_handling", "Always fails, with isError set.", noArgs), run: errorHandling},
	{def: def("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100 while it runs.", noArgs), run: toolWithProgress},
	{def: def("test_sampling", "Asks the client's model to answer a prompt (sampling/createMessage).",
		`{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt for the model"}},"required":["prompt"]}`), run: sampling},
	{def: def("test_elicitation", "Asks the user for a username and an email address (elicitation/create).",
		`{"type":"object","properties":{"message":{"type":"string","description":"The message shown to the user"}},"required":["message"]}`), run: elicitation},
	{def: def("test_elicitation_sep1034_defaults", "Asks the user for a form whose fields all have default values.", noArgs), run: elicitationDefaults},
	{def: def("test_elicitation_sep1330_enums", "Asks the user for a form with every kind of enum field.", noArgs), run: elicitationEnums},
	{def: def("json_schema_2020_12_tool", "Takes arguments described with JSON Schema 2020-12 features ($schema, $defs, $ref).", `{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type": "object",
		"$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
		"properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
		"additionalProperties": false}`), run: echoArguments},
	{def: def("test_reconnection", "Ends the request's event stream before answering; the client gets the answer after it reconnects.", noArgs), run: reconnection},
}

// noArgs is the input schema of a tool without arguments.
const noArgs = `{"type":"object","properties":{}}`

// def returns a tool's definition; schema is its input schema as JSON.
func def(name, description, schema string) mcp.Tool {
	var s mcp.ToolSchema
	if err := json.Unmarshal([]byte(schema), &s); err != nil {
		panic(fmt.Sprintf("the input schema of %s: %v", name, err)) // a typo in the catalogue above
	}
	return mcp.Tool{Name: name, Description: description, InputSchema: s}
}

func (s *session) ListTools(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	defs := make([]mcp.Tool, len(catalogue))
	for i, t := range catalogue {
		defs[i] = t.def
	}
	return &mcp.ListToolsResult{Tools: defs}, nil
}

// CallTool runs a tool of the catalogue. An unknown tool is -32602; a tool
// that fails answers with isError set.
func (s *session) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResponse, error) {
	for _, t := range catalogue {
		if t.def.Name != p.Name {
			continue
		}
		c := call{client: client(ctx)}
		if err := p.DecodeArguments(&c.args); err != nil {
			return nil, err
		}
		if p.Meta != nil {
			c.token = p.Meta.ProgressToken
		}
		res, err := t.run(ctx, s, c)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResponse{CallToolResult: res}, nil
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unknown tool: "+jsonrpc.Truncate(p.Name), nil)
}

// stringArg returns the string argument name, or a tool error when it is
// missing or not a string.
func (c call) stringArg(name string) (string, *mcp.CallToolResult) {
	raw, ok := c.args[name]
	if !ok {
		return "", toolError("argument %q: required, a string", name)
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", toolError("argument %q: must be a string", name)
	}
	return v, nil
}

// result is a successful tool result of the content blocks.
func result(blocks ...mcp.ContentBlock) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: blocks}
}

// textBlock is a text content block.
func textBlock(format string, args ...any) mcp.ContentBlock {
	return mcp.NewContentBlock(mcp.TextContent{Text: fmt.Sprintf(format, args...)})
}

// toolError is a failed tool result whose text says why.
func toolError(format string, args ...any) *mcp.CallToolResult {
	r := result(textBlock(format, args...))
	r.IsError = true
	return r
}

// imageBlock is the red pixel as an image content block.
func imageBlock() mcp.ContentBlock {
	return mcp.NewContentBlock(mcp.ImageContent{Data: redPixelPNG, MimeType: "image/png"})
}

// embeddedText is a text resource embedded in a content block.
func embeddedText(uri, mime, text string) mcp.ContentBlock {
	return mcp.NewContentBlock(mcp.EmbeddedResource{Resource: textContents(uri, mime, text)})
}

func simpleText(context.Context, *session, call) (*mcp.CallToolResult, error) {
	return result(textBlock("This is a simple text response for testing.")), nil
}

func imageContent(context.Context, *session, call) (*mcp.CallToolResult, error) {
	return result(imageBlock()), nil
}

func audioContent(context.Context, *session, call) (*mcp.CallToolResult, error) {
	return result(mcp.NewContentBlock(mcp.AudioContent{Data: silenceWAV, MimeType: "audio/wav"})), nil
}

func embeddedResource(context.Context, *session, call) (*mcp.CallToolResult, error) {
	return result(embeddedText("test://embedded-resource", "text/plain", "This is an embedded resource content.")), nil
}

func multipleContentTypes(context.Context, *session, call) (*mcp.CallToolResult, error) {
	return result(
		textBlock("Multiple content types test:"),
		imageBlock(),
		embeddedText("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`),
	), nil
}

func errorHandling(context.Context, *session, call) (*mcp.CallToolResult, error) {
	return toolError("This tool intentionally returns an error for testing"), nil
}

// echoArguments answers with the arguments it was called with.
func echoArguments(_ context.Context, _ *session, c call) (*mcp.CallToolResult, error) {
	args, err := json.Marshal(c.args)
	if err != nil {
		return nil, fmt.Errorf("encoding the arguments: %w", err)
	}
	return result(textBlock("Called with %s", args)), nil
}
