package mcp_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/mcp"
)

// TestEveryResultKeepsExtraMembers decodes each MCP result with members it
// does not declare and re-encodes it: the extra members come back as sent,
// in the order sent, after the declared ones. Every result the generated
// schemas define must be in the table.
func TestEveryResultKeepsExtraMembers(t *testing.T) {
	const task = `"taskId":"t1","status":"working","createdAt":"2025-11-25T00:00:00Z","lastUpdatedAt":"2025-11-25T00:00:00Z","ttl":null`
	results := map[string]struct {
		v        any
		declared string
	}{
		"Result":                      {new(mcp.Result), ``},
		"EmptyResult":                 {new(mcp.EmptyResult), ``},
		"PaginatedResult":             {new(mcp.PaginatedResult), `"nextCursor":"c"`},
		"InitializeResult":            {new(mcp.InitializeResult), `"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}`},
		"ListResourcesResult":         {new(mcp.ListResourcesResult), `"resources":[]`},
		"ListResourceTemplatesResult": {new(mcp.ListResourceTemplatesResult), `"resourceTemplates":[]`},
		"ReadResourceResult":          {new(mcp.ReadResourceResult), `"contents":[]`},
		"ListPromptsResult":           {new(mcp.ListPromptsResult), `"prompts":[]`},
		"GetPromptResult":             {new(mcp.GetPromptResult), `"messages":[]`},
		"ListToolsResult":             {new(mcp.ListToolsResult), `"tools":[]`},
		"CallToolResult":              {new(mcp.CallToolResult), `"content":[]`},
		"CreateTaskResult":            {new(mcp.CreateTaskResult), `"task":{` + task + `}`},
		"GetTaskResult":               {new(mcp.GetTaskResult), task},
		"CancelTaskResult":            {new(mcp.CancelTaskResult), task},
		"GetTaskPayloadResult":        {new(mcp.GetTaskPayloadResult), ``},
		"ListTasksResult":             {new(mcp.ListTasksResult), `"tasks":[]`},
		"CompleteResult":              {new(mcp.CompleteResult), `"completion":{"values":[]}`},
		"CreateMessageResult":         {new(mcp.CreateMessageResult), `"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"`},
		"ListRootsResult":             {new(mcp.ListRootsResult), `"roots":[]`},
		"ElicitResult":                {new(mcp.ElicitResult), `"action":"cancel"`},
	}
	const extra = `"zz":1,"aa":{"b":[true]},"mm":null`
	for name, r := range results {
		in := "{" + r.declared + "," + extra + "}"
		if r.declared == "" {
			in = "{" + extra + "}"
		}
		if err := json.Unmarshal([]byte(in), r.v); err != nil {
			t.Errorf("%s %s: %v", name, in, err)
			continue
		}
		if out, err := json.Marshal(r.v); err != nil || string(out) != in {
			t.Errorf("%s re-encoded as\n%s (%v)\nwant\n%s", name, out, err, in)
		}
	}

	files, err := filepath.Glob(filepath.Join("..", "..", "generated", "mcp", "schema", "*Result.json"))
	if err != nil || len(files) < len(results) {
		t.Fatalf("listing the result schemas: %v (%d files)", err, len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if _, ok := results[name]; !ok && name != "ToolResultContent" { // a content block, not a result
			t.Errorf("the result %s is missing from the table", name)
		}
	}
}
