//lint:file-ignore SA1019 Sampling, roots and logging are deprecated from revision 2026-07-28 only; these tests speak 2025-11-25, where they are current.

package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// ourServer is a small MCP server built on the generated package.
type ourServer struct {
	mcp.UnimplementedServer

	initialized chan struct{}
	cancelled   chan error  // the slow tool's context ended, with its cause
	subscribed  chan string // resources/subscribe and unsubscribe, as "+uri" and "-uri"

	mu     sync.Mutex
	params *mcp.InitializeRequestParams
	level  mcp.LoggingLevel
}

func newOurServer() *ourServer {
	return &ourServer{initialized: make(chan struct{}, 1), cancelled: make(chan error, 1), subscribed: make(chan string, 2)}
}

func (s *ourServer) Initialize(_ context.Context, p *mcp.InitializeRequestParams) (*mcp.InitializeResult, error) {
	s.mu.Lock()
	s.params = p
	s.mu.Unlock()
	version := "2025-11-25"
	if slices.Contains([]string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}, p.ProtocolVersion) {
		version = p.ProtocolVersion
	}
	yes := true
	return &mcp.InitializeResult{
		ProtocolVersion: version,
		Capabilities: mcp.ServerCapabilities{
			Logging:     &mcp.Capability{},
			Prompts:     &mcp.ListChangedCapability{},
			Resources:   &mcp.ResourcesCapability{Subscribe: yes},
			Completions: &mcp.Capability{},
			Tools:       &mcp.ListChangedCapability{ListChanged: yes},
		},
		ServerInfo:   mcp.Implementation{Name: "rpcgen-interop-server", Version: "0.1.0"},
		Instructions: "Call echo.",
	}, nil
}

func (s *ourServer) Initialized(context.Context, *mcp.NotificationParams) error {
	s.initialized <- struct{}{}
	return nil
}

func (s *ourServer) Ping(context.Context, *mcp.RequestParams) (*mcp.EmptyResult, error) {
	return &mcp.EmptyResult{}, nil
}

func (s *ourServer) SetLevel(_ context.Context, p *mcp.SetLevelRequestParams) (*mcp.EmptyResult, error) {
	s.mu.Lock()
	s.level = p.Level
	s.mu.Unlock()
	return &mcp.EmptyResult{}, nil
}

func object(props string, required ...string) mcp.ToolSchema {
	var p map[string]mcp.PropertySchema
	if err := json.Unmarshal([]byte(props), &p); err != nil {
		panic(err)
	}
	return mcp.ToolSchema{Type: "object", Properties: p, Required: required}
}

func (s *ourServer) ListTools(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	return &mcp.ListToolsResult{Tools: []mcp.Tool{
		{Name: "echo", Description: "Returns its text.", InputSchema: object(`{"text":{"type":"string"}}`, "text")},
		{Name: "add", Description: "Adds two numbers.", InputSchema: object(`{"a":{"type":"number"},"b":{"type":"number"}}`, "a", "b"),
			OutputSchema: ptr.To(object(`{"sum":{"type":"number"}}`, "sum"))},
		{Name: "slow", Description: "Reports progress every 20 ms until done or cancelled.", InputSchema: object(`{"steps":{"type":"integer"}}`, "steps")},
		{Name: "log", Description: "Sends a log message.", InputSchema: object(`{"message":{"type":"string"}}`, "message")},
		{Name: "roots", Description: "Lists the client's roots.", InputSchema: object(`{}`)},
		{Name: "sample", Description: "Asks the client's model.", InputSchema: object(`{"prompt":{"type":"string"}}`, "prompt")},
		{Name: "ping_client", Description: "Pings the client.", InputSchema: object(`{}`)},
		{Name: "touch", Description: "Announces a change of the greeting and of the tools.", InputSchema: object(`{}`)},
	}}, nil
}

func text(format string, args ...any) *mcp.CallToolResponse {
	return ptr.To(mcp.NewCallToolResponse(mcp.CallToolResult{
		Content: []mcp.ContentBlock{mcp.NewContentBlock(mcp.TextContent{Type: "text", Text: fmt.Sprintf(format, args...)})},
	}))
}

func (s *ourServer) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResponse, error) {
	client := mcp.NewClientRemote(jsonrpc.ConnFromContext(ctx))
	var args map[string]json.RawMessage
	if err := p.DecodeArguments(&args); err != nil {
		return nil, err
	}
	arg := func(name string, v any) error {
		raw, ok := args[name]
		if !ok {
			return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "missing argument "+name, nil)
		}
		return json.Unmarshal(raw, v)
	}
	switch p.Name {
	case "echo":
		var t string
		if err := arg("text", &t); err != nil {
			return nil, err
		}
		return text("%s", t), nil
	case "add":
		var a, b float64
		if err := errors.Join(arg("a", &a), arg("b", &b)); err != nil {
			return nil, err
		}
		r := text("%g", a+b)
		if err := r.CallToolResult.SetStructuredContent(map[string]float64{"sum": a + b}); err != nil {
			return nil, err
		}
		return r, nil
	case "slow":
		var steps int
		if err := arg("steps", &steps); err != nil {
			return nil, err
		}
		total := float64(steps)
		for i := 1; i <= steps; i++ {
			select {
			case <-time.After(20 * time.Millisecond):
			case <-ctx.Done():
				s.cancelled <- context.Cause(ctx)
				return nil, ctx.Err()
			}
			if p.Meta != nil && !p.Meta.ProgressToken.IsZero() {
				msg := fmt.Sprintf("step %d", i)
				if err := client.Progress(ctx, &mcp.ProgressNotificationParams{ProgressToken: p.Meta.ProgressToken, Progress: float64(i), Total: &total, Message: msg}); err != nil {
					return nil, err
				}
			}
		}
		return text("done after %d steps", steps), nil
	case "log":
		var m string
		if err := arg("message", &m); err != nil {
			return nil, err
		}
		data, _ := json.Marshal(m)
		if err := client.LoggingMessage(ctx, &mcp.LoggingMessageNotificationParams{Level: mcp.LoggingLevelWarning, Logger: "interop", Data: data}); err != nil {
			return nil, err
		}
		return text("logged"), nil
	case "roots":
		res, err := client.ListRoots(ctx, &mcp.RequestParams{})
		if err != nil {
			return nil, err
		}
		var uris []string
		for _, r := range res.Roots {
			uris = append(uris, r.URI)
		}
		return text("%s", strings.Join(uris, " ")), nil
	case "sample":
		var prompt string
		if err := arg("prompt", &prompt); err != nil {
			return nil, err
		}
		res, err := client.CreateMessage(ctx, &mcp.CreateMessageRequestParams{
			MaxTokens: 50,
			Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewSamplingContent(
				mcp.NewSamplingMessageContentBlock(mcp.TextContent{Type: "text", Text: prompt}))}},
		})
		if err != nil {
			return nil, err
		}
		if res.CreateMessageResult == nil {
			return nil, fmt.Errorf("sampling answered with a task")
		}
		c := res.CreateMessageResult.Content.SamplingMessageContentBlock
		if c == nil || c.Text == nil {
			return nil, fmt.Errorf("sampling answered without one text block")
		}
		return text("%s said %s", res.CreateMessageResult.Model, c.Text.Text), nil
	case "touch":
		if err := client.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: greetingURI}); err != nil {
			return nil, err
		}
		if err := client.ToolListChanged(ctx, &mcp.NotificationParams{}); err != nil {
			return nil, err
		}
		return text("touched"), nil
	case "ping_client":
		if _, err := client.Ping(ctx, &mcp.RequestParams{}); err != nil {
			return nil, err
		}
		return text("pong"), nil
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unknown tool: "+p.Name, nil)
}

const greetingURI = "mem://greeting"

func (s *ourServer) ListResources(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListResourcesResult, error) {
	return &mcp.ListResourcesResult{Resources: []mcp.Resource{{Name: "greeting", URI: greetingURI, MimeType: "text/plain"}}}, nil
}

func (s *ourServer) ReadResource(_ context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
	if p.URI != greetingURI {
		return nil, mcp.NewResourceNotFoundError(nil)
	}
	return &mcp.ReadResourceResult{Contents: []mcp.ResourceContentsUnion{mcp.NewResourceContentsUnion(
		mcp.TextResourceContents{URI: greetingURI, MimeType: "text/plain", Text: "héllo, wörld ✓"})}}, nil
}

func (s *ourServer) ListPrompts(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListPromptsResult, error) {
	return &mcp.ListPromptsResult{Prompts: []mcp.Prompt{{Name: "greet", Description: "Greets someone.",
		Arguments: []mcp.PromptArgument{{Name: "name", Required: true}}}}}, nil
}

func (s *ourServer) GetPrompt(_ context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
	if p.Name != "greet" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unknown prompt: "+p.Name, nil)
	}
	return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser,
		Content: mcp.NewContentBlock(mcp.TextContent{Type: "text", Text: "Say hello to " + p.Arguments["name"]})}}}, nil
}

func (s *ourServer) Subscribe(_ context.Context, p *mcp.SubscribeRequestParams) (*mcp.EmptyResult, error) {
	s.subscribed <- "+" + p.URI
	return &mcp.EmptyResult{}, nil
}

func (s *ourServer) Unsubscribe(_ context.Context, p *mcp.UnsubscribeRequestParams) (*mcp.EmptyResult, error) {
	s.subscribed <- "-" + p.URI
	return &mcp.EmptyResult{}, nil
}

// ListResourceTemplates pages five templates two at a time; the cursor is
// the index of the next one.
func (s *ourServer) ListResourceTemplates(_ context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListResourceTemplatesResult, error) {
	start := 0
	if p.Cursor != "" {
		if _, err := fmt.Sscanf(string(p.Cursor), "at-%d", &start); err != nil || start < 0 || start > 5 {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid cursor", nil)
		}
	}
	res := &mcp.ListResourceTemplatesResult{ResourceTemplates: []mcp.ResourceTemplate{}}
	for i := start; i < min(start+2, 5); i++ {
		res.ResourceTemplates = append(res.ResourceTemplates, mcp.ResourceTemplate{Name: fmt.Sprintf("t%d", i), URITemplate: fmt.Sprintf("mem://t%d/{x}", i)})
	}
	if start+2 < 5 {
		res.NextCursor = mcp.Cursor(fmt.Sprintf("at-%d", start+2))
	}
	return res, nil
}

func (s *ourServer) Complete(_ context.Context, p *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) {
	if p.Ref.RefPrompt == nil || p.Ref.RefPrompt.Name != "greet" || p.Argument.Name != "name" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "nothing to complete", nil)
	}
	var values []string
	for _, v := range []string{"Zoë", "Zed", "Ada"} {
		if strings.HasPrefix(v, p.Argument.Value) {
			values = append(values, v)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.Completion{Values: values, Total: ptr.To(int64(len(values))), HasMore: false}}, nil
}

// wireError returns the JSON-RPC error inside err, as the SDK reports it.
func wireError(err error) (*sdkjsonrpc.Error, bool) {
	var we *sdkjsonrpc.Error
	ok := errors.As(err, &we)
	return we, ok
}

// sdkClient is the SDK client of one session and what its handlers saw.
type sdkClient struct {
	session  *sdk.ClientSession
	progress chan *sdk.ProgressNotificationParams
	logs     chan *sdk.LoggingMessageParams
	sampled  chan *sdk.CreateMessageParams
	updated  chan string
	changed  chan struct{}
}

// connectSDKClient runs srv on our side of a pair of pipes and connects the
// SDK's client to it.
func connectSDKClient(t *testing.T, tr *transcript, srv mcp.Server, opts *sdk.ClientSessionOptions) (*sdkClient, *jsonrpc.Conn) {
	t.Helper()
	ours, theirs := pipes(tr)
	conn, _ := mcp.ConnectServer(ours, srv, jsonrpc.Options{})
	c, client := newSDKClient()
	tr.setStep("connect (SDK client: server/discover, then initialize)")
	session, err := client.Connect(bounded(t), theirs, opts)
	if err != nil {
		conn.Close()
		t.Fatalf("step %q: the SDK client could not connect to our server: %v", tr.current(), err)
	}
	c.session = session
	t.Cleanup(func() {
		tr.setStep("close")
		if err := session.Close(); err != nil {
			t.Errorf("step %q: closing the SDK session: %v", tr.current(), err)
		}
		done := make(chan error, 1)
		go func() { done <- conn.Wait() }()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, jsonrpc.ErrPeerClosed) && !errors.Is(err, jsonrpc.ErrClosed) {
				t.Errorf("step %q: our server's connection ended with %v", tr.current(), err)
			}
		case <-time.After(wait):
			t.Errorf("step %q: our server's connection did not end within %s of the SDK closing", tr.current(), wait)
		}
		conn.Close()
	})
	return c, conn
}

// newSDKClient returns the SDK's client of the tests, with handlers that
// record what they get in c, and two roots.
func newSDKClient() (*sdkClient, *sdk.Client) {
	c := &sdkClient{
		progress: make(chan *sdk.ProgressNotificationParams, 100),
		logs:     make(chan *sdk.LoggingMessageParams, 10),
		sampled:  make(chan *sdk.CreateMessageParams, 1),
		updated:  make(chan string, 1),
		changed:  make(chan struct{}, 1),
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "go-sdk-client", Version: "1.0.0"}, &sdk.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			c.sampled <- req.Params
			return &sdk.CreateMessageResult{Model: "stub-model", Role: "assistant", Content: &sdk.TextContent{Text: "bonjour ☀"}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			c.progress <- req.Params
		},
		LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
			c.logs <- req.Params
		},
		ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
			c.updated <- req.Params.URI
		},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			c.changed <- struct{}{}
		},
	})
	client.AddRoots(&sdk.Root{URI: "file:///work/project", Name: "project"}, &sdk.Root{URI: "file:///tmp/scratch"})
	return c, client
}

// textOf returns the text of a result holding exactly one text block.
func textOf(t *testing.T, tr *transcript, res *sdk.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("step %q: want one content block, got %d", tr.current(), len(res.Content))
	}
	tc, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("step %q: want text content, got %T", tr.current(), res.Content[0])
	}
	return tc.Text
}

// TestSDKClientAgainstOurServer drives a server built on our generated
// package with the official Go SDK's client.
func TestSDKClientAgainstOurServer(t *testing.T) {
	tr := exchange(t, "MCP Go SDK client (github.com/modelcontextprotocol/go-sdk "+sdkVersion+")")
	srv := newOurServer()
	c, _ := connectSDKClient(t, tr, srv, nil)
	ctx := bounded(t)
	cs := c.session

	tr.setStep("negotiation")
	init := cs.InitializeResult()
	if init.ProtocolVersion != "2025-11-25" {
		t.Errorf("step %q: negotiated revision %q, want 2025-11-25", tr.current(), init.ProtocolVersion)
	}
	if init.ServerInfo == nil || init.ServerInfo.Name != "rpcgen-interop-server" || init.Instructions != "Call echo." {
		t.Errorf("step %q: initialize result %+v", tr.current(), init)
	}
	if init.Capabilities.Tools == nil || !init.Capabilities.Tools.ListChanged || init.Capabilities.Resources == nil || init.Capabilities.Prompts == nil || init.Capabilities.Logging == nil {
		t.Errorf("step %q: server capabilities %+v", tr.current(), init.Capabilities)
	}
	receive(t, tr, srv.initialized, "notifications/initialized at our server")
	srv.mu.Lock()
	p := srv.params
	srv.mu.Unlock()
	if p.ClientInfo.Name != "go-sdk-client" || p.ProtocolVersion != "2025-11-25" {
		t.Errorf("step %q: our server got clientInfo %+v, revision %q", tr.current(), p.ClientInfo, p.ProtocolVersion)
	}
	if p.Capabilities.Roots == nil || !p.Capabilities.Roots.ListChanged || p.Capabilities.Sampling == nil {
		t.Errorf("step %q: our server got client capabilities %+v", tr.current(), p.Capabilities)
	}
	// SDK 1.8 probes with server/discover (SEP-2575, revision 2026-07-28)
	// before initialize; ours must refuse it with -32601 for the fallback.
	fromSDKBytes, fromOursBytes := tr.sent(fromSDK), tr.sent(fromOurs)
	if !strings.Contains(fromSDKBytes, `"method":"server/discover"`) || !strings.Contains(fromOursBytes, `"code":-32601`) {
		t.Errorf("step %q: expected server/discover answered with -32601 before initialize", tr.current())
	}

	tr.setStep("ping")
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}

	tr.setStep("tools/list")
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if want := []string{"echo", "add", "slow", "log", "roots", "sample", "ping_client", "touch"}; !slices.Equal(names, want) {
		t.Errorf("step %q: tools %v, want %v", tr.current(), names, want)
	}

	tr.setStep("tools/call echo, non-ASCII")
	const hello = "héllo 世界 🌍 \"quoted\"\nnext line"
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": hello}})
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if got := textOf(t, tr, res); got != hello || res.IsError {
		t.Errorf("step %q: echo returned %q (isError %v), want %q", tr.current(), got, res.IsError, hello)
	}

	tr.setStep("tools/call add, structured content")
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 3.5}})
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if got := textOf(t, tr, res); got != "5.5" {
		t.Errorf("step %q: add returned %q, want 5.5", tr.current(), got)
	}
	if sc, _ := json.Marshal(res.StructuredContent); string(sc) != `{"sum":5.5}` {
		t.Errorf("step %q: structured content %s, want {\"sum\":5.5}", tr.current(), sc)
	}

	tr.setStep("tools/call of an unknown tool")
	_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "nope", Arguments: map[string]any{}})
	if we, ok := wireError(err); !ok || we.Code != -32602 || !strings.Contains(we.Message, "nope") {
		t.Errorf("step %q: got %v, want a -32602 error naming the tool", tr.current(), err)
	}

	tr.setStep("resources/list")
	resources, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if len(resources.Resources) != 1 || resources.Resources[0].URI != greetingURI || resources.Resources[0].MIMEType != "text/plain" {
		t.Errorf("step %q: resources %+v", tr.current(), resources.Resources)
	}

	tr.setStep("resources/read")
	read, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: greetingURI})
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if len(read.Contents) != 1 || read.Contents[0].Text != "héllo, wörld ✓" || read.Contents[0].URI != greetingURI {
		t.Errorf("step %q: contents %+v", tr.current(), read.Contents)
	}

	tr.setStep("resources/read of an unknown resource")
	_, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "mem://missing"})
	if we, ok := wireError(err); !ok || we.Code != mcp.CodeResourceNotFound {
		t.Errorf("step %q: got %v, want error %d", tr.current(), err, mcp.CodeResourceNotFound)
	}

	tr.setStep("prompts/list")
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != "greet" || len(prompts.Prompts[0].Arguments) != 1 || !prompts.Prompts[0].Arguments[0].Required {
		t.Errorf("step %q: prompts %+v", tr.current(), prompts.Prompts)
	}

	tr.setStep("prompts/get")
	prompt, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Zoë"}})
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if len(prompt.Messages) != 1 || prompt.Messages[0].Role != "user" {
		t.Fatalf("step %q: messages %+v", tr.current(), prompt.Messages)
	}
	if tc, ok := prompt.Messages[0].Content.(*sdk.TextContent); !ok || tc.Text != "Say hello to Zoë" {
		t.Errorf("step %q: message content %#v", tr.current(), prompt.Messages[0].Content)
	}

	tr.setStep("logging/setLevel and notifications/message")
	if err := cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	srv.mu.Lock()
	level := srv.level
	srv.mu.Unlock()
	if level != mcp.LoggingLevelDebug {
		t.Errorf("step %q: our server has level %q, want debug", tr.current(), level)
	}
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "log", Arguments: map[string]any{"message": "disk ½ full"}}); err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if m := receive(t, tr, c.logs, "notifications/message at the SDK client"); m.Level != "warning" || m.Logger != "interop" || m.Data != "disk ½ full" {
		t.Errorf("step %q: log message %+v", tr.current(), m)
	}

	tr.setStep("progress")
	slow := &sdk.CallToolParams{Name: "slow", Arguments: map[string]any{"steps": 3}}
	slow.SetProgressToken("tok-1")
	res, err = cs.CallTool(ctx, slow)
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if got := textOf(t, tr, res); got != "done after 3 steps" {
		t.Errorf("step %q: slow returned %q", tr.current(), got)
	}
	for i := 1; i <= 3; i++ {
		pr := receive(t, tr, c.progress, "notifications/progress at the SDK client")
		if pr.ProgressToken != "tok-1" || pr.Progress != float64(i) || pr.Total != 3 || pr.Message != fmt.Sprintf("step %d", i) {
			t.Errorf("step %q: progress %d is %+v", tr.current(), i, pr)
		}
	}

	tr.setStep("cancellation of a long tool call")
	callCtx, cancel := context.WithCancel(ctx)
	long := &sdk.CallToolParams{Name: "slow", Arguments: map[string]any{"steps": 1000}}
	long.SetProgressToken(int64(7))
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, long)
		errc <- err
	}()
	receive(t, tr, c.progress, "the first progress of the long call")
	cancel()
	if err := receive(t, tr, errc, "the cancelled call to return"); !errors.Is(err, context.Canceled) {
		t.Errorf("step %q: the SDK's cancelled call returned %v, want context.Canceled", tr.current(), err)
	}
	receive(t, tr, srv.cancelled, "our server's tool context to end after notifications/cancelled")
	longID := requestID(t, tr, fromSDK, func(m message) bool {
		return m.Method == "tools/call" && strings.Contains(string(m.Params), `"steps":1000`)
	})
	if n := find(t, tr, fromSDK, func(m message) bool { return m.Method == "notifications/cancelled" }); len(n) != 1 {
		t.Errorf("step %q: the SDK sent %d notifications/cancelled, want 1", tr.current(), len(n))
	} else if got := gjson(t, n[0].Params, "requestId"); got != longID {
		t.Errorf("step %q: notifications/cancelled names request %s, want %s", tr.current(), got, longID)
	}

	tr.setStep("20 concurrent tools/call")
	var wg sync.WaitGroup
	concurrent := make([]string, 20)
	for i := range concurrent {
		wg.Go(func() {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": fmt.Sprintf("call %d ✓", i)}})
			switch {
			case err != nil:
				concurrent[i] = err.Error()
			case len(res.Content) != 1:
				concurrent[i] = "not one content block"
			default:
				if tc, ok := res.Content[0].(*sdk.TextContent); ok {
					concurrent[i] = tc.Text
				}
			}
		})
	}
	wg.Wait()
	for i, got := range concurrent {
		if want := fmt.Sprintf("call %d ✓", i); got != want {
			t.Errorf("step %q: call %d returned %q, want %q", tr.current(), i, got, want)
		}
	}

	tr.setStep("server-to-client roots/list answered by the SDK client")
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "roots", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	// The SDK client lists its roots sorted by URI, not in the order added.
	if got := strings.Fields(textOf(t, tr, res)); !slices.Equal(slices.Sorted(slices.Values(got)), []string{"file:///tmp/scratch", "file:///work/project"}) {
		t.Errorf("step %q: roots tool returned %q", tr.current(), got)
	}

	tr.setStep("server-to-client sampling/createMessage answered by the SDK client")
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "sample", Arguments: map[string]any{"prompt": "say hi"}})
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if got := textOf(t, tr, res); got != "stub-model said bonjour ☀" {
		t.Errorf("step %q: sample tool returned %q", tr.current(), got)
	}
	sp := receive(t, tr, c.sampled, "the sampling request at the SDK client")
	if sp.MaxTokens != 50 || len(sp.Messages) != 1 || sp.Messages[0].Role != "user" {
		t.Errorf("step %q: the SDK got sampling params %+v", tr.current(), sp)
	} else if tc, ok := sp.Messages[0].Content.(*sdk.TextContent); !ok || tc.Text != "say hi" {
		t.Errorf("step %q: the SDK got sampling content %#v", tr.current(), sp.Messages[0].Content)
	}

	tr.setStep("server-to-client ping answered by the SDK client")
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "ping_client", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if got := textOf(t, tr, res); got != "pong" {
		t.Errorf("step %q: ping_client returned %q", tr.current(), got)
	}

	// Many round trips after the cancellation, our server must still not
	// have answered the cancelled request: the receiver of
	// notifications/cancelled sends no response.
	tr.setStep("no response to the cancelled request")
	if r := find(t, tr, fromOurs, func(m message) bool { return m.Method == "" && string(m.ID) == longID }); len(r) != 0 {
		t.Errorf("step %q: our server answered the cancelled request %s", tr.current(), longID)
	}
}

// TestSDKClientNegotiation has the SDK client ask our server for each
// revision both speak; asking for one before 2026-07-28 skips
// server/discover.
func TestSDKClientNegotiation(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"} {
		t.Run(version, func(t *testing.T) {
			tr := exchange(t, "MCP Go SDK client (github.com/modelcontextprotocol/go-sdk "+sdkVersion+")")
			srv := newOurServer()
			c, _ := connectSDKClient(t, tr, srv, &sdk.ClientSessionOptions{ProtocolVersion: version})
			tr.setStep("negotiation of " + version)
			if got := c.session.InitializeResult().ProtocolVersion; got != version {
				t.Errorf("step %q: negotiated %q, want %q", tr.current(), got, version)
			}
			receive(t, tr, srv.initialized, "notifications/initialized at our server")
			if n := find(t, tr, fromSDK, func(m message) bool { return m.Method == "server/discover" }); len(n) != 0 {
				t.Errorf("step %q: the SDK sent server/discover although it asked for %s", tr.current(), version)
			}
			tr.setStep("tools/call echo on " + version)
			res, err := c.session.CallTool(bounded(t), &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": version}})
			if err != nil {
				t.Fatalf("step %q: %v", tr.current(), err)
			}
			if got := textOf(t, tr, res); got != version {
				t.Errorf("step %q: echo returned %q", tr.current(), got)
			}
		})
	}
}

// TestSDKClientSubscriptionsPagesCompletion has the SDK client subscribe,
// follow our cursors and ask for completions, and checks the
// notifications our server sends it.
func TestSDKClientSubscriptionsPagesCompletion(t *testing.T) {
	tr := exchange(t, "MCP Go SDK client (github.com/modelcontextprotocol/go-sdk "+sdkVersion+")")
	srv := newOurServer()
	c, _ := connectSDKClient(t, tr, srv, nil)
	cs := c.session
	ctx := bounded(t)
	receive(t, tr, srv.initialized, "notifications/initialized at our server")

	tr.setStep("resources/subscribe")
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: greetingURI}); err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if got := receive(t, tr, srv.subscribed, "the subscription at our server"); got != "+"+greetingURI {
		t.Errorf("step %q: our server got %q", tr.current(), got)
	}

	tr.setStep("notifications/resources/updated and notifications/tools/list_changed")
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "touch", Arguments: map[string]any{}}); err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if got := receive(t, tr, c.updated, "notifications/resources/updated at the SDK client"); got != greetingURI {
		t.Errorf("step %q: the SDK got an update of %q", tr.current(), got)
	}
	receive(t, tr, c.changed, "notifications/tools/list_changed at the SDK client")

	tr.setStep("resources/unsubscribe")
	if err := cs.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: greetingURI}); err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if got := receive(t, tr, srv.subscribed, "the unsubscription at our server"); got != "-"+greetingURI {
		t.Errorf("step %q: our server got %q", tr.current(), got)
	}

	tr.setStep("resources/templates/list over three pages")
	var templates []string
	for rt, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatalf("step %q: %v", tr.current(), err)
		}
		templates = append(templates, rt.Name+"="+rt.URITemplate)
	}
	want := []string{"t0=mem://t0/{x}", "t1=mem://t1/{x}", "t2=mem://t2/{x}", "t3=mem://t3/{x}", "t4=mem://t4/{x}"}
	if !slices.Equal(templates, want) {
		t.Errorf("step %q: templates %v, want %v", tr.current(), templates, want)
	}
	var cursors []string
	for _, m := range find(t, tr, fromSDK, func(m message) bool { return m.Method == "resources/templates/list" }) {
		cursors = append(cursors, gjson(t, m.Params, "cursor"))
	}
	if !slices.Equal(cursors, []string{"", `"at-2"`, `"at-4"`}) {
		t.Errorf("step %q: the SDK sent cursors %q, want none, at-2, at-4", tr.current(), cursors)
	}

	tr.setStep("completion/complete")
	res, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/prompt", Name: "greet"},
		Argument: sdk.CompleteParamsArgument{Name: "name", Value: "Z"}})
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if !slices.Equal(res.Completion.Values, []string{"Zoë", "Zed"}) || res.Completion.Total != 2 || res.Completion.HasMore {
		t.Errorf("step %q: completion %+v", tr.current(), res.Completion)
	}
}
