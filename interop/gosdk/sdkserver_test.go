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

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// ourClient is the client side built on the generated package: it answers
// the SDK server's requests and records its notifications.
type ourClient struct {
	mcp.UnimplementedClient

	progress chan *mcp.ProgressNotificationParams
	logs     chan *mcp.LoggingMessageNotificationParams
	sampled  chan *mcp.CreateMessageRequestParams
	elicited chan *mcp.ElicitRequestParams
	pinged   chan struct{}
	updated  chan string
	changed  chan struct{}
}

func newOurClient() *ourClient {
	return &ourClient{
		progress: make(chan *mcp.ProgressNotificationParams, 100),
		logs:     make(chan *mcp.LoggingMessageNotificationParams, 10),
		sampled:  make(chan *mcp.CreateMessageRequestParams, 1),
		elicited: make(chan *mcp.ElicitRequestParams, 1),
		pinged:   make(chan struct{}, 1),
		updated:  make(chan string, 1),
		changed:  make(chan struct{}, 1),
	}
}

func (c *ourClient) Ping(context.Context, *mcp.RequestParams) (*mcp.EmptyResult, error) {
	c.pinged <- struct{}{}
	return &mcp.EmptyResult{}, nil
}

func (c *ourClient) Progress(_ context.Context, p *mcp.ProgressNotificationParams) error {
	c.progress <- p
	return nil
}

func (c *ourClient) LoggingMessage(_ context.Context, p *mcp.LoggingMessageNotificationParams) error {
	c.logs <- p
	return nil
}

func (c *ourClient) ResourceUpdated(_ context.Context, p *mcp.ResourceUpdatedNotificationParams) error {
	c.updated <- p.URI
	return nil
}

func (c *ourClient) ToolListChanged(context.Context, *mcp.NotificationParams) error {
	c.changed <- struct{}{}
	return nil
}

func (c *ourClient) ListRoots(context.Context, *mcp.RequestParams) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///home/zoë/project", Name: "project"}}}, nil
}

func (c *ourClient) CreateMessage(_ context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResponse, error) {
	c.sampled <- p
	return ptr.To(mcp.NewCreateMessageResponse(mcp.CreateMessageResult{
		Role: mcp.RoleAssistant, Model: "rpcgen-stub",
		Content:    mcp.NewSamplingContent(mcp.NewSamplingMessageContentBlock(mcp.TextContent{Type: "text", Text: "¡hola!"})),
		StopReason: "endTurn",
	})), nil
}

func (c *ourClient) Elicit(_ context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResponse, error) {
	c.elicited <- p
	return ptr.To(mcp.NewElicitResponse(mcp.ElicitResult{
		Action: mcp.ElicitActionAccept, Content: map[string]mcp.ElicitValue{"name": mcp.NewElicitValue("Zoë")},
	})), nil
}

// sdkServer is the SDK server of the tests and what it saw.
type sdkServer struct {
	server       *sdk.Server
	initialized  chan struct{}
	rootsChanged chan struct{}
	cancelled    chan error
	subscribed   chan string // resources/subscribe and unsubscribe, as "+uri" and "-uri"
}

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to return"`
}

type addIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type addOut struct {
	Sum float64 `json:"sum"`
}

func sdkResult(format string, args ...any) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

var emptyObject = map[string]any{"type": "object"}

// newSDKServer returns the SDK server of the tests; pageSize 0 is the SDK's
// default.
func newSDKServer(pageSize int) *sdkServer {
	s := &sdkServer{initialized: make(chan struct{}, 1), rootsChanged: make(chan struct{}, 1), cancelled: make(chan error, 1), subscribed: make(chan string, 2)}
	s.server = sdk.NewServer(&sdk.Implementation{Name: "go-sdk-server", Version: "2.0.0"}, &sdk.ServerOptions{
		Instructions: "Try echo.",
		PageSize:     pageSize,
		SubscribeHandler: func(_ context.Context, req *sdk.SubscribeRequest) error {
			s.subscribed <- "+" + req.Params.URI
			return nil
		},
		UnsubscribeHandler: func(_ context.Context, req *sdk.UnsubscribeRequest) error {
			s.subscribed <- "-" + req.Params.URI
			return nil
		},
		CompletionHandler: func(_ context.Context, req *sdk.CompleteRequest) (*sdk.CompleteResult, error) {
			var values []string
			for _, v := range []string{"Zoë", "Zed", "Ada"} {
				if strings.HasPrefix(v, req.Params.Argument.Value) {
					values = append(values, v)
				}
			}
			return &sdk.CompleteResult{Completion: sdk.CompletionResultDetails{Values: values, Total: len(values)}}, nil
		},
		InitializedHandler:      func(context.Context, *sdk.InitializedRequest) { s.initialized <- struct{}{} },
		RootsListChangedHandler: func(context.Context, *sdk.RootsListChangedRequest) { s.rootsChanged <- struct{}{} },
	})
	sdk.AddTool(s.server, &sdk.Tool{Name: "echo", Description: "Returns its text."},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return sdkResult("%s", in.Text), nil, nil
		})
	sdk.AddTool(s.server, &sdk.Tool{Name: "add", Description: "Adds two numbers."},
		func(_ context.Context, _ *sdk.CallToolRequest, in addIn) (*sdk.CallToolResult, addOut, error) {
			return nil, addOut{Sum: in.A + in.B}, nil
		})
	s.server.AddTool(&sdk.Tool{Name: "slow", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"steps": map[string]any{"type": "integer"}}}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct{ Steps int }
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			for i := 1; i <= in.Steps; i++ {
				select {
				case <-time.After(20 * time.Millisecond):
				case <-ctx.Done():
					s.cancelled <- ctx.Err()
					return nil, ctx.Err()
				}
				if token := req.Params.GetProgressToken(); token != nil {
					if err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: float64(in.Steps), Message: fmt.Sprintf("step %d", i)}); err != nil {
						return nil, err
					}
				}
			}
			return sdkResult("done after %d steps", in.Steps), nil
		})
	s.server.AddTool(&sdk.Tool{Name: "log", InputSchema: emptyObject},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			if err := req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "error", Logger: "sdk", Data: map[string]any{"msg": "ünïcode", "n": 1}}); err != nil {
				return nil, err
			}
			return sdkResult("logged"), nil
		})
	s.server.AddTool(&sdk.Tool{Name: "roots", InputSchema: emptyObject},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			res, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, err
			}
			var parts []string
			for _, r := range res.Roots {
				parts = append(parts, r.Name+"="+r.URI)
			}
			return sdkResult("%s", strings.Join(parts, " ")), nil
		})
	s.server.AddTool(&sdk.Tool{Name: "sample", InputSchema: emptyObject},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			res, err := req.Session.CreateMessage(ctx, &sdk.CreateMessageParams{MaxTokens: 20, SystemPrompt: "Be brief.",
				Messages: []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: "greet me"}}}})
			if err != nil {
				return nil, err
			}
			tc, ok := res.Content.(*sdk.TextContent)
			if !ok {
				return nil, fmt.Errorf("sampling content is %T", res.Content)
			}
			return sdkResult("%s/%s/%s: %s", res.Model, res.Role, res.StopReason, tc.Text), nil
		})
	s.server.AddTool(&sdk.Tool{Name: "ask", InputSchema: emptyObject},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}}})
			if err != nil {
				return nil, err
			}
			return sdkResult("%s %v", res.Action, res.Content["name"]), nil
		})
	s.server.AddTool(&sdk.Tool{Name: "ping_client", InputSchema: emptyObject},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			if err := req.Session.Ping(ctx, nil); err != nil {
				return nil, err
			}
			return sdkResult("pong"), nil
		})
	s.server.AddResource(&sdk.Resource{Name: "motd", URI: "mem://motd", MIMEType: "text/plain"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "Grüße ✓"}}}, nil
		})
	s.server.AddResource(&sdk.Resource{Name: "logo", URI: "mem://logo", MIMEType: "image/png"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: []byte{0x89, 'P', 'N', 'G', 0}}}}, nil
		})
	s.server.AddPrompt(&sdk.Prompt{Name: "greet", Description: "Greets someone.", Arguments: []*sdk.PromptArgument{{Name: "name", Required: true}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Hello, " + req.Params.Arguments["name"]}}}}, nil
		})
	return s
}

// connectOurClient serves s over one pair of pipes and connects our
// generated client to it; it returns our side's connection and the remote
// server. It does not initialize.
func connectOurClient(t *testing.T, tr *transcript, s *sdkServer, impl mcp.Client) (*jsonrpc.Conn, mcp.Server) {
	t.Helper()
	ours, theirs := pipes(tr)
	ss, err := s.server.Connect(bounded(t), theirs, nil)
	if err != nil {
		t.Fatalf("step %q: connecting the SDK server: %v", tr.current(), err)
	}
	conn, remote := mcp.ConnectClient(ours, impl, jsonrpc.Options{})
	t.Cleanup(func() {
		tr.setStep("close")
		conn.Close()
		done := make(chan error, 1)
		go func() { done <- ss.Wait() }()
		select {
		case <-done: // the SDK's session ends with whatever the stream reported
		case <-time.After(wait):
			t.Errorf("step %q: the SDK server's session did not end within %s of our client closing", tr.current(), wait)
		}
	})
	return conn, remote
}

func initParams(version string) *mcp.InitializeRequestParams {
	yes := true
	return &mcp.InitializeRequestParams{
		ProtocolVersion: version,
		Capabilities: mcp.ClientCapabilities{
			Roots:       &mcp.ListChangedCapability{ListChanged: yes},
			Sampling:    &mcp.SamplingCapability{},
			Elicitation: &mcp.ElicitationCapability{Form: &mcp.Capability{}},
		},
		ClientInfo: mcp.Implementation{Name: "rpcgen-interop-client", Version: "0.1.0"},
	}
}

// TestNegotiationWithSDKServer checks the revision the SDK server answers
// our client with.
func TestNegotiationWithSDKServer(t *testing.T) {
	for _, c := range []struct{ asked, want string }{
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26"},
		{"2024-11-05", "2024-11-05"},
		{"1999-01-01", "2025-11-25"}, // unknown: the SDK answers the newest revision initialize still speaks
	} {
		t.Run(c.asked, func(t *testing.T) {
			tr := exchange(t, "MCP Go SDK server (github.com/modelcontextprotocol/go-sdk "+sdkVersion+")")
			s := newSDKServer(0)
			_, remote := connectOurClient(t, tr, s, newOurClient())
			tr.setStep("initialize asking for " + c.asked)
			res, err := remote.Initialize(bounded(t), initParams(c.asked))
			if err != nil {
				t.Fatalf("step %q: %v", tr.current(), err)
			}
			if res.ProtocolVersion != c.want {
				t.Errorf("step %q: the SDK answered revision %q, want %q", tr.current(), res.ProtocolVersion, c.want)
			}
		})
	}
}

// TestOurClientAgainstSDKServer drives the official Go SDK's server with
// the client of our generated package.
func TestOurClientAgainstSDKServer(t *testing.T) {
	tr := exchange(t, "MCP Go SDK server (github.com/modelcontextprotocol/go-sdk "+sdkVersion+")")
	s := newSDKServer(0)
	client := newOurClient()
	_, remote := connectOurClient(t, tr, s, client)
	ctx := bounded(t)

	tr.setStep("initialize")
	init, err := remote.Initialize(ctx, initParams("2025-11-25"))
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if init.ProtocolVersion != "2025-11-25" || init.ServerInfo.Name != "go-sdk-server" || init.ServerInfo.Version != "2.0.0" ||
		init.Instructions != "Try echo." {
		t.Errorf("step %q: initialize result %+v", tr.current(), init)
	}
	caps := init.Capabilities
	if caps.Tools == nil || caps.Resources == nil || caps.Prompts == nil || caps.Logging == nil {
		t.Errorf("step %q: server capabilities %+v", tr.current(), caps)
	}
	tr.setStep("notifications/initialized")
	if err := remote.Initialized(ctx, &mcp.NotificationParams{}); err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	receive(t, tr, s.initialized, "the SDK server's initialized handler")

	tr.setStep("ping")
	if _, err := remote.Ping(ctx, &mcp.RequestParams{}); err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}

	tr.setStep("tools/list")
	tools, err := remote.ListTools(ctx, &mcp.PaginatedRequestParams{})
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	var names []string
	schemas := map[string]mcp.Tool{}
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		schemas[tool.Name] = tool
	}
	slices.Sort(names) // the SDK lists its tools sorted by name
	if want := []string{"add", "ask", "echo", "log", "ping_client", "roots", "sample", "slow"}; !slices.Equal(names, want) {
		t.Errorf("step %q: tools %v, want %v", tr.current(), names, want)
	}
	if echo := schemas["echo"]; echo.InputSchema.Type != "object" || propType(echo.InputSchema.Properties["text"]) != "string" || !slices.Contains(echo.InputSchema.Required, "text") {
		t.Errorf("step %q: echo's input schema as we decoded it: %+v", tr.current(), echo.InputSchema)
	}
	// Members our ToolSchema does not declare survive in Extra.
	if got, _ := schemas["echo"].InputSchema.Extra.Get("additionalProperties"); string(got) != "false" {
		t.Errorf("step %q: echo's additionalProperties as we decoded it: %q, want false", tr.current(), got)
	}
	if add := schemas["add"]; add.OutputSchema == nil || propType(add.OutputSchema.Properties["sum"]) != "number" {
		t.Errorf("step %q: add's output schema as we decoded it: %+v", tr.current(), add.OutputSchema)
	}

	call := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		p := &mcp.CallToolRequestParams{Name: name}
		if err := p.SetArguments(args); err != nil {
			t.Fatal(err)
		}
		res, err := remote.CallTool(ctx, p)
		if err != nil {
			t.Fatalf("step %q: tools/call %s: %v", tr.current(), name, err)
		}
		if res.CallToolResult == nil {
			t.Fatalf("step %q: tools/call %s answered with a task", tr.current(), name)
		}
		return res.CallToolResult
	}
	textOf := func(r *mcp.CallToolResult) string {
		t.Helper()
		if len(r.Content) != 1 || r.Content[0].Text == nil {
			b, _ := json.Marshal(r)
			t.Fatalf("step %q: want one text block, got %s", tr.current(), b)
		}
		return r.Content[0].Text.Text
	}

	tr.setStep("tools/call echo, non-ASCII")
	const hello = "héllo 世界 🌍 \"quoted\"\nnext line"
	if got := textOf(call("echo", map[string]any{"text": hello})); got != hello {
		t.Errorf("step %q: echo returned %q, want %q", tr.current(), got, hello)
	}

	tr.setStep("tools/call add, structured content")
	r := call("add", map[string]any{"a": 2, "b": 3.5})
	var structured struct{ Sum json.RawMessage }
	if err := r.DecodeStructuredContent(&structured); err != nil {
		t.Errorf("step %q: structured content: %v", tr.current(), err)
	}
	if sum := string(structured.Sum); sum != "5.5" {
		t.Errorf("step %q: structured sum %q, want 5.5", tr.current(), sum)
	}
	if got := textOf(r); got != `{"sum":5.5}` { // the SDK mirrors structured content as text
		t.Errorf("step %q: add's text %q", tr.current(), got)
	}

	tr.setStep("tools/call echo with invalid arguments")
	r = call("echo", map[string]any{"text": 42})
	if !r.IsError {
		t.Errorf("step %q: the SDK accepted a number for a string argument: %+v", tr.current(), r)
	}

	tr.setStep("tools/call of an unknown tool")
	_, err = remote.CallTool(ctx, &mcp.CallToolRequestParams{Name: "nope"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("step %q: got %v, want a -32602 error", tr.current(), err)
	}

	tr.setStep("resources/list")
	resources, err := remote.ListResources(ctx, &mcp.PaginatedRequestParams{})
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	var uris []string
	for _, res := range resources.Resources {
		uris = append(uris, res.URI)
	}
	slices.Sort(uris)
	if !slices.Equal(uris, []string{"mem://logo", "mem://motd"}) {
		t.Errorf("step %q: resources %v", tr.current(), uris)
	}

	tr.setStep("resources/read of a text resource")
	read, err := remote.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: "mem://motd"})
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if len(read.Contents) != 1 || read.Contents[0].TextResourceContents == nil || read.Contents[0].TextResourceContents.Text != "Grüße ✓" {
		t.Errorf("step %q: contents %+v", tr.current(), read.Contents)
	}

	tr.setStep("resources/read of a binary resource")
	read, err = remote.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: "mem://logo"})
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if len(read.Contents) != 1 || read.Contents[0].BlobResourceContents == nil || read.Contents[0].BlobResourceContents.Blob != "iVBORwA=" {
		t.Errorf("step %q: contents %+v", tr.current(), read.Contents)
	}

	tr.setStep("resources/read of an unknown resource")
	_, err = remote.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: "mem://missing"})
	// Since v1.7.0 the SDK answers -32602 (SEP-2164, after revision
	// 2025-11-25), not the -32002 our IDL documents; see README.md.
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || je.Message != "Resource not found" || string(je.Data) != `{"uri":"mem://missing"}` {
		t.Errorf("step %q: got %v, want -32602 Resource not found with data {\"uri\":\"mem://missing\"}", tr.current(), err)
	}

	tr.setStep("prompts/list")
	prompts, err := remote.ListPrompts(ctx, &mcp.PaginatedRequestParams{})
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != "greet" || len(prompts.Prompts[0].Arguments) != 1 ||
		!prompts.Prompts[0].Arguments[0].Required {
		t.Errorf("step %q: prompts %+v", tr.current(), prompts.Prompts)
	}

	tr.setStep("prompts/get")
	prompt, err := remote.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: "greet", Arguments: map[string]string{"name": "Zoë"}})
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if len(prompt.Messages) != 1 || prompt.Messages[0].Role != mcp.RoleUser || prompt.Messages[0].Content.Text == nil || prompt.Messages[0].Content.Text.Text != "Hello, Zoë" {
		t.Errorf("step %q: messages %+v", tr.current(), prompt.Messages)
	}

	// The SDK server sends no log messages until the client sets a level
	// (ServerSession.Log drops them); the notification would be written
	// before the tool's response, so the transcript is complete here.
	tr.setStep("no notifications/message before logging/setLevel")
	call("log", nil)
	if n := find(t, tr, fromSDK, func(m message) bool { return m.Method == "notifications/message" }); len(n) != 0 {
		t.Errorf("step %q: the SDK sent a log message before logging/setLevel; README.md says it does not", tr.current())
	}

	tr.setStep("logging/setLevel and notifications/message")
	if _, err := remote.SetLevel(ctx, &mcp.SetLevelRequestParams{Level: mcp.LoggingLevelInfo}); err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	call("log", nil)
	if m := receive(t, tr, client.logs, "notifications/message at our client"); m.Level != mcp.LoggingLevelError || m.Logger != "sdk" {
		t.Errorf("step %q: log message %+v", tr.current(), m)
	} else {
		var data map[string]any
		if err := json.Unmarshal(m.Data, &data); err != nil || data["msg"] != "ünïcode" || data["n"] != 1.0 {
			t.Errorf("step %q: log data %s", tr.current(), m.Data)
		}
	}

	tr.setStep("progress")
	token := mcp.NewProgressToken("p-1")
	res, err := remote.CallTool(ctx, &mcp.CallToolRequestParams{Meta: &mcp.RequestMeta{ProgressToken: token}, Name: "slow",
		Arguments: json.RawMessage(`{"steps":3}`)})
	if err != nil || res.CallToolResult == nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if got := textOf(res.CallToolResult); got != "done after 3 steps" {
		t.Errorf("step %q: slow returned %q", tr.current(), got)
	}
	for i := 1; i <= 3; i++ {
		p := receive(t, tr, client.progress, "notifications/progress at our client")
		if p.ProgressToken.String == nil || *p.ProgressToken.String != "p-1" || p.Progress != float64(i) ||
			p.Total == nil || *p.Total != 3 || p.Message != fmt.Sprintf("step %d", i) {
			b, _ := json.Marshal(p)
			t.Errorf("step %q: progress %d is %s", tr.current(), i, b)
		}
	}

	tr.setStep("cancellation of a long tool call")
	callCtx, cancel := context.WithCancel(ctx)
	token = mcp.NewProgressToken(int64(99))
	errc := make(chan error, 1)
	go func() {
		_, err := remote.CallTool(callCtx, &mcp.CallToolRequestParams{Meta: &mcp.RequestMeta{ProgressToken: token}, Name: "slow",
			Arguments: json.RawMessage(`{"steps":1000}`)})
		errc <- err
	}()
	receive(t, tr, client.progress, "the first progress of the long call")
	cancel()
	if err := receive(t, tr, errc, "the cancelled call to return"); !errors.Is(err, context.Canceled) {
		t.Errorf("step %q: our cancelled call returned %v, want context.Canceled", tr.current(), err)
	}
	receive(t, tr, s.cancelled, "the SDK tool's context to end after notifications/cancelled")
	longID := requestID(t, tr, fromOurs, func(m message) bool {
		return m.Method == "tools/call" && strings.Contains(string(m.Params), `"steps":1000`)
	})
	if n := find(t, tr, fromOurs, func(m message) bool { return m.Method == "notifications/cancelled" }); len(n) != 1 {
		t.Errorf("step %q: our client sent %d notifications/cancelled, want 1", tr.current(), len(n))
	} else if got := gjson(t, n[0].Params, "requestId"); got != longID {
		t.Errorf("step %q: notifications/cancelled names request %s, want %s", tr.current(), got, longID)
	}

	tr.setStep("20 concurrent tools/call")
	var wg sync.WaitGroup
	concurrent := make([]string, 20)
	for i := range concurrent {
		wg.Go(func() {
			res, err := remote.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo",
				Arguments: json.RawMessage(fmt.Sprintf(`{"text":"call %d ✓"}`, i))})
			switch {
			case err != nil:
				concurrent[i] = err.Error()
			case res.CallToolResult == nil || len(res.CallToolResult.Content) != 1 || res.CallToolResult.Content[0].Text == nil:
				concurrent[i] = "no text"
			default:
				concurrent[i] = res.CallToolResult.Content[0].Text.Text
			}
		})
	}
	wg.Wait()
	for i, got := range concurrent {
		if want := fmt.Sprintf("call %d ✓", i); got != want {
			t.Errorf("step %q: call %d returned %q, want %q", tr.current(), i, got, want)
		}
	}

	tr.setStep("server-to-client roots/list answered by our client")
	if got := textOf(call("roots", nil)); got != "project=file:///home/zoë/project" {
		t.Errorf("step %q: roots tool returned %q", tr.current(), got)
	}

	tr.setStep("server-to-client sampling/createMessage answered by our client")
	if got := textOf(call("sample", nil)); got != "rpcgen-stub/assistant/endTurn: ¡hola!" {
		t.Errorf("step %q: sample tool returned %q", tr.current(), got)
	}
	sp := receive(t, tr, client.sampled, "the sampling request at our client")
	if sp.MaxTokens != 20 || sp.SystemPrompt != "Be brief." || len(sp.Messages) != 1 ||
		sp.Messages[0].Content.SamplingMessageContentBlock == nil || sp.Messages[0].Content.SamplingMessageContentBlock.Text == nil ||
		sp.Messages[0].Content.SamplingMessageContentBlock.Text.Text != "greet me" {
		b, _ := json.Marshal(sp)
		t.Errorf("step %q: our client got sampling params %s", tr.current(), b)
	}

	tr.setStep("server-to-client elicitation/create answered by our client")
	if got := textOf(call("ask", nil)); got != "accept Zoë" {
		t.Errorf("step %q: ask tool returned %q", tr.current(), got)
	}
	ep := receive(t, tr, client.elicited, "the elicitation request at our client")
	if f := ep.ElicitRequestFormParams; f == nil || f.Message != "Your name?" || f.RequestedSchema.Properties["name"].StringSchema == nil {
		b, _ := json.Marshal(ep)
		t.Errorf("step %q: our client got elicitation params %s", tr.current(), b)
	}

	tr.setStep("server-to-client ping answered by our client")
	if got := textOf(call("ping_client", nil)); got != "pong" {
		t.Errorf("step %q: ping_client returned %q", tr.current(), got)
	}
	receive(t, tr, client.pinged, "the ping at our client")

	// The SDK server answers the cancelled call anyway (README.md); our
	// client dropped that late response and the calls above still worked.
	if late := find(t, tr, fromSDK, func(m message) bool { return m.Method == "" && string(m.ID) == longID }); len(late) > 0 {
		t.Logf("the SDK answered the cancelled request %s anyway: result %s, error %s", longID, late[0].Result, late[0].Error)
	}

	tr.setStep("notifications/roots/list_changed from our client")
	if err := remote.RootsListChanged(ctx, &mcp.NotificationParams{}); err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	receive(t, tr, s.rootsChanged, "the SDK server's roots-changed handler")
}

// TestOurClientSubscriptionsPagesCompletion has our client follow the SDK
// server's cursors, subscribe and ask for completions, and checks the
// notifications the SDK sends it.
// propType returns the type member of a property schema as we decoded it.
func propType(p mcp.PropertySchema) string {
	b, _ := json.Marshal(p)
	var s struct{ Type string }
	_ = json.Unmarshal(b, &s)
	return s.Type
}

func TestOurClientSubscriptionsPagesCompletion(t *testing.T) {
	tr := exchange(t, "MCP Go SDK server (github.com/modelcontextprotocol/go-sdk "+sdkVersion+")")
	s := newSDKServer(3)
	client := newOurClient()
	_, remote := connectOurClient(t, tr, s, client)
	ctx := bounded(t)

	tr.setStep("initialize")
	init, err := remote.Initialize(ctx, initParams("2025-11-25"))
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if r := init.Capabilities.Resources; r == nil || !r.Subscribe || init.Capabilities.Completions == nil {
		b, _ := json.Marshal(init.Capabilities)
		t.Errorf("step %q: capabilities %s lack resources.subscribe or completions", tr.current(), b)
	}
	if err := remote.Initialized(ctx, &mcp.NotificationParams{}); err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	receive(t, tr, s.initialized, "the SDK server's initialized handler")

	tr.setStep("tools/list over three pages of three")
	var names []string
	var cursor mcp.Cursor
	for page := 1; ; page++ {
		if page > 4 {
			t.Fatalf("step %q: more than 3 pages", tr.current())
		}
		res, err := remote.ListTools(ctx, &mcp.PaginatedRequestParams{Cursor: cursor})
		if err != nil {
			t.Fatalf("step %q: page %d: %v", tr.current(), page, err)
		}
		if len(res.Tools) > 3 {
			t.Errorf("step %q: page %d has %d tools, the page size is 3", tr.current(), page, len(res.Tools))
		}
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	if want := []string{"add", "ask", "echo", "log", "ping_client", "roots", "sample", "slow"}; !slices.Equal(names, want) {
		t.Errorf("step %q: tools %v, want %v", tr.current(), names, want)
	}
	if n := len(find(t, tr, fromOurs, func(m message) bool { return m.Method == "tools/list" })); n != 3 {
		t.Errorf("step %q: we sent %d tools/list, want 3", tr.current(), n)
	}

	tr.setStep("tools/list with an invalid cursor")
	_, err = remote.ListTools(ctx, &mcp.PaginatedRequestParams{Cursor: mcp.Cursor("not a cursor")})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("step %q: got %v, want a -32602 error", tr.current(), err)
	}

	tr.setStep("resources/subscribe")
	if _, err := remote.Subscribe(ctx, &mcp.SubscribeRequestParams{URI: "mem://motd"}); err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if got := receive(t, tr, s.subscribed, "the subscription at the SDK server"); got != "+mem://motd" {
		t.Errorf("step %q: the SDK got %q", tr.current(), got)
	}

	tr.setStep("notifications/resources/updated")
	if err := s.server.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: "mem://motd"}); err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if got := receive(t, tr, client.updated, "notifications/resources/updated at our client"); got != "mem://motd" {
		t.Errorf("step %q: our client got an update of %q", tr.current(), got)
	}

	tr.setStep("resources/unsubscribe")
	if _, err := remote.Unsubscribe(ctx, &mcp.UnsubscribeRequestParams{URI: "mem://motd"}); err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if got := receive(t, tr, s.subscribed, "the unsubscription at the SDK server"); got != "-mem://motd" {
		t.Errorf("step %q: the SDK got %q", tr.current(), got)
	}

	tr.setStep("notifications/tools/list_changed after the SDK server adds a tool")
	s.server.AddTool(&sdk.Tool{Name: "late", InputSchema: emptyObject}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return sdkResult("late"), nil
	})
	receive(t, tr, client.changed, "notifications/tools/list_changed at our client")
	if got := call(t, tr, remote, "late"); got != "late" {
		t.Errorf("step %q: the new tool returned %q", tr.current(), got)
	}

	tr.setStep("completion/complete")
	res, err := remote.Complete(ctx, &mcp.CompleteRequestParams{
		Ref:      mcp.NewCompletionReference(mcp.PromptReference{Type: "ref/prompt", Name: "greet"}),
		Argument: mcp.CompletionArgument{Name: "name", Value: "Z"},
	})
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if !slices.Equal(res.Completion.Values, []string{"Zoë", "Zed"}) || res.Completion.Total == nil || *res.Completion.Total != 2 {
		b, _ := json.Marshal(res)
		t.Errorf("step %q: completion %s", tr.current(), b)
	}
}

// call calls a tool without arguments and returns its one text block.
func call(t *testing.T, tr *transcript, remote mcp.Server, name string) string {
	t.Helper()
	res, err := remote.CallTool(bounded(t), &mcp.CallToolRequestParams{Name: name})
	if err != nil {
		t.Fatalf("step %q: tools/call %s: %v", tr.current(), name, err)
	}
	if res.CallToolResult == nil || len(res.CallToolResult.Content) != 1 || res.CallToolResult.Content[0].Text == nil {
		b, _ := json.Marshal(res)
		t.Fatalf("step %q: tools/call %s returned %s", tr.current(), name, b)
	}
	return res.CallToolResult.Content[0].Text.Text
}
