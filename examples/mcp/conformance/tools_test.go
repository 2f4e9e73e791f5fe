package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"reflect"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// Every tool the suite calls is listed with a description and an input
// schema; json_schema_2020_12_tool keeps its JSON Schema 2020-12 keywords.
func TestListTools(t *testing.T) {
	server, _ := connect(t, newTestClient(), bothCaps)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res, err := server.ListTools(ctx, &mcp.PaginatedRequestParams{})
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]any{}
	for _, tool := range path(generic(t, res), "tools").([]any) {
		name, _ := path(tool, "name").(string)
		if path(tool, "description") == nil || path(tool, "inputSchema", "type") != "object" {
			t.Errorf("tool %q has no description or no object input schema: %v", name, tool)
		}
		tools[name] = tool
	}
	for _, name := range []string{"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
		"test_multiple_content_types", "test_tool_with_logging", "test_error_handling", "test_tool_with_progress",
		"test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums",
		"json_schema_2020_12_tool", "test_reconnection"} {
		if tools[name] == nil {
			t.Errorf("tool %s is not listed", name)
		}
	}
	schema := path(tools["json_schema_2020_12_tool"], "inputSchema")
	if got := path(schema, "$schema"); got != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema is %v", got)
	}
	if path(schema, "$defs", "address", "properties", "city") == nil {
		t.Errorf("$defs.address is missing or incomplete: %v", path(schema, "$defs"))
	}
	if got := path(schema, "properties", "address", "$ref"); got != "#/$defs/address" {
		t.Errorf("properties.address.$ref is %v", got)
	}
	if got, ok := path(schema, "additionalProperties").(bool); !ok || got {
		t.Errorf("additionalProperties is %v, want false", path(schema, "additionalProperties"))
	}
}

// The tools that return content return the blocks the suite looks for.
func TestContentTools(t *testing.T) {
	server, _ := connect(t, newTestClient(), bothCaps)
	for tool, want := range map[string]string{
		"test_simple_text":            `[{"text":"This is a simple text response for testing.","type":"text"}]`,
		"test_image_content":          `[{"data":"PNG","mimeType":"image/png","type":"image"}]`,
		"test_audio_content":          `[{"data":"WAV","mimeType":"audio/wav","type":"audio"}]`,
		"test_embedded_resource":      `[{"resource":{"mimeType":"text/plain","text":"This is an embedded resource content.","uri":"test://embedded-resource"},"type":"resource"}]`,
		"test_multiple_content_types": `[{"text":"Multiple content types test:","type":"text"},{"data":"PNG","mimeType":"image/png","type":"image"},{"resource":{"mimeType":"application/json","text":"{\"test\":\"data\",\"value\":123}","uri":"test://mixed-content-resource"},"type":"resource"}]`,
	} {
		res := callTool(t, server, tool, nil, nil)
		if res["isError"] != nil {
			t.Errorf("%s: isError is %v", tool, res["isError"])
		}
		content, _ := res["content"].([]any)
		for _, block := range content {
			b := block.(map[string]any)
			data, _ := b["data"].(string)
			raw, err := base64.StdEncoding.DecodeString(data)
			switch {
			case b["type"] == "image":
				if _, err2 := png.Decode(bytes.NewReader(raw)); err != nil || err2 != nil {
					t.Errorf("%s: the image is not a base64 PNG: %v %v", tool, err, err2)
				}
				b["data"] = "PNG"
			case b["type"] == "audio":
				if err != nil || !bytes.HasPrefix(raw, []byte("RIFF")) || string(raw[8:12]) != "WAVE" {
					t.Errorf("%s: the audio is not a base64 WAV: %v", tool, err)
				}
				b["data"] = "WAV"
			}
		}
		if got, _ := json.Marshal(content); string(got) != want {
			t.Errorf("%s: content\n%s\nwant\n%s", tool, got, want)
		}
	}
}

func TestErrorTool(t *testing.T) {
	server, _ := connect(t, newTestClient(), bothCaps)
	res := callTool(t, server, "test_error_handling", nil, nil)
	if res["isError"] != true || path(res, "content", 0, "text") != "This tool intentionally returns an error for testing" {
		t.Errorf("got %v, want isError and the error's text", res)
	}
}

func TestUnknownTool(t *testing.T) {
	server, _ := connect(t, newTestClient(), bothCaps)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, err := server.CallTool(ctx, &mcp.CallToolRequestParams{Name: "no_such_tool"})
	if rpcCode(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("got %v, want -32602", err)
	}
}

// test_tool_with_logging sends its three messages at info level; the
// client's log level filters them.
func TestLoggingTool(t *testing.T) {
	c := newTestClient()
	server, _ := connect(t, c, bothCaps)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, err := server.SetLevel(ctx, &mcp.SetLevelRequestParams{Level: mcp.LoggingLevelDebug}); err != nil {
		t.Fatal(err)
	}
	callTool(t, server, "test_tool_with_logging", nil, nil)
	for _, want := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		msg := recv(t, c.logs, "log message "+want)
		if msg.Level != mcp.LoggingLevelInfo || string(msg.Data) != `"`+want+`"` {
			t.Errorf("log message %s %s, want info %q", msg.Level, msg.Data, want)
		}
	}
	if _, err := server.SetLevel(ctx, &mcp.SetLevelRequestParams{Level: "loud"}); rpcCode(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("logging/setLevel with an unknown level: got %v, want -32602", err)
	}
}

// logf filters by the level the session's client set; each session has its
// own level.
func TestLogLevelPerSession(t *testing.T) {
	quiet, loud := newSession(nil), newSession(nil)
	ctx := context.Background()
	if _, err := quiet.SetLevel(ctx, &mcp.SetLevelRequestParams{Level: mcp.LoggingLevelWarning}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s     *session
		level mcp.LoggingLevel
		sent  bool
	}{
		{quiet, mcp.LoggingLevelInfo, false},
		{quiet, mcp.LoggingLevelWarning, true},
		{quiet, mcp.LoggingLevelEmergency, true},
		{loud, mcp.LoggingLevelDebug, true},
	} {
		rec := &recorder{}
		if err := tc.s.logf(ctx, rec, tc.level, "m"); err != nil {
			t.Fatal(err)
		}
		if got := len(rec.logs) == 1; got != tc.sent {
			t.Errorf("level %s, client's level %q: sent %v, want %v", tc.level, tc.s.level, got, tc.sent)
		}
	}
}

// recorder is an mcp.Client that records log messages and progress.
type recorder struct {
	mcp.UnimplementedClient
	logs     []*mcp.LoggingMessageNotificationParams
	progress int
}

func (r *recorder) Progress(context.Context, *mcp.ProgressNotificationParams) error {
	r.progress++
	return nil
}

func (r *recorder) LoggingMessage(_ context.Context, p *mcp.LoggingMessageNotificationParams) error {
	r.logs = append(r.logs, p)
	return nil
}

// test_tool_with_progress reports 0, 50 and 100 of 100 under the caller's
// token, and nothing without one.
func TestProgressTool(t *testing.T) {
	c := newTestClient()
	server, _ := connect(t, c, bothCaps)
	token := mcp.NewProgressToken("progress-test-1")
	callTool(t, server, "test_tool_with_progress", nil, &mcp.RequestMeta{ProgressToken: token})
	for _, want := range []float64{0, 50, 100} {
		p := recv(t, c.progress, "progress notification")
		if !reflect.DeepEqual(p.ProgressToken, token) || p.Progress != want || p.Total == nil || *p.Total != 100 {
			t.Errorf("progress %+v, want %v of 100 under the token", p, want)
		}
	}
	rec := &recorder{}
	if _, err := toolWithProgress(context.Background(), nil, call{client: rec}); err != nil || rec.progress != 0 {
		t.Errorf("without a token: %v, %d progress notifications", err, rec.progress)
	}
}

// test_sampling sends the prompt to the client's model and returns its
// answer; a client without sampling gets a tool error.
func TestSamplingTool(t *testing.T) {
	c := newTestClient()
	server, _ := connect(t, c, bothCaps)
	res := callTool(t, server, "test_sampling", map[string]any{"prompt": "Test prompt for sampling"}, nil)
	p := recv(t, c.sampled, "sampling request")
	if p.MaxTokens != 100 || len(p.Messages) != 1 || p.Messages[0].Role != mcp.RoleUser ||
		p.Messages[0].Content.SamplingMessageContentBlock == nil || p.Messages[0].Content.SamplingMessageContentBlock.Text == nil ||
		p.Messages[0].Content.SamplingMessageContentBlock.Text.Text != "Test prompt for sampling" {
		t.Errorf("sampling/createMessage params %+v", p)
	}
	if got := path(res, "content", 0, "text"); got != "LLM response: a sampled answer" {
		t.Errorf("result text %v", got)
	}
	if res := callTool(t, server, "test_sampling", nil, nil); res["isError"] != true {
		t.Errorf("without a prompt: %v, want a tool error", res)
	}
	other, _ := connect(t, newTestClient(), mcp.ClientCapabilities{})
	if res := callTool(t, other, "test_sampling", map[string]any{"prompt": "p"}, nil); res["isError"] != true {
		t.Errorf("a client without sampling: %v, want a tool error", res)
	}
}

// elicited calls an elicitation tool and returns the requestedSchema's
// properties as sent, and the tool's text.
func elicited(t *testing.T, tool string, args map[string]any) (map[string]any, string) {
	t.Helper()
	c := newTestClient()
	server, _ := connect(t, c, bothCaps)
	res := callTool(t, server, tool, args, nil)
	var p map[string]any
	if err := json.Unmarshal(recv(t, c.elicited, "elicitation request"), &p); err != nil {
		t.Fatal(err)
	}
	props, _ := path(p, "requestedSchema", "properties").(map[string]any)
	text, _ := path(res, "content", 0, "text").(string)
	return props, text
}

func TestElicitationTool(t *testing.T) {
	props, text := elicited(t, "test_elicitation", map[string]any{"message": "Please provide your information"})
	if path(props, "username", "type") != "string" || path(props, "email", "type") != "string" {
		t.Errorf("properties %v", props)
	}
	if !strings.Contains(text, "action=accept") || !strings.Contains(text, `"username":"testuser"`) || !strings.Contains(text, `"choices":["value1","value2"]`) {
		t.Errorf("result text %q", text)
	}
	other, _ := connect(t, newTestClient(), mcp.ClientCapabilities{})
	if res := callTool(t, other, "test_elicitation", map[string]any{"message": "m"}, nil); res["isError"] != true {
		t.Errorf("a client without elicitation: %v, want a tool error", res)
	}
}

// The SEP-1034 form has a default of the right type for each field.
func TestElicitationDefaults(t *testing.T) {
	props, _ := elicited(t, "test_elicitation_sep1034_defaults", nil)
	for field, want := range map[string]string{
		"name":     `{"default":"John Doe","type":"string"}`,
		"age":      `{"default":30,"type":"integer"}`,
		"score":    `{"default":95.5,"type":"number"}`,
		"status":   `{"default":"active","enum":["active","inactive","pending"],"type":"string"}`,
		"verified": `{"default":true,"type":"boolean"}`,
	} {
		p, _ := props[field].(map[string]any)
		delete(p, "description")
		if got, _ := json.Marshal(p); string(got) != want {
			t.Errorf("%s: %s, want %s", field, got, want)
		}
	}
}

// The SEP-1330 form has each of the five kinds of enum field.
func TestElicitationEnums(t *testing.T) {
	props, _ := elicited(t, "test_elicitation_sep1330_enums", nil)
	for field, want := range map[string]string{
		"untitledSingle": `{"enum":["option1","option2","option3"],"type":"string"}`,
		"titledSingle":   `{"oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}],"type":"string"}`,
		"legacyEnum":     `{"enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"],"type":"string"}`,
		"untitledMulti":  `{"items":{"enum":["option1","option2","option3"],"type":"string"},"type":"array"}`,
		"titledMulti":    `{"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]},"type":"array"}`,
	} {
		p, _ := props[field].(map[string]any)
		delete(p, "description")
		if got, _ := json.Marshal(p); string(got) != want {
			t.Errorf("%s: %s, want %s", field, got, want)
		}
	}
}

// json_schema_2020_12_tool answers with the arguments it got.
func TestEchoArguments(t *testing.T) {
	server, _ := connect(t, newTestClient(), bothCaps)
	res := callTool(t, server, "json_schema_2020_12_tool", map[string]any{"name": "n"}, nil)
	if got := path(res, "content", 0, "text"); got != `Called with {"name":"n"}` {
		t.Errorf("got %v", got)
	}
}
