package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/generated/autohand"
)

// wait is a request of the agent waiting for the client's answer.
type wait struct {
	kind   string // permission, directory, step or mcp
	acked  chan struct{}
	answer chan answer
}

type answer struct {
	ok   bool
	text string
}

var (
	errAckTimeout      = errors.New("not acknowledged in time")
	errResponseTimeout = errors.New("not answered in time")
)

// register records a wait under a fresh id.
func (a *agent) register(kind string) (string, *wait) {
	w := &wait{kind: kind, acked: make(chan struct{}), answer: make(chan answer, 1)}
	a.mu.Lock()
	defer a.mu.Unlock()
	id := a.nextID(map[string]string{"permission": "perm", "directory": "dir", "step": "step", "mcp": "mcp"}[kind])
	a.waits[id] = w
	return id, w
}

// await waits for the answer to w. With ack, the client must first
// acknowledge within the ack timeout; the answer then has the response
// timeout. The wait is dropped however it ends.
func (a *agent) await(ctx context.Context, id string, w *wait, ack bool) (answer, error) {
	defer func() {
		a.mu.Lock()
		delete(a.waits, id)
		a.mu.Unlock()
	}()
	if ack {
		tm := time.NewTimer(a.cfg.ackTimeout)
		defer tm.Stop()
		select {
		case ans := <-w.answer:
			return ans, nil
		case <-w.acked:
		case <-tm.C:
			return answer{}, errAckTimeout
		case <-ctx.Done():
			return answer{}, ctx.Err()
		}
	}
	tm := time.NewTimer(a.cfg.responseTimeout)
	defer tm.Stop()
	select {
	case ans := <-w.answer:
		return ans, nil
	case <-tm.C:
		return answer{}, errResponseTimeout
	case <-ctx.Done():
		return answer{}, ctx.Err()
	}
}

// timedOut reports a request the client left unanswered.
func (a *agent) timedOut(what, id string, err error) {
	a.note(a.client.Error(a.ctx, &autohand.ErrorParams{
		Code: autohand.CodeTimeout, Message: fmt.Sprintf("%s %s %v; denied", what, id, err),
		Recoverable: true, Timestamp: now(),
	}))
}

// askPermission asks the client to allow a tool call.
func (a *agent) askPermission(ctx context.Context, tool, desc string, pc *autohand.PermissionContext) bool {
	id, w := a.register("permission")
	a.mu.Lock()
	a.status = autohand.AgentStatusWaitingPermission
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		if a.turn != nil {
			a.status = autohand.AgentStatusProcessing
		}
		a.mu.Unlock()
	}()
	a.note(a.client.HookPermissionRequest(a.ctx, &autohand.HookPermissionRequestParams{
		Tool: tool, Path: pc.Path, Command: pc.Command, Timestamp: now(),
	}))
	a.note(a.client.PermissionRequest(a.ctx, &autohand.PermissionRequestParams{
		RequestID: id, Tool: tool, Description: desc, Context: pc, Timestamp: now(),
		Options: []autohand.PermissionDecision{
			autohand.PermissionDecisionAllowOnce, autohand.PermissionDecisionDenyOnce,
			autohand.PermissionDecisionAllowSession, autohand.PermissionDecisionAlternative,
		},
	}))
	ans, err := a.await(ctx, id, w, true)
	if err != nil && ctx.Err() == nil {
		a.timedOut("permission request", id, err)
	}
	return err == nil && ans.ok
}

// askDirectory asks the client to let the agent work in dir.
func (a *agent) askDirectory(ctx context.Context, dir string) bool {
	id, w := a.register("directory")
	a.note(a.client.DirectoryAccessRequest(a.ctx, &autohand.DirectoryAccessRequestParams{
		RequestID: id, Path: dir, Reason: "the prompt mentions a file outside the workspace", Timestamp: now(),
	}))
	ans, err := a.await(ctx, id, w, true)
	if err != nil && ctx.Err() == nil {
		a.timedOut("directory access request", id, err)
	}
	return err == nil && ans.ok
}

func outside(workspace, file string) bool {
	if !filepath.IsAbs(file) {
		return false
	}
	rel, err := filepath.Rel(workspace, file)
	return err != nil || strings.HasPrefix(rel, "..")
}

// toolStep runs write_file behind a permission prompt and a change preview.
func (a *agent) toolStep(ctx context.Context, t *turn, s *streamer, p *autohand.PromptParams) {
	c, bg := a.client, a.ctx
	s.say("I will add hello.txt for this request.", "The user asked: "+p.Message)
	if ctx.Err() != nil {
		return
	}
	body := "Hello from Autohand: " + p.Message + "\n"
	call := autohand.ToolCall{ID: a.id("call"), Name: "write_file", Args: rawArgs("path", "hello.txt", "content", body)}
	t.calls = append(t.calls, call)
	toolID := a.id("tool")
	started := time.Now()
	a.note(c.HookPreTool(bg, &autohand.HookPreToolParams{ToolID: toolID, ToolName: call.Name, Args: call.Args, Timestamp: now()}))
	a.note(c.ToolStart(bg, &autohand.ToolStartParams{ToolID: toolID, ToolName: call.Name, Args: call.Args, Timestamp: now()}))

	a.mu.Lock()
	free := a.allowedWithoutAsking(call.Name)
	a.mu.Unlock()
	allowed := free || a.askPermission(ctx, call.Name, "Write hello.txt", &autohand.PermissionContext{Path: "hello.txt"})
	var result string
	switch {
	case ctx.Err() != nil:
		result = "aborted"
		a.note(c.ToolEnd(bg, &autohand.ToolEndParams{ToolID: toolID, ToolName: call.Name, Error: result, Timestamp: now()}))
	case !allowed:
		result = "Permission denied"
		a.note(c.Error(bg, &autohand.ErrorParams{Code: autohand.CodePermissionDenied, Message: "permission denied: " + call.Name, Recoverable: true, Timestamp: now()}))
		a.note(c.ToolEnd(bg, &autohand.ToolEndParams{ToolID: toolID, ToolName: call.Name, Error: result, Timestamp: now()}))
	default:
		a.note(c.ToolUpdate(bg, &autohand.ToolUpdateParams{ToolID: toolID, Output: "preparing hello.txt\n", Stream: autohand.ToolStreamStdout, Timestamp: now()}))
		applied, total := a.previewChanges(ctx, t, toolID, call.Name, body)
		for _, ch := range applied {
			a.note(c.HookFileModified(bg, &autohand.HookFileModifiedParams{FilePath: ch.FilePath, ChangeType: ch.ChangeType, ToolID: toolID, Timestamp: now()}))
		}
		result = fmt.Sprintf("applied %d of %d changes", len(applied), total)
		if ctx.Err() != nil {
			result = "aborted"
			a.note(c.ToolEnd(bg, &autohand.ToolEndParams{ToolID: toolID, ToolName: call.Name, Error: result, Timestamp: now()}))
			break
		}
		a.note(c.ToolUpdate(bg, &autohand.ToolUpdateParams{ToolID: toolID, Output: result + "\n", Stream: autohand.ToolStreamStdout, Timestamp: now()}))
		a.note(c.ToolEnd(bg, &autohand.ToolEndParams{ToolID: toolID, ToolName: call.Name, Success: true, Output: result, Timestamp: now()}))
	}
	t.results = append(t.results, result)
	ok := result != "aborted" && result != "Permission denied"
	a.note(c.HookPostTool(bg, &autohand.HookPostToolParams{
		ToolID: toolID, ToolName: call.Name, Success: ok, Duration: time.Since(started).Milliseconds(), Output: result, Timestamp: now(),
	}))
	if p.StopWhen != nil && ctx.Err() == nil {
		a.stepEnd(ctx, t, p.Message)
	}
}

// stepEnd asks the client whether to stop after the tool step.
func (a *agent) stepEnd(ctx context.Context, t *turn, thought string) {
	id, w := a.register("step")
	results := make([]any, len(t.results))
	for i, r := range t.results {
		results[i] = r
	}
	a.note(a.client.StepEnd(a.ctx, &autohand.StepEndParams{
		StepID: id, Step: autohand.StepEndParamsStep{StepNumber: 1, Thought: thought, ToolCalls: t.calls, ToolResults: rawList(results)},
		Timestamp: now(),
	}))
	ans, err := a.await(ctx, id, w, false)
	t.stop = err == nil && ans.ok
}
