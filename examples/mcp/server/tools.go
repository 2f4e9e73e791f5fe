package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/examples/mcp/internal/tasks"
	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// toolFunc runs a tool for a call whose caller may want progress under token.
type toolFunc func(ctx context.Context, c mcp.Client, token *mcp.ProgressToken, args json.RawMessage) (*mcp.CallToolResult, error)

// tool is a tool of the catalogue and its implementation.
type tool struct {
	def   mcp.Tool
	run   toolFunc
	extra bool // listed only while the extras are on
}

// schema builds a tool's input schema from its properties' schemas.
func schema(required []string, props map[string]mcp.PropertySchema) mcp.ToolSchema {
	if props == nil {
		props = map[string]mcp.PropertySchema{}
	}
	return mcp.ToolSchema{Type: "object", Properties: props, Required: required}
}

// prop returns the schema of a property of the JSON type typ, with a
// default value when one is given.
func prop(typ string, def ...int) mcp.PropertySchema {
	src := `{"type":` + strconv.Quote(typ)
	if len(def) > 0 {
		src += `,"default":` + strconv.Itoa(def[0])
	}
	var p mcp.PropertySchema
	// The JSON is built above from a quoted string and an integer: it
	// always decodes.
	_ = json.Unmarshal([]byte(src+"}"), &p)
	return p
}

// asTaskNote ends the description of the tools that call back and may run
// as tasks.
const asTaskNote = " As a task, it waits in input_required until the client calls tasks/result, and asks then."

// tools returns the catalogue, in listing order.
func (s *server) tools() []tool {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr.To(false)}
	optional := mcp.TaskSupportOptional
	return []tool{
		{def: mcp.Tool{Name: "echo", Description: "Returns its text.", Annotations: readOnly,
			InputSchema: schema([]string{"text"}, map[string]mcp.PropertySchema{"text": prop("string")})}, run: s.echo},
		{def: mcp.Tool{Name: "add", Description: "Adds two numbers.", Annotations: readOnly,
			InputSchema:  schema([]string{"a", "b"}, map[string]mcp.PropertySchema{"a": prop("number"), "b": prop("number")}),
			OutputSchema: ptr.To(schema([]string{"sum"}, map[string]mcp.PropertySchema{"sum": prop("number")}))}, run: s.add},
		{def: mcp.Tool{Name: "slow", Description: "Counts steps slowly, reporting progress; honours cancellation and may run as a task.",
			Annotations: readOnly, Execution: &mcp.ToolExecution{TaskSupport: optional},
			InputSchema: schema(nil, map[string]mcp.PropertySchema{"steps": prop("integer", 5), "delayMs": prop("integer", 100)})}, run: s.slow},
		{def: mcp.Tool{Name: "log", Description: "Sends a log message to the client at the given level.",
			InputSchema: schema([]string{"level", "message"}, map[string]mcp.PropertySchema{"level": prop("string"), "message": prop("string")})}, run: s.logTool},
		{def: mcp.Tool{Name: "roots", Description: "Lists the client's roots (roots/list)." + asTaskNote, Annotations: readOnly,
			Execution: &mcp.ToolExecution{TaskSupport: optional}, InputSchema: schema(nil, nil)}, run: s.roots},
		{def: mcp.Tool{Name: "sample", Description: "Asks the client's model to answer a prompt (sampling/createMessage), " +
			"optionally run by the client as a task (asTask), which is then cancelled (cancelTask) at once or, with awaitDone, once it has finished." + asTaskNote, Execution: &mcp.ToolExecution{TaskSupport: optional},
			InputSchema: schema([]string{"prompt"}, map[string]mcp.PropertySchema{"prompt": prop("string"), "maxTokens": prop("integer"),
				"asTask": prop("boolean"), "cancelTask": prop("boolean"), "awaitDone": prop("boolean")})}, run: s.sample},
		{def: mcp.Tool{Name: "ask", Description: "Asks the user a question through the client (elicitation/create, form mode)." + asTaskNote,
			Execution:   &mcp.ToolExecution{TaskSupport: optional},
			InputSchema: schema([]string{"question"}, map[string]mcp.PropertySchema{"question": prop("string")})}, run: s.ask},
		{def: mcp.Tool{Name: "connect", Description: "Connects an account by sending the user to a URL (elicitation/create, url mode).",
			InputSchema: schema(nil, nil)}, run: s.connect},
		{def: mcp.Tool{Name: "account", Description: "Shows the connected account; needs connect first (error -32042 otherwise).", Annotations: readOnly,
			InputSchema: schema(nil, nil)}, run: s.account},
		{def: mcp.Tool{Name: "add_note", Description: fmt.Sprintf("Adds a note, a new resource; subscribers of notes://all are told. "+
			"The server keeps at most %d notes of at most %d bytes each; past either bound the call fails.", s.limits.maxNotes, s.limits.maxNoteBytes),
			InputSchema: schema([]string{"text"}, map[string]mcp.PropertySchema{"text": prop("string")})}, run: s.addNote},
		{def: mcp.Tool{Name: "toggle_extras", Description: "Turns the shout tool and prompt on or off.",
			InputSchema: schema(nil, nil)}, run: s.toggleExtras},
		{def: mcp.Tool{Name: "ping_client", Description: "Pings the client and reports the round trip.", Annotations: readOnly,
			InputSchema: schema(nil, nil)}, run: s.pingClient},
		{def: mcp.Tool{Name: "shout", Description: "Returns its text in capitals.", Annotations: readOnly,
			InputSchema: schema([]string{"text"}, map[string]mcp.PropertySchema{"text": prop("string")})}, run: s.shout, extra: true},
	}
}

// available returns the tools listed now.
func (s *server) available() []tool {
	s.mu.Lock()
	extras := s.extras
	s.mu.Unlock()
	var out []tool
	for _, t := range s.tools() {
		if !t.extra || extras {
			out = append(out, t)
		}
	}
	return out
}

func (s *server) ListTools(_ context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	var defs []mcp.Tool
	for _, t := range s.available() {
		defs = append(defs, t.def)
	}
	page, next, err := tasks.Paginate(defs, p.Cursor, s.pageSize)
	if err != nil {
		return nil, err
	}
	return &mcp.ListToolsResult{Tools: page, NextCursor: next}, nil
}

// CallTool runs a tool, or starts it as a task when asked and allowed.
func (s *server) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResponse, error) {
	var found *tool
	for _, t := range s.available() {
		if t.def.Name == p.Name {
			found = &t
			break
		}
	}
	if found == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unknown tool: "+jsonrpc.Truncate(p.Name), nil)
	}
	args := p.Arguments
	if args == nil {
		args = json.RawMessage("{}")
	}
	var token *mcp.ProgressToken
	if p.Meta != nil && !p.Meta.ProgressToken.IsZero() {
		token = &p.Meta.ProgressToken
	}
	c := client(ctx)
	if p.Task != nil {
		if found.def.Execution == nil || found.def.Execution.TaskSupport == "" || found.def.Execution.TaskSupport == mcp.TaskSupportForbidden {
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Tool "+p.Name+" cannot run as a task", nil)
		}
		notify := func(t mcp.Task) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = c.TaskStatus(ctx, &mcp.TaskStatusNotificationParams{TaskID: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage,
				CreatedAt: t.CreatedAt, LastUpdatedAt: t.LastUpdatedAt, TTL: t.TTL, PollInterval: t.PollInterval})
		}
		tc := taskClient{Client: c, store: s.tasks}
		info, err := s.tasks.Start(p.Task, notify, func(ctx context.Context) (any, error) {
			return found.run(ctx, tc, token, args)
		})
		if err != nil {
			return nil, err
		}
		return ptr.To(mcp.NewCallToolResponse(mcp.CreateTaskResult{Task: info})), nil
	}
	res, err := found.run(ctx, c, token, args)
	if err != nil {
		return nil, err
	}
	return ptr.To(mcp.NewCallToolResponse(*res)), nil
}

// levelNames lists the logging levels, quoted, for an error message.
func levelNames() string {
	var names []string
	for _, l := range logLevels {
		names = append(names, strconv.Quote(string(l)))
	}
	return strings.Join(names, ", ")
}

// text is a tool result holding one text block.
func text(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.NewContentBlock(mcp.TextContent{Text: fmt.Sprintf(format, args...)})}}
}

// toolError is a failed tool result the model can read.
func toolError(format string, args ...any) *mcp.CallToolResult {
	r := text(format, args...)
	r.IsError = true
	return r
}

func (s *server) echo(_ context.Context, _ mcp.Client, _ *mcp.ProgressToken, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		Text *string `json:"text"`
	}
	if bad := decode(raw, &a); bad != nil {
		return bad, nil
	}
	if a.Text == nil {
		return toolError(`argument "text": required, a string`), nil
	}
	return text("%s", *a.Text), nil
}

func (s *server) add(_ context.Context, _ mcp.Client, _ *mcp.ProgressToken, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		A *float64 `json:"a"`
		B *float64 `json:"b"`
	}
	if bad := decode(raw, &a); bad != nil {
		return bad, nil
	}
	if a.A == nil || a.B == nil {
		return toolError(`arguments "a" and "b": required, numbers`), nil
	}
	sum := *a.A + *a.B
	r := text("%g", sum)
	if err := r.SetStructuredContent(struct {
		Sum float64 `json:"sum"`
	}{sum}); err != nil {
		return nil, err
	}
	return r, nil
}

func (s *server) slow(ctx context.Context, c mcp.Client, token *mcp.ProgressToken, raw json.RawMessage) (*mcp.CallToolResult, error) {
	a := struct {
		Steps   int `json:"steps"`
		DelayMs int `json:"delayMs"`
	}{Steps: 5, DelayMs: 100}
	if bad := decode(raw, &a); bad != nil {
		return bad, nil
	}
	if a.Steps < 1 || a.Steps > 10000 || a.DelayMs < 0 {
		return toolError(`arguments "steps" and "delayMs": steps must be 1 to 10000 and delayMs not negative`), nil
	}
	total := float64(a.Steps)
	for i := 1; i <= a.Steps; i++ {
		select {
		case <-time.After(time.Duration(a.DelayMs) * time.Millisecond):
		case <-ctx.Done():
			logCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			s.logf(logCtx, c, mcp.LoggingLevelNotice, "slow", "slow: cancelled after %d of %d steps", i-1, a.Steps)
			return nil, ctx.Err()
		}
		if token != nil {
			msg := fmt.Sprintf("step %d of %d", i, a.Steps)
			if err := c.Progress(ctx, &mcp.ProgressNotificationParams{ProgressToken: *token, Progress: float64(i), Total: &total, Message: msg}); err != nil {
				s.log.Debug("sending progress", "error", err)
			}
		}
	}
	return text("done after %d steps", a.Steps), nil
}

func (s *server) logTool(ctx context.Context, c mcp.Client, _ *mcp.ProgressToken, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		Level   string `json:"level"`
		Message string `json:"message"`
	}
	if bad := decode(raw, &a); bad != nil {
		return bad, nil
	}
	level := mcp.LoggingLevel(a.Level)
	if !slices.Contains(logLevels, level) {
		return toolError(`argument "level": want one of %s, got %q`, levelNames(), jsonrpc.Truncate(a.Level)), nil
	}
	s.logf(ctx, c, level, "log-tool", "%s", a.Message)
	return text("logged at %s", level), nil
}

func (s *server) addNote(ctx context.Context, c mcp.Client, _ *mcp.ProgressToken, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		Text *string `json:"text"`
	}
	if bad := decode(raw, &a); bad != nil {
		return bad, nil
	}
	if a.Text == nil {
		return toolError(`argument "text": required, a string`), nil
	}
	if len(*a.Text) > s.limits.maxNoteBytes {
		return toolError(`argument "text": a note holds at most %d bytes, got %d`, s.limits.maxNoteBytes, len(*a.Text)), nil
	}
	s.mu.Lock()
	if len(s.notes) >= s.limits.maxNotes {
		s.mu.Unlock()
		return toolError("the server keeps at most %d notes, and has them all", s.limits.maxNotes), nil
	}
	s.notes = append(s.notes, *a.Text)
	n := len(s.notes)
	subscribed := s.subs[notesURI]
	s.mu.Unlock()
	if err := c.ResourceListChanged(ctx, &mcp.NotificationParams{}); err != nil {
		return nil, fmt.Errorf("announcing the new note: %w", err)
	}
	if subscribed {
		if err := c.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: notesURI}); err != nil {
			return nil, fmt.Errorf("announcing the new note: %w", err)
		}
	}
	return text("added note %d as %s", n, noteURI(n)), nil
}

func (s *server) toggleExtras(ctx context.Context, c mcp.Client, _ *mcp.ProgressToken, _ json.RawMessage) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	s.extras = !s.extras
	on := s.extras
	s.mu.Unlock()
	if err := c.ToolListChanged(ctx, &mcp.NotificationParams{}); err != nil {
		return nil, fmt.Errorf("announcing the tool change: %w", err)
	}
	if err := c.PromptListChanged(ctx, &mcp.NotificationParams{}); err != nil {
		return nil, fmt.Errorf("announcing the prompt change: %w", err)
	}
	return text("extras on: %t", on), nil
}

func (s *server) pingClient(ctx context.Context, c mcp.Client, _ *mcp.ProgressToken, _ json.RawMessage) (*mcp.CallToolResult, error) {
	start := time.Now()
	if _, err := c.Ping(ctx, &mcp.RequestParams{}); err != nil {
		return toolError("the client did not answer the ping: %s", jsonrpc.Truncate(err.Error())), nil
	}
	return text("pong in %s", time.Since(start).Round(time.Microsecond)), nil
}

func (s *server) shout(_ context.Context, _ mcp.Client, _ *mcp.ProgressToken, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		Text string `json:"text"`
	}
	if bad := decode(raw, &a); bad != nil {
		return bad, nil
	}
	return text("%s!", strings.ToUpper(a.Text)), nil
}
