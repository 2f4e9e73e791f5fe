package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/internal/exampletest"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// wait bounds every wait of these tests, so a bug fails instead of hanging.
const wait = 10 * time.Second

// bin holds the paths of the example binaries, built once by TestMain.
var bin = map[string]*string{"server": new(string), "client": new(string)}

func TestMain(m *testing.M) {
	exampletest.Main(m, map[string]*string{"./server": bin["server"], "./client": bin["client"]})
}

// testClient implements mcp.Client, reporting what the server sends on
// channels and answering its requests as each test sets up.
type testClient struct {
	mcp.UnimplementedClient
	logs       chan *mcp.LoggingMessageNotificationParams
	progress   chan *mcp.ProgressNotificationParams
	changed    chan string // "resources", "tools" or "prompts"
	updated    chan string
	taskStatus chan *mcp.TaskStatusNotificationParams
	elicited   chan string
	rootsAsked chan struct{}
	sampling   func(ctx context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResponse, error)
	elicit     func(p *mcp.ElicitRequestParams) mcp.ElicitResult
	// elicitCtx, when set, answers elicitation/create instead of elicit.
	elicitCtx func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResponse, error)
	pinged    chan struct{}
	// getTask and taskPayload answer tasks/get and tasks/result; nil:
	// -32601.
	getTask     func(p *mcp.TaskIDParams) (*mcp.GetTaskResult, error)
	taskPayload func(p *mcp.TaskIDParams) (*mcp.GetTaskPayloadResult, error)
}

func newTestClient() *testClient {
	return &testClient{
		logs:       make(chan *mcp.LoggingMessageNotificationParams, 64),
		progress:   make(chan *mcp.ProgressNotificationParams, 64),
		changed:    make(chan string, 16),
		updated:    make(chan string, 16),
		taskStatus: make(chan *mcp.TaskStatusNotificationParams, 16),
		elicited:   make(chan string, 4),
		rootsAsked: make(chan struct{}, 16),
		pinged:     make(chan struct{}, 4),
	}
}

func (c *testClient) Ping(context.Context, *mcp.RequestParams) (*mcp.EmptyResult, error) {
	c.pinged <- struct{}{}
	return &mcp.EmptyResult{}, nil
}

func (c *testClient) ListRoots(context.Context, *mcp.RequestParams) (*mcp.ListRootsResult, error) {
	c.rootsAsked <- struct{}{}
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///work/project", Name: "project"}}}, nil
}

func (c *testClient) CreateMessage(ctx context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResponse, error) {
	if c.sampling == nil {
		return nil, mcp.NewUserRejectedError()
	}
	return c.sampling(ctx, p)
}

func (c *testClient) Elicit(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResponse, error) {
	if c.elicitCtx != nil {
		return c.elicitCtx(ctx, p)
	}
	return ptr.To(mcp.NewElicitResponse(c.elicit(p))), nil
}

func (c *testClient) GetTask(ctx context.Context, p *mcp.TaskIDParams) (*mcp.GetTaskResult, error) {
	if c.getTask == nil {
		return c.UnimplementedClient.GetTask(ctx, p)
	}
	return c.getTask(p)
}

func (c *testClient) GetTaskPayload(ctx context.Context, p *mcp.TaskIDParams) (*mcp.GetTaskPayloadResult, error) {
	if c.taskPayload == nil {
		return c.UnimplementedClient.GetTaskPayload(ctx, p)
	}
	return c.taskPayload(p)
}

func (c *testClient) LoggingMessage(_ context.Context, p *mcp.LoggingMessageNotificationParams) error {
	c.logs <- p
	return nil
}

func (c *testClient) Progress(_ context.Context, p *mcp.ProgressNotificationParams) error {
	c.progress <- p
	return nil
}

func (c *testClient) ResourceListChanged(context.Context, *mcp.NotificationParams) error {
	c.changed <- "resources"
	return nil
}

func (c *testClient) ToolListChanged(context.Context, *mcp.NotificationParams) error {
	c.changed <- "tools"
	return nil
}

func (c *testClient) PromptListChanged(context.Context, *mcp.NotificationParams) error {
	c.changed <- "prompts"
	return nil
}

func (c *testClient) ResourceUpdated(_ context.Context, p *mcp.ResourceUpdatedNotificationParams) error {
	c.updated <- p.URI
	return nil
}

func (c *testClient) TaskStatus(_ context.Context, p *mcp.TaskStatusNotificationParams) error {
	c.taskStatus <- p
	return nil
}

func (c *testClient) ElicitationComplete(_ context.Context, p *mcp.ElicitationCompleteParams) error {
	c.elicited <- p.ElicitationID
	return nil
}

// session is the test client connected to a spawned example server.
type session struct {
	conn *jsonrpc.Conn
	srv  mcp.Server
	c    *testClient
	init *mcp.InitializeResult
}

// spawn starts the example server with args and connects the test client
// to it, without initializing: over stdio, or over Streamable HTTP for the
// subtests of TestOverHTTP.
func spawn(t *testing.T, opts jsonrpc.Options, args ...string) *session {
	t.Helper()
	s := &session{c: newTestClient()}
	if overHTTP(t) {
		dialHTTP(t, s, opts, args...)
		return s
	}
	proc, err := transport.Spawn(exec.Command(*bin["server"], args...), transport.SpawnOptions{Grace: wait})
	if err != nil {
		t.Fatalf("spawning the server: %v", err)
	}
	s.conn, s.srv = mcp.ConnectClient(proc, s.c, opts)
	t.Cleanup(func() { s.conn.Close() })
	return s
}

// testCaps are the capabilities the test client declares.
func testCaps() mcp.ClientCapabilities {
	return mcp.ClientCapabilities{
		Roots:       &mcp.ListChangedCapability{ListChanged: true},
		Sampling:    &mcp.SamplingCapability{},
		Elicitation: &mcp.ElicitationCapability{Form: &mcp.Capability{}, URL: &mcp.Capability{}},
	}
}

// start spawns the server and initializes the session.
func start(t *testing.T, args ...string) *session {
	t.Helper()
	return startCaps(t, testCaps(), args...)
}

// startCaps spawns the server and initializes the session, declaring caps.
func startCaps(t *testing.T, caps mcp.ClientCapabilities, args ...string) *session {
	t.Helper()
	s := spawn(t, jsonrpc.Options{}, args...)
	ctx := bounded(t)
	var err error
	s.init, err = s.srv.Initialize(ctx, &mcp.InitializeRequestParams{
		ProtocolVersion: "2025-11-25",
		Capabilities:    caps,
		ClientInfo:      mcp.Implementation{Name: "e2e", Version: "1.0.0"},
	})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if err := s.srv.Initialized(ctx, &mcp.NotificationParams{}); err != nil {
		t.Fatalf("notifications/initialized: %v", err)
	}
	return s
}

// bounded returns a context that ends with the test or after wait.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return ctx
}

// call calls a tool that must answer with a plain result.
func (s *session) call(t *testing.T, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := s.callErr(bounded(t), name, args, nil)
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

// callErr calls a tool, with a progress token unless token is nil.
func (s *session) callErr(ctx context.Context, name string, args map[string]any, token *mcp.ProgressToken) (*mcp.CallToolResult, error) {
	p := &mcp.CallToolRequestParams{Name: name, Arguments: rawArgs(args)}
	if token != nil {
		p.Meta = &mcp.RequestMeta{ProgressToken: *token}
	}
	resp, err := s.srv.CallTool(ctx, p)
	if err != nil {
		return nil, err
	}
	if resp.CallToolResult == nil {
		return nil, errors.New("expected a CallToolResult, got a task")
	}
	return resp.CallToolResult, nil
}

func rawArgs(args map[string]any) json.RawMessage {
	out, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return out
}

// textOf joins the text blocks of a tool result.
func textOf(res *mcp.CallToolResult) string {
	var parts []string
	for _, b := range res.Content {
		if b.Text != nil {
			parts = append(parts, b.Text.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func isError(res *mcp.CallToolResult) bool { return res.IsError }

// code returns the JSON-RPC error code of err, or 0.
func code(err error) int64 {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// recv receives from ch within wait.
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(wait):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

// logText returns a log message's data, which the example sends as a string.
func logText(t *testing.T, p *mcp.LoggingMessageNotificationParams) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(p.Data, &s); err != nil {
		t.Fatalf("log data %s is not a string: %v", p.Data, err)
	}
	return s
}

// flush waits until every notification the server sent before now has been
// handled: notifications are handled in order, so once a log message sent
// after them arrives, they have been.
func (s *session) flush(t *testing.T) {
	t.Helper()
	marker := fmt.Sprintf("flush-%d", time.Now().UnixNano())
	s.call(t, "log", map[string]any{"level": "emergency", "message": marker})
	for {
		if got := logText(t, recv(t, s.c.logs, "the flush marker")); got == marker {
			return
		}
	}
}
