package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/internal/ptr"
)

// The input_required rule of MCP tasks (2025-11-25): a task that needs its
// requestor's input moves to input_required, and its requests reach the
// requestor only through tasks/result, which the requestor calls at once.

// TestTaskInputRequired runs the tools that call back as tasks: each task
// goes input_required, asks nothing until tasks/result, then asks within
// it (naming the task in _meta), goes back to working and completes.
func TestTaskInputRequired(t *testing.T) {
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{tool: "ask", args: map[string]any{"question": "Proceed?"}, want: `answer: "sure", confident: true`},
		{tool: "sample", args: map[string]any{"prompt": "Capital of France?"}, want: "Paris [model test-model]"},
		{tool: "roots", want: "1 roots\nfile:///work/project project"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			s := start(t)
			ctx := bounded(t)
			asked := make(chan *mcp.RequestMeta, 1)
			s.c.elicit = func(p *mcp.ElicitRequestParams) mcp.ElicitResult {
				asked <- p.ElicitRequestFormParams.Meta
				return mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]mcp.ElicitValue{
					"answer": mcp.NewElicitValue("sure"), "confident": mcp.NewElicitValue(true)}}
			}
			s.c.sampling = func(_ context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResponse, error) {
				asked <- p.Meta
				return ptr.To(mcp.NewCreateMessageResponse(mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "test-model",
					Content: mcp.NewSamplingContent(mcp.NewSamplingMessageContentBlock(mcp.TextContent{Text: "Paris"}))})), nil
			}
			resp, err := s.srv.CallTool(ctx, &mcp.CallToolRequestParams{Name: tc.tool, Arguments: rawArgs(tc.args),
				Task: &mcp.TaskMetadata{TTL: ptr.To(int64(60000))}})
			if err != nil || resp.CreateTaskResult == nil {
				t.Fatalf("tools/call %s as a task = %+v, %v", tc.tool, resp, err)
			}
			id := resp.CreateTaskResult.Task.TaskID
			if st := recv(t, s.c.taskStatus, "input_required"); st.TaskID != id || st.Status != mcp.TaskStatusInputRequired {
				t.Fatalf("first status notification %+v; want input_required", st)
			}
			if got, err := s.srv.GetTask(ctx, &mcp.TaskIDParams{TaskID: id}); err != nil || got.Status != mcp.TaskStatusInputRequired {
				t.Fatalf("tasks/get = %+v, %v; want input_required", got, err)
			}
			select {
			case <-asked:
				t.Fatal("the server asked before tasks/result")
			case <-s.c.rootsAsked:
				t.Fatal("the server listed roots before tasks/result")
			default:
			}
			payload, err := s.srv.GetTaskPayload(ctx, &mcp.TaskIDParams{TaskID: id})
			if err != nil {
				t.Fatalf("tasks/result: %v", err)
			}
			b, _ := json.Marshal(payload)
			var res mcp.CallToolResult
			if err := json.Unmarshal(b, &res); err != nil || isError(&res) || textOf(&res) != tc.want {
				t.Fatalf("tasks/result = %s, %v; want %q", b, err, tc.want)
			}
			if !strings.Contains(string(related(payload.Meta)), id) {
				t.Errorf("tasks/result _meta %s does not name task %s", b, id)
			}
			if tc.tool != "roots" {
				meta := recv(t, asked, "the request")
				if meta == nil {
					t.Fatal("the request carries no _meta")
				}
				if v, _ := meta.Extra.Get("io.modelcontextprotocol/related-task"); !strings.Contains(string(v), id) {
					t.Errorf("the request's related-task %s does not name task %s", v, id)
				}
			}
			for _, want := range []mcp.TaskStatus{mcp.TaskStatusWorking, mcp.TaskStatusCompleted} {
				if st := recv(t, s.c.taskStatus, string(want)); st.Status != want {
					t.Errorf("status notification %+v; want %s", st, want)
				}
			}
		})
	}
}

// TestServerFetchesInputRequiredTask: the server, requestor of a sampling
// task the client runs, calls tasks/result once the task is
// input_required instead of polling tasks/get until it is final.
func TestServerFetchesInputRequiredTask(t *testing.T) {
	caps := testCaps()
	caps.Tasks = &mcp.ClientTasksCapability{Requests: &mcp.ClientTaskRequests{
		Sampling: &mcp.ClientTaskSampling{CreateMessage: &mcp.Capability{}}}}
	s := startCaps(t, caps)
	task := mcp.Task{TaskID: "client-task-1", Status: mcp.TaskStatusWorking, CreatedAt: "2025-11-25T10:30:00Z", LastUpdatedAt: "2025-11-25T10:30:00Z"}
	s.c.sampling = func(_ context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResponse, error) {
		if p.Task == nil {
			t.Error("the sampling request is not task-augmented")
		}
		return ptr.To(mcp.NewCreateMessageResponse(mcp.CreateTaskResult{Task: task})), nil
	}
	var polled atomic.Int32
	s.c.getTask = func(p *mcp.TaskIDParams) (*mcp.GetTaskResult, error) {
		polled.Add(1)
		st := task
		st.Status = mcp.TaskStatusInputRequired // and stays so until tasks/result
		return &mcp.GetTaskResult{TaskID: st.TaskID, Status: st.Status, CreatedAt: st.CreatedAt, LastUpdatedAt: st.LastUpdatedAt}, nil
	}
	s.c.taskPayload = func(p *mcp.TaskIDParams) (*mcp.GetTaskPayloadResult, error) {
		var r mcp.GetTaskPayloadResult
		err := json.Unmarshal([]byte(`{"role":"assistant","model":"test-model","content":{"type":"text","text":"Paris"}}`), &r)
		return &r, err
	}
	res := s.call(t, "sample", map[string]any{"prompt": "Capital of France?", "asTask": true})
	if isError(res) || textOf(res) != "(task) Paris [model test-model]" {
		t.Fatalf("sample as a client task = %q", textOf(res))
	}
	if n := polled.Load(); n != 1 {
		t.Errorf("the server polled tasks/get %d times; want once, then tasks/result", n)
	}
}

// TestTaskInputSurvivesCancelledResult: when the requestor cancels the
// tasks/result that carries a task's elicitation, the task stays
// input_required and the next tasks/result asks again.
func TestTaskInputSurvivesCancelledResult(t *testing.T) {
	s := start(t)
	ctx := bounded(t)
	asked := make(chan int32, 2)
	var calls atomic.Int32
	s.c.elicitCtx = func(hctx context.Context, _ *mcp.ElicitRequestParams) (*mcp.ElicitResponse, error) {
		n := calls.Add(1)
		asked <- n
		if n == 1 {
			<-hctx.Done() // the server withdraws the request with its tasks/result
			return nil, hctx.Err()
		}
		return ptr.To(mcp.NewElicitResponse(mcp.ElicitResult{Action: mcp.ElicitActionAccept,
			Content: map[string]mcp.ElicitValue{"answer": mcp.NewElicitValue("second"), "confident": mcp.NewElicitValue(true)}})), nil
	}
	resp, err := s.srv.CallTool(ctx, &mcp.CallToolRequestParams{Name: "ask", Arguments: rawArgs(map[string]any{"question": "?"}),
		Task: &mcp.TaskMetadata{}})
	if err != nil || resp.CreateTaskResult == nil {
		t.Fatalf("tools/call ask as a task = %+v, %v", resp, err)
	}
	id := resp.CreateTaskResult.Task.TaskID
	if st := recv(t, s.c.taskStatus, "input_required"); st.Status != mcp.TaskStatusInputRequired {
		t.Fatalf("status %+v; want input_required", st)
	}
	firstCtx, cancel := context.WithCancel(ctx)
	first := make(chan error, 1)
	go func() {
		_, err := s.srv.GetTaskPayload(firstCtx, &mcp.TaskIDParams{TaskID: id})
		first <- err
	}()
	if n := recv(t, asked, "the first elicitation"); n != 1 {
		t.Fatalf("elicitation %d; want the first", n)
	}
	cancel()
	if err := recv(t, first, "the cancelled tasks/result"); !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled tasks/result: %v", err)
	}
	payload, err := s.srv.GetTaskPayload(ctx, &mcp.TaskIDParams{TaskID: id})
	if err != nil {
		t.Fatalf("the second tasks/result: %v", err)
	}
	if n := recv(t, asked, "the second elicitation"); n != 2 {
		t.Errorf("elicitation %d; want the second", n)
	}
	b, _ := json.Marshal(payload)
	var res mcp.CallToolResult
	if err := json.Unmarshal(b, &res); err != nil || textOf(&res) != `answer: "second", confident: true` {
		t.Fatalf("tasks/result = %s, %v", b, err)
	}
}
