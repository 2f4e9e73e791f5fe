package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// Resources, prompts and completion.

// The URIs of the resources.
const (
	staticTextURI  = "test://static-text"
	staticBinURI   = "test://static-binary"
	watchedURI     = "test://watched-resource"
	templatePrefix = "test://template/"
	templateSuffix = "/data"
	templateURI    = templatePrefix + "{id}" + templateSuffix
)

// resources are the resources resources/list lists.
var resources = []mcp.Resource{
	{URI: staticTextURI, Name: "static-text", Title: "Static text", Description: "A text resource that never changes", MimeType: "text/plain"},
	{URI: staticBinURI, Name: "static-binary", Title: "Static binary", Description: "A PNG image that never changes", MimeType: "image/png"},
	{URI: watchedURI, Name: "watched-resource", Title: "Watched resource", Description: "A text resource to subscribe to", MimeType: "text/plain"},
}

// templates are the resource templates; {id} is any non-empty path segment.
var templates = []mcp.ResourceTemplate{
	{URITemplate: templateURI, Name: "template", Title: "Data by id", Description: "JSON data for the id in the URI", MimeType: "application/json"},
}

// templateIDs are the ids completion suggests for the template.
var templateIDs = []string{"1", "2", "3", "42", "123"}

func (s *session) ListResources(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListResourcesResult, error) {
	return &mcp.ListResourcesResult{Resources: resources}, nil
}

func (s *session) ListResourceTemplates(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListResourceTemplatesResult, error) {
	return &mcp.ListResourceTemplatesResult{ResourceTemplates: templates}, nil
}

// textContents is a text resource's contents.
func textContents(uri, mime, text string) mcp.ResourceContentsUnion {
	return mcp.NewResourceContentsUnion(mcp.TextResourceContents{URI: uri, MimeType: mime, Text: text})
}

// templateID returns the id in a URI of the template, or false when uri
// does not match it.
func templateID(uri string) (string, bool) {
	id, ok := strings.CutPrefix(uri, templatePrefix)
	if !ok {
		return "", false
	}
	id, ok = strings.CutSuffix(id, templateSuffix)
	return id, ok && id != "" && !strings.Contains(id, "/")
}

// read returns the contents of uri, or false when there is no such
// resource.
func read(uri string) (mcp.ResourceContentsUnion, bool) {
	switch uri {
	case staticTextURI:
		return textContents(uri, "text/plain", "This is the content of the static text resource."), true
	case staticBinURI:
		return mcp.NewResourceContentsUnion(mcp.BlobResourceContents{URI: uri, MimeType: "image/png", Blob: redPixelPNG}), true
	case watchedURI:
		return textContents(uri, "text/plain", "The watched resource has not changed."), true
	}
	id, ok := templateID(uri)
	if !ok {
		return mcp.ResourceContentsUnion{}, false
	}
	data, err := json.Marshal(struct {
		ID           string `json:"id"`
		TemplateTest bool   `json:"templateTest"`
		Data         string `json:"data"`
	}{id, true, "Data for ID: " + id})
	if err != nil {
		return mcp.ResourceContentsUnion{}, false
	}
	return textContents(uri, "application/json", string(data)), true
}

func notFound(uri string) error {
	return mcp.NewResourceNotFoundError(&mcp.ResourceNotFoundData{URI: jsonrpc.Truncate(uri)})
}

func (s *session) ReadResource(_ context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
	contents, ok := read(p.URI)
	if !ok {
		return nil, notFound(p.URI)
	}
	return &mcp.ReadResourceResult{Contents: []mcp.ResourceContentsUnion{contents}}, nil
}

// Subscribe records the subscription in the session. The resources never
// change, so no notifications/resources/updated follows.
func (s *session) Subscribe(_ context.Context, p *mcp.SubscribeRequestParams) (*mcp.EmptyResult, error) {
	if _, ok := read(p.URI); !ok {
		return nil, notFound(p.URI)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.subs[p.URI] && len(s.subs) >= maxSubscriptions {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, fmt.Sprintf("Too many subscriptions (at most %d)", maxSubscriptions), nil)
	}
	s.subs[p.URI] = true
	return &mcp.EmptyResult{}, nil
}

func (s *session) Unsubscribe(_ context.Context, p *mcp.UnsubscribeRequestParams) (*mcp.EmptyResult, error) {
	s.mu.Lock()
	delete(s.subs, p.URI)
	s.mu.Unlock()
	return &mcp.EmptyResult{}, nil
}

// prompts are the prompts prompts/list lists.
var prompts = []mcp.Prompt{
	{Name: "test_simple_prompt", Title: "Simple prompt", Description: "A prompt without arguments"},
	{Name: "test_prompt_with_arguments", Title: "Prompt with arguments", Description: "A prompt that quotes its two arguments",
		Arguments: []mcp.PromptArgument{
			{Name: "arg1", Description: "The first argument", Required: true},
			{Name: "arg2", Description: "The second argument", Required: true},
		}},
	{Name: "test_prompt_with_embedded_resource", Title: "Prompt with an embedded resource", Description: "A prompt that embeds a resource at the URI given",
		Arguments: []mcp.PromptArgument{{Name: "resourceUri", Description: "The URI of the embedded resource", Required: true}}},
	{Name: "test_prompt_with_image", Title: "Prompt with an image", Description: "A prompt that includes an image"},
}

// completions are the values completion suggests for each prompt argument,
// by prompt and argument name.
var completions = map[string]map[string][]string{
	"test_prompt_with_arguments":         {"arg1": {"paris", "park", "party", "test", "testValue1"}, "arg2": {"testValue2", "world"}},
	"test_prompt_with_embedded_resource": {"resourceUri": {staticTextURI, staticBinURI, watchedURI, "test://example-resource"}},
}

func (s *session) ListPrompts(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListPromptsResult, error) {
	return &mcp.ListPromptsResult{Prompts: prompts}, nil
}

// GetPrompt fills in a prompt; an unknown prompt or a missing required
// argument is -32602.
func (s *session) GetPrompt(_ context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
	i := slices.IndexFunc(prompts, func(pr mcp.Prompt) bool { return pr.Name == p.Name })
	if i < 0 {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unknown prompt: "+jsonrpc.Truncate(p.Name), nil)
	}
	for _, arg := range prompts[i].Arguments {
		if _, ok := p.Arguments[arg.Name]; ok || !arg.Required {
			continue
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Missing required argument: "+arg.Name, nil)
	}
	user := func(c mcp.ContentBlock) mcp.PromptMessage { return mcp.PromptMessage{Role: mcp.RoleUser, Content: c} }
	var msgs []mcp.PromptMessage
	switch p.Name {
	case "test_simple_prompt":
		msgs = []mcp.PromptMessage{user(textBlock("This is a simple prompt for testing."))}
	case "test_prompt_with_arguments":
		msgs = []mcp.PromptMessage{user(textBlock("Prompt with arguments: arg1='%s', arg2='%s'", p.Arguments["arg1"], p.Arguments["arg2"]))}
	case "test_prompt_with_embedded_resource":
		msgs = []mcp.PromptMessage{
			user(embeddedText(p.Arguments["resourceUri"], "text/plain", "Embedded resource content for testing.")),
			user(textBlock("Please process the embedded resource above.")),
		}
	case "test_prompt_with_image":
		msgs = []mcp.PromptMessage{user(imageBlock()), user(textBlock("Please analyze the image above."))}
	}
	return &mcp.GetPromptResult{Description: prompts[i].Description, Messages: msgs}, nil
}

// Complete suggests values for the arguments of the prompts and for the
// template's id, those starting with what the user typed (ignoring case).
// An unknown prompt or template is -32602.
func (s *session) Complete(_ context.Context, p *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) {
	var pool []string
	switch ref := p.Ref; {
	case ref.RefPrompt != nil:
		if !slices.ContainsFunc(prompts, func(pr mcp.Prompt) bool { return pr.Name == ref.RefPrompt.Name }) {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unknown prompt: "+jsonrpc.Truncate(ref.RefPrompt.Name), nil)
		}
		pool = completions[ref.RefPrompt.Name][p.Argument.Name]
	case ref.RefResource != nil:
		if ref.RefResource.URI != templateURI {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unknown resource template: "+jsonrpc.Truncate(ref.RefResource.URI), nil)
		}
		if p.Argument.Name == "id" {
			pool = templateIDs
		}
	}
	values := []string{}
	for _, v := range pool {
		if strings.HasPrefix(strings.ToLower(v), strings.ToLower(p.Argument.Value)) {
			values = append(values, v)
		}
	}
	total, more := int64(len(values)), false
	return &mcp.CompleteResult{Completion: mcp.Completion{Values: values, Total: &total, HasMore: more}}, nil
}
