package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/rpcgen/rpcgen/examples/mcp/internal/tasks"
	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

const (
	readmeURI = "example://readme"
	logoURI   = "example://logo.png"
	notesURI  = "notes://all"
	// greetingPrefix starts the URIs of the greeting://{name} template.
	greetingPrefix = "greeting://"
)

// logoPNG is a 1x1 transparent PNG, base64-encoded.
const logoPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

const readme = "# rpcgen MCP example\n\nTools: echo, add, slow, log, roots, sample, ask, connect, account, add_note, toggle_extras, ping_client.\n"

func noteURI(n int) string { return fmt.Sprintf("notes://%d", n) }

func (s *server) ListResources(_ context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListResourcesResult, error) {
	all := []mcp.Resource{
		{URI: readmeURI, Name: "readme", Title: "About this server", MimeType: "text/markdown", Size: ptr.To(int64(len(readme)))},
		{URI: logoURI, Name: "logo", Title: "Logo", MimeType: "image/png"},
		{URI: notesURI, Name: "notes", Title: "All notes", MimeType: "text/plain",
			Annotations: &mcp.Annotations{Audience: []mcp.Role{mcp.RoleUser, mcp.RoleAssistant}, Priority: ptr.To(0.5)}},
	}
	s.mu.Lock()
	for i := range s.notes {
		all = append(all, mcp.Resource{URI: noteURI(i + 1), Name: fmt.Sprintf("note-%d", i+1), MimeType: "text/plain"})
	}
	s.mu.Unlock()
	page, next, err := tasks.Paginate(all, p.Cursor, s.pageSize)
	if err != nil {
		return nil, err
	}
	return &mcp.ListResourcesResult{Resources: page, NextCursor: next}, nil
}

func (s *server) ListResourceTemplates(_ context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListResourceTemplatesResult, error) {
	all := []mcp.ResourceTemplate{{URITemplate: greetingPrefix + "{name}", Name: "greeting",
		Description: "A greeting for name", MimeType: "text/plain"}}
	page, next, err := tasks.Paginate(all, p.Cursor, s.pageSize)
	if err != nil {
		return nil, err
	}
	return &mcp.ListResourceTemplatesResult{ResourceTemplates: page, NextCursor: next}, nil
}

func textContents(uri, mime, body string) mcp.ResourceContentsUnion {
	return mcp.NewResourceContentsUnion(mcp.TextResourceContents{URI: uri, MimeType: mime, Text: body})
}

// read returns the contents of uri, or false when there is no such resource.
func (s *server) read(uri string) ([]mcp.ResourceContentsUnion, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case uri == readmeURI:
		return []mcp.ResourceContentsUnion{textContents(uri, "text/markdown", readme)}, true
	case uri == logoURI:
		return []mcp.ResourceContentsUnion{mcp.NewResourceContentsUnion(
			mcp.BlobResourceContents{URI: uri, MimeType: "image/png", Blob: logoPNG})}, true
	case uri == notesURI:
		return []mcp.ResourceContentsUnion{textContents(uri, "text/plain", strings.Join(s.notes, "\n"))}, true
	case strings.HasPrefix(uri, "notes://"):
		n, err := strconv.Atoi(strings.TrimPrefix(uri, "notes://"))
		if err != nil || n < 1 || n > len(s.notes) {
			return nil, false
		}
		return []mcp.ResourceContentsUnion{textContents(uri, "text/plain", s.notes[n-1])}, true
	case strings.HasPrefix(uri, greetingPrefix) && len(uri) > len(greetingPrefix):
		return []mcp.ResourceContentsUnion{textContents(uri, "text/plain", "Hello, "+strings.TrimPrefix(uri, greetingPrefix)+"!")}, true
	}
	return nil, false
}

func (s *server) ReadResource(_ context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
	contents, ok := s.read(p.URI)
	if !ok {
		return nil, mcp.NewResourceNotFoundError(&mcp.ResourceNotFoundData{URI: jsonrpc.Truncate(p.URI)})
	}
	return &mcp.ReadResourceResult{Contents: contents}, nil
}

func (s *server) Subscribe(_ context.Context, p *mcp.SubscribeRequestParams) (*mcp.EmptyResult, error) {
	if _, ok := s.read(p.URI); !ok {
		return nil, mcp.NewResourceNotFoundError(&mcp.ResourceNotFoundData{URI: jsonrpc.Truncate(p.URI)})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.subs[p.URI] && len(s.subs) >= maxSubscriptions {
		return nil, tooMany("subscriptions", maxSubscriptions)
	}
	s.subs[p.URI] = true
	return &mcp.EmptyResult{}, nil
}

func (s *server) Unsubscribe(_ context.Context, p *mcp.UnsubscribeRequestParams) (*mcp.EmptyResult, error) {
	s.mu.Lock()
	delete(s.subs, p.URI)
	s.mu.Unlock()
	return &mcp.EmptyResult{}, nil
}

// prompts returns the prompts listed now.
func (s *server) prompts() []mcp.Prompt {
	all := []mcp.Prompt{{Name: "review", Title: "Code review", Description: "Asks for a review of a piece of code",
		Arguments: []mcp.PromptArgument{
			{Name: "code", Description: "The code to review", Required: true},
			{Name: "language", Description: "Its programming language"},
		}}}
	s.mu.Lock()
	if s.extras {
		all = append(all, mcp.Prompt{Name: "shout", Description: "Asks for an answer in capitals",
			Arguments: []mcp.PromptArgument{{Name: "topic", Required: true}}})
	}
	s.mu.Unlock()
	return all
}

func (s *server) ListPrompts(_ context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListPromptsResult, error) {
	page, next, err := tasks.Paginate(s.prompts(), p.Cursor, s.pageSize)
	if err != nil {
		return nil, err
	}
	return &mcp.ListPromptsResult{Prompts: page, NextCursor: next}, nil
}

func (s *server) GetPrompt(_ context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
	var found *mcp.Prompt
	for _, pr := range s.prompts() {
		if pr.Name == p.Name {
			found = &pr
		}
	}
	if found == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unknown prompt: "+jsonrpc.Truncate(p.Name), nil)
	}
	for _, arg := range found.Arguments {
		if arg.Required && p.Arguments[arg.Name] == "" {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Missing required argument: "+arg.Name, nil)
		}
	}
	var body string
	switch p.Name {
	case "review":
		lang := p.Arguments["language"]
		if lang == "" {
			lang = "code"
		}
		body = fmt.Sprintf("Please review this %s:\n\n%s", lang, p.Arguments["code"])
	case "shout":
		body = "ANSWER IN CAPITALS: " + p.Arguments["topic"]
	}
	return &mcp.GetPromptResult{
		Description: found.Description,
		Messages: []mcp.PromptMessage{
			{Role: mcp.RoleUser, Content: mcp.NewContentBlock(mcp.TextContent{Text: body})},
			{Role: mcp.RoleUser, Content: mcp.NewContentBlock(mcp.ResourceLink{URI: readmeURI, Name: "readme", MimeType: "text/markdown"})},
		},
	}, nil
}

// Task requests, answered from the task store.

func (s *server) GetTask(_ context.Context, p *mcp.TaskIDParams) (*mcp.GetTaskResult, error) {
	return s.tasks.Get(p.TaskID)
}

func (s *server) GetTaskPayload(ctx context.Context, p *mcp.TaskIDParams) (*mcp.GetTaskPayloadResult, error) {
	return s.tasks.Result(ctx, p.TaskID)
}

func (s *server) ListTasks(_ context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListTasksResult, error) {
	return s.tasks.List(p.Cursor, s.pageSize)
}

func (s *server) CancelTask(ctx context.Context, p *mcp.TaskIDParams) (*mcp.CancelTaskResult, error) {
	c := client(ctx)
	return s.tasks.Cancel(p.TaskID, func(t mcp.Task) {
		_ = c.TaskStatus(ctx, &mcp.TaskStatusNotificationParams{TaskID: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage,
			CreatedAt: t.CreatedAt, LastUpdatedAt: t.LastUpdatedAt, TTL: t.TTL, PollInterval: t.PollInterval})
	})
}
