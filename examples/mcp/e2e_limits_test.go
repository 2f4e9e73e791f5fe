package mcp_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// heldRoots is a test client that holds each roots/list answer until the
// test releases it, counting the requests.
type heldRoots struct {
	*testClient
	n       atomic.Int64
	asked   chan int64 // the count, after each request arrived
	release chan struct{}
}

func (c *heldRoots) ListRoots(ctx context.Context, _ *mcp.RequestParams) (*mcp.ListRootsResult, error) {
	c.asked <- c.n.Add(1)
	select {
	case <-c.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///work/project"}}}, nil
}

// waitLog receives log messages until one whose text starts with prefix.
func waitLog(t *testing.T, c *testClient, prefix string) {
	t.Helper()
	for !strings.HasPrefix(logText(t, recv(t, c.logs, prefix)), prefix) {
	}
}

// Many notifications/roots/list_changed make at most one roots/list
// outstanding, and exactly one more once it returns.
func TestRootsListChangedIsCoalesced(t *testing.T) {
	hc := &heldRoots{testClient: newTestClient(), asked: make(chan int64, 20000), release: make(chan struct{})}
	proc, err := transport.Spawn(exec.Command(*bin["server"]), transport.SpawnOptions{Grace: wait})
	if err != nil {
		t.Fatalf("spawning the server: %v", err)
	}
	conn, srv := mcp.ConnectClient(proc, hc, jsonrpc.Options{})
	t.Cleanup(func() { close(hc.release); conn.Close() })
	ctx := bounded(t)
	if _, err := srv.Initialize(ctx, &mcp.InitializeRequestParams{ProtocolVersion: "2025-11-25",
		Capabilities: mcp.ClientCapabilities{Roots: &mcp.ListChangedCapability{ListChanged: true}},
		ClientInfo:   mcp.Implementation{Name: "e2e", Version: "1.0.0"}}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	for range 10000 {
		if err := srv.RootsListChanged(ctx, &mcp.NotificationParams{}); err != nil {
			t.Fatalf("notifications/roots/list_changed: %v", err)
		}
	}
	// Notifications are handled in order: once the server answers this
	// one, it has handled the 10,000 before it.
	if err := srv.Initialized(ctx, &mcp.NotificationParams{}); err != nil {
		t.Fatalf("notifications/initialized: %v", err)
	}
	waitLog(t, hc.testClient, "session initialized")
	if n := recv(t, hc.asked, "the first roots/list"); n != 1 || len(hc.asked) != 0 {
		t.Fatalf("%d roots/list outstanding, want 1", n+int64(len(hc.asked)))
	}
	hc.release <- struct{}{}
	if n := recv(t, hc.asked, "the second roots/list"); n != 2 {
		t.Fatalf("roots/list number %d, want 2", n)
	}
	hc.release <- struct{}{}
	waitLog(t, hc.testClient, "roots changed")
	waitLog(t, hc.testClient, "roots changed")
	if n := hc.n.Load(); n != 2 {
		t.Fatalf("%d roots/list sent for 10,000 list_changed, want 2", n)
	}
}

// add_note keeps at most -max-notes notes of -max-note-bytes each, and
// says so in its description; past either bound the call is a tool error.
func TestNotesAreBounded(t *testing.T) {
	s := start(t, "-max-notes", "3", "-max-note-bytes", "100")
	ctx := bounded(t)
	tools, err := s.srv.ListTools(ctx, &mcp.PaginatedRequestParams{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name == "add_note" && !strings.Contains(tl.Description, "at most 3 notes of at most 100 bytes") {
			t.Errorf("add_note's description does not state its bounds: %q", tl.Description)
		}
	}
	if res := s.call(t, "add_note", map[string]any{"text": strings.Repeat("x", 101)}); !isError(res) ||
		textOf(res) != `argument "text": a note holds at most 100 bytes, got 101` {
		t.Errorf("a note of 101 bytes: %q, isError %t", textOf(res), isError(res))
	}
	for i := range 3 {
		if res := s.call(t, "add_note", map[string]any{"text": strings.Repeat(fmt.Sprint(i), 100)}); isError(res) {
			t.Fatalf("note %d: %q", i+1, textOf(res))
		}
	}
	if res := s.call(t, "add_note", map[string]any{"text": "one too many"}); !isError(res) ||
		textOf(res) != "the server keeps at most 3 notes, and has them all" {
		t.Errorf("a fourth note: %q, isError %t", textOf(res), isError(res))
	}
	// notes://all, the biggest resource, is bounded with them.
	all, err := s.srv.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: "notes://all"})
	if err != nil || len(all.Contents) != 1 || all.Contents[0].TextResourceContents == nil ||
		len(all.Contents[0].TextResourceContents.Text) != 3*100+2 {
		t.Fatalf("notes://all = %+v, %v", all, err)
	}
}

// With the defaults, a note is at most 8 KiB.
func TestNoteDefaultBound(t *testing.T) {
	s := start(t)
	if res := s.call(t, "add_note", map[string]any{"text": strings.Repeat("x", 1<<20)}); !isError(res) ||
		!strings.Contains(textOf(res), "at most 8192 bytes") {
		t.Errorf("a note of 1 MiB: %q, isError %t", textOf(res), isError(res))
	}
}

// The server keeps at most 64 tasks for its client by default (-max-tasks)
// and grants a TTL of at most an hour (-max-task-ttl); past the cap a task
// request gets -32603.
func TestTasksPerSessionAreCapped(t *testing.T) {
	s := start(t)
	ctx := bounded(t)
	startTask := func() (*mcp.CallToolResponse, error) {
		return s.srv.CallTool(ctx, &mcp.CallToolRequestParams{Name: "slow",
			Arguments: rawArgs(map[string]any{"steps": 10000, "delayMs": 1000}), Task: &mcp.TaskMetadata{TTL: ptr.To(int64(86400000))}})
	}
	var first mcp.Task
	for i := range 64 {
		resp, err := startTask()
		if err != nil || resp.CreateTaskResult == nil {
			t.Fatalf("task %d: %+v, %v", i+1, resp, err)
		}
		if i == 0 {
			first = resp.CreateTaskResult.Task
		}
	}
	if first.TTL == nil || *first.TTL != 3600000 {
		t.Errorf("a task asking for a day got TTL %v, want an hour (3600000)", first.TTL)
	}
	_, err := startTask()
	if code(err) != jsonrpc.CodeInternalError || !strings.Contains(err.Error(), "at most 64") {
		t.Fatalf("task 65: err = %v; want -32603 naming the cap", err)
	}
	// A cancelled task is kept until its TTL ends: still no room.
	if _, err := s.srv.CancelTask(ctx, &mcp.TaskIDParams{TaskID: first.TaskID}); err != nil {
		t.Fatal(err)
	}
	if _, err := startTask(); code(err) != jsonrpc.CodeInternalError {
		t.Fatalf("a task after a cancellation: err = %v; want -32603", err)
	}
	list, err := s.srv.ListTasks(ctx, &mcp.PaginatedRequestParams{})
	if err != nil {
		t.Fatal(err)
	}
	total := len(list.Tasks)
	for list.NextCursor != "" {
		if list, err = s.srv.ListTasks(ctx, &mcp.PaginatedRequestParams{Cursor: list.NextCursor}); err != nil {
			t.Fatal(err)
		}
		total += len(list.Tasks)
	}
	if total != 64 {
		t.Errorf("tasks/list lists %d tasks, want 64", total)
	}
}

// A wrong JSON type for a tool argument is a tool error that names the
// argument and the JSON types, never Go's.
func TestToolArgumentErrorsSpeakJSON(t *testing.T) {
	s := start(t)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"echo", map[string]any{"text": 5}, `argument "text": want a string, got a number`},
		{"add", map[string]any{"a": "two", "b": 1}, `argument "a": want a number, got a string`},
		{"add", map[string]any{"a": 1, "b": true}, `argument "b": want a number, got a boolean`},
		{"add", map[string]any{"a": 1}, `arguments "a" and "b": required, numbers`},
		{"slow", map[string]any{"steps": 1.5}, `argument "steps": want an integer, got the number 1.5`},
		{"slow", map[string]any{"delayMs": "x"}, `argument "delayMs": want an integer, got a string`},
		{"log", map[string]any{"level": 3, "message": "m"}, `argument "level": want a string, got a number`},
		{"log", map[string]any{"level": "info", "message": []int{1}}, `argument "message": want a string, got an array`},
		{"log", map[string]any{"level": "verbose", "message": "m"}, `argument "level": want one of "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency", got "verbose"`},
		{"sample", map[string]any{"prompt": map[string]any{}}, `argument "prompt": want a string, got an object`},
		{"sample", map[string]any{"prompt": "p", "maxTokens": "x"}, `argument "maxTokens": want an integer, got a string`},
		{"sample", map[string]any{"prompt": "p", "asTask": "yes"}, `argument "asTask": want a boolean, got a string`},
		{"ask", map[string]any{"question": false}, `argument "question": want a string, got a boolean`},
		{"add_note", map[string]any{"text": 1}, `argument "text": want a string, got a number`},
		{"add_note", map[string]any{}, `argument "text": required, a string`},
	} {
		res := s.call(t, c.tool, c.args)
		if !isError(res) || textOf(res) != c.want {
			t.Errorf("%s %v: %q (isError %t), want %q", c.tool, c.args, textOf(res), isError(res), c.want)
		}
		for _, goWord := range []string{"Go ", "float64", "int64", "struct", "unmarshal"} {
			if strings.Contains(textOf(res), goWord) {
				t.Errorf("%s %v: %q speaks of Go (%q)", c.tool, c.args, textOf(res), goWord)
			}
		}
	}
}

// The server keeps at most 64 resource subscriptions; every greeting is a
// resource, so a client cannot grow the set with names.
func TestSubscriptionsAreCapped(t *testing.T) {
	s := start(t)
	ctx := bounded(t)
	for i := range 64 {
		if _, err := s.srv.Subscribe(ctx, &mcp.SubscribeRequestParams{URI: fmt.Sprintf("greeting://n%d", i)}); err != nil {
			t.Fatalf("subscription %d: %v", i+1, err)
		}
	}
	if _, err := s.srv.Subscribe(ctx, &mcp.SubscribeRequestParams{URI: "greeting://n0"}); err != nil {
		t.Errorf("subscribing again: %v", err)
	}
	if _, err := s.srv.Subscribe(ctx, &mcp.SubscribeRequestParams{URI: "greeting://one-more"}); code(err) != jsonrpc.CodeInternalError {
		t.Errorf("subscription 65: err = %v; want -32603", err)
	}
	if _, err := s.srv.Unsubscribe(ctx, &mcp.UnsubscribeRequestParams{URI: "greeting://n1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.srv.Subscribe(ctx, &mcp.SubscribeRequestParams{URI: "greeting://one-more"}); err != nil {
		t.Errorf("a subscription after an unsubscribe: %v", err)
	}
}

// Names the client sends come back in errors truncated.
func TestErrorsTruncateClientValues(t *testing.T) {
	s := start(t)
	ctx := bounded(t)
	huge := strings.Repeat("n", 1<<20)
	_, err := s.callErr(ctx, huge, nil, nil)
	if code(err) != jsonrpc.CodeInvalidParams || len(err.Error()) > 2*jsonrpc.MaxEchoBytes {
		t.Errorf("an unknown tool of 1 MiB: %d bytes of error, code %d", len(err.Error()), code(err))
	}
	_, err = s.srv.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: huge})
	if code(err) != jsonrpc.CodeInvalidParams || len(err.Error()) > 2*jsonrpc.MaxEchoBytes {
		t.Errorf("an unknown prompt of 1 MiB: %d bytes of error, code %d", len(err.Error()), code(err))
	}
}
