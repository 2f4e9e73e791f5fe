package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

func TestResources(t *testing.T) {
	server, _ := connect(t, newTestClient(), bothCaps)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	list, err := server.ListResources(ctx, &mcp.PaginatedRequestParams{})
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range list.Resources {
		if r.Name == "" || r.Description == "" || r.MimeType == "" {
			t.Errorf("resource %s lacks a name, description or MIME type", r.URI)
		}
		uris = append(uris, r.URI)
	}
	if want := []string{"test://static-text", "test://static-binary", "test://watched-resource"}; !slices.Equal(uris, want) {
		t.Errorf("resources/list: %v, want %v", uris, want)
	}
	templates, err := server.ListResourceTemplates(ctx, &mcp.PaginatedRequestParams{})
	if err != nil || len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != "test://template/{id}/data" {
		t.Errorf("resources/templates/list: %+v, %v", templates, err)
	}
	for uri, want := range map[string]string{
		"test://static-text":       `{"mimeType":"text/plain","text":"This is the content of the static text resource.","uri":"test://static-text"}`,
		"test://static-binary":     `{"blob":"` + redPixelPNG + `","mimeType":"image/png","uri":"test://static-binary"}`,
		"test://template/123/data": `{"mimeType":"application/json","text":"{\"id\":\"123\",\"templateTest\":true,\"data\":\"Data for ID: 123\"}","uri":"test://template/123/data"}`,
	} {
		res, err := server.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: uri})
		if err != nil {
			t.Errorf("resources/read %s: %v", uri, err)
			continue
		}
		if got, _ := json.Marshal(path(generic(t, res), "contents")); string(got) != "["+want+"]" {
			t.Errorf("resources/read %s:\n%s\nwant\n[%s]", uri, got, want)
		}
	}
	for _, uri := range []string{"test://nothing", "test://template//data", "test://template/1/2/data", "test://template/1"} {
		if _, err := server.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: uri}); rpcCode(err) != mcp.CodeResourceNotFound {
			t.Errorf("resources/read %s: %v, want -32002", uri, err)
		}
	}
}

// Subscriptions are the session's own: another session starts with none.
func TestSubscriptions(t *testing.T) {
	server, sess := connect(t, newTestClient(), bothCaps)
	_, other := connect(t, newTestClient(), bothCaps)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, err := server.Subscribe(ctx, &mcp.SubscribeRequestParams{URI: watchedURI}); err != nil {
		t.Fatal(err)
	}
	if !sess.subs[watchedURI] || len(other.subs) != 0 {
		t.Errorf("after subscribing: this session %v, the other %v", sess.subs, other.subs)
	}
	if _, err := server.Unsubscribe(ctx, &mcp.UnsubscribeRequestParams{URI: watchedURI}); err != nil {
		t.Fatal(err)
	}
	if len(sess.subs) != 0 {
		t.Errorf("after unsubscribing: %v", sess.subs)
	}
	if _, err := server.Subscribe(ctx, &mcp.SubscribeRequestParams{URI: "test://nothing"}); rpcCode(err) != mcp.CodeResourceNotFound {
		t.Errorf("subscribing to an unknown resource: %v, want -32002", err)
	}
}

func TestPrompts(t *testing.T) {
	server, _ := connect(t, newTestClient(), bothCaps)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	list, err := server.ListPrompts(ctx, &mcp.PaginatedRequestParams{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range list.Prompts {
		if p.Description == "" {
			t.Errorf("prompt %s has no description", p.Name)
		}
		names = append(names, p.Name)
	}
	if want := []string{"test_simple_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource", "test_prompt_with_image"}; !slices.Equal(names, want) {
		t.Errorf("prompts/list: %v, want %v", names, want)
	}
	for _, tc := range []struct {
		name string
		args map[string]string
		want string
	}{
		{"test_simple_prompt", nil, `[{"content":{"text":"This is a simple prompt for testing.","type":"text"},"role":"user"}]`},
		{"test_prompt_with_arguments", map[string]string{"arg1": "testValue1", "arg2": "testValue2"},
			`[{"content":{"text":"Prompt with arguments: arg1='testValue1', arg2='testValue2'","type":"text"},"role":"user"}]`},
		{"test_prompt_with_embedded_resource", map[string]string{"resourceUri": "test://example-resource"},
			`[{"content":{"resource":{"mimeType":"text/plain","text":"Embedded resource content for testing.","uri":"test://example-resource"},"type":"resource"},"role":"user"},` +
				`{"content":{"text":"Please process the embedded resource above.","type":"text"},"role":"user"}]`},
		{"test_prompt_with_image", nil, `[{"content":{"data":"` + redPixelPNG + `","mimeType":"image/png","type":"image"},"role":"user"},` +
			`{"content":{"text":"Please analyze the image above.","type":"text"},"role":"user"}]`},
	} {
		res, err := server.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: tc.name, Arguments: tc.args})
		if err != nil {
			t.Errorf("prompts/get %s: %v", tc.name, err)
			continue
		}
		if got, _ := json.Marshal(path(generic(t, res), "messages")); string(got) != tc.want {
			t.Errorf("prompts/get %s:\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name string
		args map[string]string
	}{
		{"no_such_prompt", nil},
		{"test_prompt_with_arguments", map[string]string{"arg1": "only one"}},
		{"test_prompt_with_embedded_resource", nil},
	} {
		if _, err := server.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: tc.name, Arguments: tc.args}); rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("prompts/get %s %v: %v, want -32602", tc.name, tc.args, err)
		}
	}
}

// Completion covers every argument of every prompt listed, and the
// template's id.
func TestComplete(t *testing.T) {
	server, _ := connect(t, newTestClient(), bothCaps)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	prompt := func(name string) mcp.CompletionReference {
		return mcp.NewCompletionReference(mcp.PromptReference{Name: name})
	}
	template := mcp.NewCompletionReference(mcp.ResourceTemplateReference{URI: templateURI})
	for _, tc := range []struct {
		ref        mcp.CompletionReference
		arg, value string
		want       string
	}{
		{prompt("test_prompt_with_arguments"), "arg1", "par", "paris park party"},
		{prompt("test_prompt_with_arguments"), "arg1", "TEST", "test testValue1"},
		{prompt("test_prompt_with_arguments"), "arg2", "", "testValue2 world"},
		{prompt("test_prompt_with_embedded_resource"), "resourceUri", "test://static-", "test://static-text test://static-binary"},
		{prompt("test_simple_prompt"), "anything", "", ""},
		{template, "id", "1", "1 123"},
	} {
		res, err := server.Complete(ctx, &mcp.CompleteRequestParams{Ref: tc.ref, Argument: mcp.CompletionArgument{Name: tc.arg, Value: tc.value}})
		if err != nil {
			t.Errorf("completion/complete %s %q: %v", tc.arg, tc.value, err)
			continue
		}
		if got := strings.Join(res.Completion.Values, " "); got != tc.want || res.Completion.Total == nil || *res.Completion.Total != int64(len(res.Completion.Values)) {
			t.Errorf("completion/complete %s %q: %q (total %v), want %q", tc.arg, tc.value, got, res.Completion.Total, tc.want)
		}
	}
	for _, ref := range []mcp.CompletionReference{prompt("no_such_prompt"), mcp.NewCompletionReference(mcp.ResourceTemplateReference{URI: "test://other/{x}"})} {
		if _, err := server.Complete(ctx, &mcp.CompleteRequestParams{Ref: ref, Argument: mcp.CompletionArgument{Name: "a"}}); rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("completing for an unknown reference: %v, want -32602", err)
		}
	}
	// Every argument of every prompt has suggestions.
	for _, p := range prompts {
		for _, a := range p.Arguments {
			if len(completions[p.Name][a.Name]) == 0 {
				t.Errorf("no completions for argument %s of prompt %s", a.Name, p.Name)
			}
		}
	}
}
