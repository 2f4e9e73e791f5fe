package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

func TestVersionNegotiation(t *testing.T) {
	for _, tc := range []struct{ asked, answered string }{
		{"2025-11-25", "2025-11-25"},
		{"2025-03-26", "2025-03-26"}, // an older revision the server speaks is kept
		{"2024-11-05", "2024-11-05"},
		{"1999-01-01", "2025-11-25"}, // an unknown one gets the newest
	} {
		s := spawn(t, jsonrpc.Options{})
		res, err := s.srv.Initialize(bounded(t), &mcp.InitializeRequestParams{
			ProtocolVersion: tc.asked, ClientInfo: mcp.Implementation{Name: "e2e", Version: "1"},
		})
		if err != nil {
			t.Fatalf("initialize %s: %v", tc.asked, err)
		}
		if res.ProtocolVersion != tc.answered {
			t.Errorf("asked %s, answered %s; want %s", tc.asked, res.ProtocolVersion, tc.answered)
		}
		if res.ServerInfo.Name != "rpcgen-mcp-example" || res.Capabilities.Tools == nil || res.Capabilities.Resources == nil ||
			!res.Capabilities.Resources.Subscribe || res.Capabilities.Tasks == nil {
			t.Errorf("unexpected initialize result %+v", res)
		}
	}
}

func TestPingBothWays(t *testing.T) {
	s := start(t)
	if _, err := s.srv.Ping(bounded(t), &mcp.RequestParams{}); err != nil {
		t.Fatalf("ping: %v", err)
	}
	res := s.call(t, "ping_client", nil)
	if isError(res) || !strings.HasPrefix(textOf(res), "pong") {
		t.Fatalf("ping_client = %q", textOf(res))
	}
	recv(t, s.c.pinged, "the server's ping")
}

func TestTools(t *testing.T) {
	s := start(t, "-page-size", "4")
	ctx := bounded(t)
	var names []string
	var cursor mcp.Cursor
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("tools/list does not end")
		}
		res, err := s.srv.ListTools(ctx, &mcp.PaginatedRequestParams{Cursor: cursor})
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		if len(res.Tools) > 4 {
			t.Fatalf("page of %d tools; want at most 4", len(res.Tools))
		}
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	for _, want := range []string{"echo", "add", "slow", "roots", "sample", "ask"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list lacks %s: %v", want, names)
		}
	}
	if slices.Contains(names, "shout") {
		t.Error("shout is listed before the extras are on")
	}
	bad := mcp.Cursor("nonsense")
	if _, err := s.srv.ListTools(ctx, &mcp.PaginatedRequestParams{Cursor: bad}); code(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("invalid cursor: err = %v; want -32602", err)
	}

	if got := textOf(s.call(t, "echo", map[string]any{"text": "hello"})); got != "hello" {
		t.Errorf("echo = %q", got)
	}
	sum := s.call(t, "add", map[string]any{"a": 2, "b": 3.5})
	if textOf(sum) != "5.5" || string(sum.StructuredContent) != `{"sum":5.5}` {
		t.Errorf("add = %q, structured %s", textOf(sum), sum.StructuredContent)
	}
	if res := s.call(t, "add", map[string]any{"a": "two"}); !isError(res) {
		t.Errorf("add with bad input: %q is not a tool error", textOf(res))
	}
	_, err := s.callErr(ctx, "no_such_tool", nil, nil)
	if code(err) != jsonrpc.CodeInvalidParams || !errors.Is(err, jsonrpc.ErrInvalidParams) {
		t.Errorf("unknown tool: err = %v; want -32602", err)
	}
}

func TestProgressAndCancellation(t *testing.T) {
	s := start(t)
	token := mcp.NewProgressToken("p1")
	res, err := s.callErr(bounded(t), "slow", map[string]any{"steps": 3, "delayMs": 1}, &token)
	if err != nil || textOf(res) != "done after 3 steps" {
		t.Fatalf("slow = %v, %v", res, err)
	}
	for i := 1; i <= 3; i++ {
		p := recv(t, s.c.progress, "progress")
		if p.ProgressToken.String == nil || *p.ProgressToken.String != "p1" || p.Progress != float64(i) || p.Total == nil || *p.Total != 3 {
			t.Fatalf("progress %d = %+v", i, p)
		}
	}

	// Cancelling the caller's context sends notifications/cancelled; the
	// server stops the tool and says so in a log message.
	ctx, cancel := context.WithCancel(bounded(t))
	done := make(chan error, 1)
	go func() {
		_, err := s.callErr(ctx, "slow", map[string]any{"steps": 1000, "delayMs": 10}, &token)
		done <- err
	}()
	recv(t, s.c.progress, "progress of the call to cancel")
	cancel()
	if err := recv(t, done, "the cancelled call"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: err = %v", err)
	}
	for {
		if msg := logText(t, recv(t, s.c.logs, "the cancellation log")); strings.HasPrefix(msg, "slow: cancelled after") {
			break
		}
	}
}

func TestResources(t *testing.T) {
	s := start(t)
	ctx := bounded(t)
	list, err := s.srv.ListResources(ctx, &mcp.PaginatedRequestParams{})
	if err != nil || len(list.Resources) != 3 || list.NextCursor != "" {
		t.Fatalf("resources/list = %+v, %v", list, err)
	}
	templates, err := s.srv.ListResourceTemplates(ctx, &mcp.PaginatedRequestParams{})
	if err != nil || len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != "greeting://{name}" {
		t.Fatalf("resources/templates/list = %+v, %v", templates, err)
	}
	read := func(uri string) mcp.ResourceContentsUnion {
		t.Helper()
		res, err := s.srv.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: uri})
		if err != nil || len(res.Contents) != 1 {
			t.Fatalf("resources/read %s = %+v, %v", uri, res, err)
		}
		return res.Contents[0]
	}
	if c := read("example://readme"); c.TextResourceContents == nil || !strings.HasPrefix(c.TextResourceContents.Text, "# rpcgen") {
		t.Errorf("readme = %+v", c)
	}
	if c := read("example://logo.png"); c.BlobResourceContents == nil || !strings.HasPrefix(c.BlobResourceContents.Blob, "iVBOR") {
		t.Errorf("logo = %+v", c)
	}
	if c := read("greeting://Ada"); c.TextResourceContents == nil || c.TextResourceContents.Text != "Hello, Ada!" {
		t.Errorf("greeting = %+v", c)
	}
	_, err = s.srv.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: "example://missing"})
	var rpcErr *jsonrpc.Error
	if !errors.Is(err, mcp.ErrResourceNotFound) || !errors.As(err, &rpcErr) || !strings.Contains(string(rpcErr.Data), `"uri":"example://missing"`) {
		t.Fatalf("reading a missing resource: err = %v", err)
	}
	if _, err := s.srv.Subscribe(ctx, &mcp.SubscribeRequestParams{URI: "example://missing"}); !errors.Is(err, mcp.ErrResourceNotFound) {
		t.Errorf("subscribing to a missing resource: err = %v", err)
	}

	if _, err := s.srv.Subscribe(ctx, &mcp.SubscribeRequestParams{URI: "notes://all"}); err != nil {
		t.Fatalf("resources/subscribe: %v", err)
	}
	s.call(t, "add_note", map[string]any{"text": "first"})
	if got := recv(t, s.c.changed, "resources list_changed"); got != "resources" {
		t.Errorf("list_changed for %s", got)
	}
	if got := recv(t, s.c.updated, "resources/updated"); got != "notes://all" {
		t.Errorf("updated %s", got)
	}
	if c := read("notes://1"); c.TextResourceContents == nil || c.TextResourceContents.Text != "first" {
		t.Errorf("notes://1 = %+v", c)
	}
	if _, err := s.srv.Unsubscribe(ctx, &mcp.UnsubscribeRequestParams{URI: "notes://all"}); err != nil {
		t.Fatalf("resources/unsubscribe: %v", err)
	}
	s.call(t, "add_note", map[string]any{"text": "second"})
	recv(t, s.c.changed, "resources list_changed")
	s.flush(t)
	select {
	case uri := <-s.c.updated:
		t.Errorf("resources/updated %s after unsubscribing", uri)
	default:
	}
}

func TestPromptsAndListChanges(t *testing.T) {
	s := start(t)
	ctx := bounded(t)
	list, err := s.srv.ListPrompts(ctx, &mcp.PaginatedRequestParams{})
	if err != nil || len(list.Prompts) != 1 || list.Prompts[0].Name != "review" {
		t.Fatalf("prompts/list = %+v, %v", list, err)
	}
	got, err := s.srv.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: "review", Arguments: map[string]string{"code": "x := 1", "language": "go"}})
	if err != nil || len(got.Messages) != 2 || got.Messages[0].Content.Text == nil ||
		got.Messages[0].Content.Text.Text != "Please review this go:\n\nx := 1" || got.Messages[1].Content.ResourceLink == nil {
		t.Fatalf("prompts/get = %+v, %v", got, err)
	}
	if _, err := s.srv.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: "review"}); code(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("missing argument: err = %v; want -32602", err)
	}
	if _, err := s.srv.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: "nope"}); code(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("unknown prompt: err = %v; want -32602", err)
	}

	s.call(t, "toggle_extras", nil)
	if a, b := recv(t, s.c.changed, "tools list_changed"), recv(t, s.c.changed, "prompts list_changed"); a != "tools" || b != "prompts" {
		t.Errorf("list changes %s, %s; want tools, prompts", a, b)
	}
	list, err = s.srv.ListPrompts(ctx, &mcp.PaginatedRequestParams{})
	if err != nil || len(list.Prompts) != 2 {
		t.Fatalf("prompts/list with extras = %+v, %v", list, err)
	}
	if got := textOf(s.call(t, "shout", map[string]any{"text": "hi"})); got != "HI!" {
		t.Errorf("shout = %q", got)
	}
}

func TestCompletion(t *testing.T) {
	s := start(t)
	ctx := bounded(t)
	res, err := s.srv.Complete(ctx, &mcp.CompleteRequestParams{
		Ref:      mcp.NewCompletionReference(mcp.PromptReference{Name: "review"}),
		Argument: mcp.CompletionArgument{Name: "language", Value: "py"},
	})
	if err != nil || !slices.Equal(res.Completion.Values, []string{"python"}) {
		t.Fatalf("complete language = %+v, %v", res, err)
	}
	res, err = s.srv.Complete(ctx, &mcp.CompleteRequestParams{
		Ref:      mcp.NewCompletionReference(mcp.ResourceTemplateReference{URI: "greeting://{name}"}),
		Argument: mcp.CompletionArgument{Name: "name", Value: "a"},
		Context:  &mcp.CompletionContext{Arguments: map[string]string{}},
	})
	if err != nil || !slices.Equal(res.Completion.Values, []string{"Ada", "Alan"}) || *res.Completion.Total != 2 {
		t.Fatalf("complete name = %+v, %v", res, err)
	}
	_, err = s.srv.Complete(ctx, &mcp.CompleteRequestParams{
		Ref: mcp.NewCompletionReference(mcp.PromptReference{Name: "nope"}), Argument: mcp.CompletionArgument{Name: "x"},
	})
	if code(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("unknown prompt: err = %v; want -32602", err)
	}
}

// TestCompletionCoversEveryPrompt completes every argument of every prompt
// prompts/list returns (the extra prompt included): each gets candidates,
// and a prefix narrows them.
func TestCompletionCoversEveryPrompt(t *testing.T) {
	s := start(t, "-page-size", "1")
	ctx := bounded(t)
	s.call(t, "toggle_extras", nil)
	var prompts []mcp.Prompt
	for cursor := mcp.Cursor(""); ; {
		page, err := s.srv.ListPrompts(ctx, &mcp.PaginatedRequestParams{Cursor: cursor})
		if err != nil {
			t.Fatalf("prompts/list: %v", err)
		}
		prompts = append(prompts, page.Prompts...)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if len(prompts) < 2 {
		t.Fatalf("prompts/list with extras on = %+v; want the extra prompt too", prompts)
	}
	complete := func(prompt, arg, value string, resolved map[string]string) ([]string, error) {
		res, err := s.srv.Complete(ctx, &mcp.CompleteRequestParams{
			Ref:      mcp.NewCompletionReference(mcp.PromptReference{Name: prompt}),
			Argument: mcp.CompletionArgument{Name: arg, Value: value},
			Context:  &mcp.CompletionContext{Arguments: resolved},
		})
		if err != nil {
			return nil, err
		}
		return res.Completion.Values, nil
	}
	args := 0
	for _, p := range prompts {
		for _, a := range p.Arguments {
			args++
			all, err := complete(p.Name, a.Name, "", nil)
			if err != nil || len(all) == 0 {
				t.Errorf("complete %s/%s = %q, %v; want candidates", p.Name, a.Name, all, err)
				continue
			}
			prefix := strings.ToLower(all[0][:1])
			narrowed, err := complete(p.Name, a.Name, prefix, nil)
			if err != nil || len(narrowed) == 0 {
				t.Errorf("complete %s/%s %q = %q, %v", p.Name, a.Name, prefix, narrowed, err)
			}
			for _, v := range narrowed {
				if !strings.HasPrefix(strings.ToLower(v), prefix) {
					t.Errorf("complete %s/%s %q offers %q", p.Name, a.Name, prefix, v)
				}
			}
		}
	}
	if args < 3 {
		t.Errorf("only %d prompt arguments listed", args)
	}
	// The code completes to a snippet in the language already chosen.
	if got, err := complete("review", "code", "", map[string]string{"language": "go"}); err != nil || !slices.Equal(got, []string{`fmt.Println("hello")`}) {
		t.Errorf("complete review/code in go = %q, %v", got, err)
	}
	if _, err := complete("review", "nope", "", nil); code(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("unknown argument: err = %v; want -32602", err)
	}
}

func TestLogging(t *testing.T) {
	s := start(t)
	ctx := bounded(t)
	// notifications/initialized made the server log the session's start.
	if msg := recv(t, s.c.logs, "the session log"); logText(t, msg) != "session initialized (revision 2025-11-25)" || msg.Level != mcp.LoggingLevelInfo {
		t.Fatalf("first log message %+v (%s)", msg, msg.Data)
	}
	if _, err := s.srv.SetLevel(ctx, &mcp.SetLevelRequestParams{Level: mcp.LoggingLevelWarning}); err != nil {
		t.Fatalf("logging/setLevel: %v", err)
	}
	s.call(t, "log", map[string]any{"level": "info", "message": "quiet"})
	s.call(t, "log", map[string]any{"level": "error", "message": "loud"})
	msg := recv(t, s.c.logs, "a log message")
	if logText(t, msg) != "loud" || msg.Level != mcp.LoggingLevelError || msg.Logger != "log-tool" {
		t.Fatalf("first message %+v (%s); the info one must be filtered out", msg, msg.Data)
	}
	err := s.conn.Call(ctx, mcp.MethodSetLevel, map[string]string{"level": "verbose"}, nil)
	if code(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("invalid level: err = %v; want -32602", err)
	}
}

func TestTasks(t *testing.T) {
	s := start(t)
	ctx := bounded(t)
	startTask := func(steps, delay int) mcp.Task {
		t.Helper()
		resp, err := s.srv.CallTool(ctx, &mcp.CallToolRequestParams{Name: "slow",
			Arguments: rawArgs(map[string]any{"steps": steps, "delayMs": delay}), Task: &mcp.TaskMetadata{TTL: ptr.To(int64(60000))}})
		if err != nil || resp.CreateTaskResult == nil {
			t.Fatalf("tools/call as a task = %+v, %v", resp, err)
		}
		return resp.CreateTaskResult.Task
	}
	task := startTask(2, 1)
	if task.Status != mcp.TaskStatusWorking || task.TTL == nil || *task.TTL != 60000 {
		t.Errorf("new task %+v", task)
	}
	if st := recv(t, s.c.taskStatus, "notifications/tasks/status"); st.TaskID != task.TaskID || st.Status != mcp.TaskStatusCompleted {
		t.Errorf("status notification %+v", st)
	}
	got, err := s.srv.GetTask(ctx, &mcp.TaskIDParams{TaskID: task.TaskID})
	if err != nil || got.Status != mcp.TaskStatusCompleted {
		t.Fatalf("tasks/get = %+v, %v", got, err)
	}
	payload, err := s.srv.GetTaskPayload(ctx, &mcp.TaskIDParams{TaskID: task.TaskID})
	if err != nil {
		t.Fatalf("tasks/result: %v", err)
	}
	b, _ := json.Marshal(payload)
	var result mcp.CallToolResult
	if err := json.Unmarshal(b, &result); err != nil || textOf(&result) != "done after 2 steps" ||
		!strings.Contains(string(related(payload.Meta)), task.TaskID) {
		t.Fatalf("tasks/result = %s, %v", b, err)
	}
	if _, err := s.srv.CancelTask(ctx, &mcp.TaskIDParams{TaskID: task.TaskID}); code(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("cancelling a completed task: err = %v; want -32602", err)
	}

	long := startTask(1000, 10)
	tasks, err := s.srv.ListTasks(ctx, &mcp.PaginatedRequestParams{})
	if err != nil || len(tasks.Tasks) != 2 {
		t.Fatalf("tasks/list = %+v, %v", tasks, err)
	}
	cancelled, err := s.srv.CancelTask(ctx, &mcp.TaskIDParams{TaskID: long.TaskID})
	if err != nil || cancelled.Status != mcp.TaskStatusCancelled {
		t.Fatalf("tasks/cancel = %+v, %v", cancelled, err)
	}
	if st := recv(t, s.c.taskStatus, "the cancelled status"); st.Status != mcp.TaskStatusCancelled {
		t.Errorf("status notification %+v", st)
	}
	if _, err := s.srv.GetTaskPayload(ctx, &mcp.TaskIDParams{TaskID: long.TaskID}); err == nil {
		t.Error("tasks/result of a cancelled task succeeded")
	}
	// The client's own task updates reach the server, which logs them.
	err = s.srv.TaskStatus(ctx, &mcp.TaskStatusNotificationParams{TaskID: "client-1", Status: mcp.TaskStatusCompleted,
		CreatedAt: "2025-11-25T10:30:00Z", LastUpdatedAt: "2025-11-25T10:30:01Z"})
	if err != nil {
		t.Fatalf("notifications/tasks/status: %v", err)
	}
	for {
		if logText(t, recv(t, s.c.logs, "the task status log")) == "client task client-1 is completed" {
			break
		}
	}
	if _, err := s.srv.GetTask(ctx, &mcp.TaskIDParams{TaskID: "nope"}); code(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("unknown task: err = %v; want -32602", err)
	}
	_, err = s.srv.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo", Arguments: rawArgs(map[string]any{"text": "x"}), Task: &mcp.TaskMetadata{}})
	if !errors.Is(err, jsonrpc.ErrMethodNotFound) {
		t.Errorf("echo as a task: err = %v; want -32601", err)
	}
}

// related returns the related-task member of a _meta, or nil.
func related(m *mcp.Meta) json.RawMessage {
	v, _ := m.Extra.Get("io.modelcontextprotocol/related-task")
	return v
}
