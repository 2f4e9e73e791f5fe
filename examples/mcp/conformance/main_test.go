package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// wait bounds every wait of these tests, so a bug fails instead of hanging.
const wait = 10 * time.Second

// testClient implements mcp.Client: it reports what the server sends on
// channels and answers sampling and elicitation as the suite's client does.
type testClient struct {
	mcp.UnimplementedClient
	logs     chan *mcp.LoggingMessageNotificationParams
	progress chan *mcp.ProgressNotificationParams
	sampled  chan *mcp.CreateMessageRequestParams
	elicited chan json.RawMessage // the params of elicitation/create as sent
}

func newTestClient() *testClient {
	return &testClient{
		logs:     make(chan *mcp.LoggingMessageNotificationParams, 16),
		progress: make(chan *mcp.ProgressNotificationParams, 16),
		sampled:  make(chan *mcp.CreateMessageRequestParams, 4),
		elicited: make(chan json.RawMessage, 4),
	}
}

func (c *testClient) LoggingMessage(_ context.Context, p *mcp.LoggingMessageNotificationParams) error {
	c.logs <- p
	return nil
}

func (c *testClient) Progress(_ context.Context, p *mcp.ProgressNotificationParams) error {
	c.progress <- p
	return nil
}

func (c *testClient) CreateMessage(_ context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResponse, error) {
	c.sampled <- p
	stop := "endTurn"
	return &mcp.CreateMessageResponse{CreateMessageResult: &mcp.CreateMessageResult{
		Role: mcp.RoleAssistant, Model: "test-model", StopReason: stop,
		Content: mcp.NewSamplingContent(mcp.NewSamplingMessageContentBlock(mcp.TextContent{Text: "a sampled answer"})),
	}}, nil
}

func (c *testClient) Elicit(_ context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResponse, error) {
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	c.elicited <- raw
	return &mcp.ElicitResponse{ElicitResult: &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]mcp.ElicitValue{
		"username": mcp.NewElicitValue("testuser"),
		"choices":  mcp.NewElicitValue([]string{"value1", "value2"}),
	}}}, nil
}

// connect starts a session of the server over an in-memory pipe and
// initializes it as a client with caps; it returns the server, as the
// client calls it, and the session's state.
func connect(t *testing.T, c *testClient, caps mcp.ClientCapabilities) (mcp.Server, *session) {
	t.Helper()
	a, b := transport.Pipe()
	sess := newSession(slog.New(slog.NewTextHandler(io.Discard, nil)))
	serverConn, _ := mcp.ConnectServer(a, sess, jsonrpc.Options{})
	clientConn, server := mcp.ConnectClient(b, c, jsonrpc.Options{})
	t.Cleanup(func() {
		clientConn.Close()
		serverConn.Close()
		<-clientConn.Done()
		<-serverConn.Done()
	})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res, err := server.Initialize(ctx, &mcp.InitializeRequestParams{
		ProtocolVersion: "2025-11-25", Capabilities: caps,
		ClientInfo: mcp.Implementation{Name: "test", Version: "1"},
	})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if res.ProtocolVersion != "2025-11-25" {
		t.Errorf("initialize answered revision %q, want 2025-11-25", res.ProtocolVersion)
	}
	caps2 := res.Capabilities
	if caps2.Tools == nil || caps2.Resources == nil || !caps2.Resources.Subscribe ||
		caps2.Prompts == nil || caps2.Logging == nil || caps2.Completions == nil {
		t.Errorf("initialize announced capabilities %+v; want tools, resources with subscribe, prompts, logging, completions", caps2)
	}
	if err := server.Initialized(ctx, nil); err != nil {
		t.Fatalf("notifications/initialized: %v", err)
	}
	return server, sess
}

// bothCaps are the capabilities the suite's client announces.
var bothCaps = mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}, Elicitation: &mcp.ElicitationCapability{}}

// callTool calls a tool and returns its result as JSON decoded into a
// generic value, the way the suite (a JavaScript client) looks at it.
func callTool(t *testing.T, server mcp.Server, name string, args map[string]any, meta *mcp.RequestMeta) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	p := &mcp.CallToolRequestParams{Name: name, Meta: meta}
	if len(args) > 0 {
		if err := p.SetArguments(args); err != nil {
			t.Fatalf("tools/call %s: %v", name, err)
		}
	}
	resp, err := server.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	if resp.CallToolResult == nil {
		t.Fatalf("tools/call %s: answered with a task", name)
	}
	return generic(t, resp.CallToolResult)
}

// generic encodes v and decodes it into a map, as a JavaScript peer sees it.
func generic(t *testing.T, v any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// path follows keys (strings for members, ints for elements) into v.
func path(v any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// rpcCode returns the JSON-RPC error code of err, or 0.
func rpcCode(err error) int64 {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// recv receives from ch or fails after wait.
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(wait):
		t.Fatalf("no %s within %v", what, wait)
		var zero T
		return zero
	}
}
