package autohand_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// TestTurn runs the whole scripted turn: directory access, permission,
// change batch and step decision, each answered by the client, and checks
// the stream, its order and what getState and getMessages make of it.
func TestTurn(t *testing.T) {
	s := start(t, jsonrpc.Options{}, "-keepalive", "5ms")
	ctx := s.ctx
	as := decode[autohand.AgentStartParams](t, s.next(autohand.MethodAgentStart, 0))
	if as.SessionID != "session_1" || as.Model != "fantail" || as.Workspace != "/work/app" || as.ContextPercent == nil {
		t.Fatalf("agentStart = %+v", as)
	}
	s.next(autohand.MethodHookSessionStart, 0)
	st, err := s.agent.GetState(ctx)
	ok(t, err)
	if st.Status != autohand.AgentStatusIdle || st.SessionID == nil || *st.SessionID != "session_1" || st.MessageCount != 0 {
		t.Fatalf("state before = %+v", st)
	}

	_, err = s.agent.Prompt(ctx, &autohand.PromptParams{Message: " "})
	wantErr(t, err, jsonrpc.ErrInvalidParams)
	from := s.mark()
	res, err := s.agent.Prompt(ctx, &autohand.PromptParams{
		Message: "Add a greeting",
		Context: &autohand.PromptParamsContext{
			Files:     []string{"main.go", "/elsewhere/notes.md"},
			Selection: &autohand.Selection{File: "main.go", StartLine: 1, EndLine: 1, Text: "package main"},
		},
		Images:        []autohand.ImageAttachment{{Data: "aGk=", MimeType: autohand.ImageMimeTypeImagePng, Filename: "hi.png"}},
		ThinkingLevel: autohand.ThinkingLevelNormal,
		StopWhen:      &autohand.PromptParamsStopWhen{},
	})
	ok(t, err)
	if !res.Success {
		t.Fatal("prompt not accepted")
	}
	_, err = s.agent.Prompt(ctx, &autohand.PromptParams{Message: "again"})
	wantErr(t, err, autohand.ErrAgentBusy)
	_, err = s.agent.Reset(ctx)
	wantErr(t, err, autohand.ErrAgentBusy)

	// The prompt mentions a file outside the workspace.
	dir := decode[autohand.DirectoryAccessRequestParams](t, s.next(autohand.MethodDirectoryAccessRequest, from))
	if dir.Path != "/elsewhere/notes.md" {
		t.Fatalf("directory request = %+v", dir)
	}
	_, err = s.agent.DirectoryAccessAcknowledged(ctx, &autohand.DirectoryAccessAcknowledgedParams{RequestID: dir.RequestID})
	ok(t, err)
	r, err := s.agent.DirectoryAccessResponse(ctx, &autohand.DirectoryAccessResponseParams{RequestID: dir.RequestID, Granted: true})
	ok(t, err)
	if !r.Success {
		t.Fatal("directory response refused")
	}

	// The tool asks for permission; the agent waits in waiting_permission.
	perm := decode[autohand.PermissionRequestParams](t, s.next(autohand.MethodPermissionRequest, from))
	if perm.Tool != "write_file" || perm.Context == nil || perm.Context.Path != "hello.txt" || !slices.Contains(perm.Options, autohand.PermissionDecisionAllowOnce) {
		t.Fatalf("permission request = %+v", perm)
	}
	st, err = s.agent.GetState(ctx)
	ok(t, err)
	if st.Status != autohand.AgentStatusWaitingPermission {
		t.Fatalf("status while asking = %s", st.Status)
	}
	s.next(autohand.MethodPing, from) // the keepalive runs during the turn
	_, err = s.agent.PermissionResponse(ctx, &autohand.PermissionResponseParams{RequestID: perm.RequestID})
	wantErr(t, err, jsonrpc.ErrInvalidParams)
	_, err = s.agent.PermissionAcknowledged(ctx, &autohand.PermissionAcknowledgedParams{RequestID: perm.RequestID})
	ok(t, err)
	_, err = s.agent.PermissionResponse(ctx, &autohand.PermissionResponseParams{RequestID: perm.RequestID, Decision: autohand.PermissionDecisionAllowOnce})
	ok(t, err)
	_, err = s.agent.PermissionResponse(ctx, &autohand.PermissionResponseParams{RequestID: perm.RequestID, Allowed: ptr.To(true)})
	wantErr(t, err, autohand.ErrExecution) // already answered

	// The change batch: apply the first change only.
	batchEnd := decode[autohand.ChangesBatchEndParams](t, s.next(autohand.MethodChangesBatchEnd, from))
	updates := s.all(autohand.MethodChangesBatchUpdate, from)
	if batchEnd.ChangeCount != 2 || len(updates) != 2 {
		t.Fatalf("batch end = %+v with %d updates", batchEnd, len(updates))
	}
	first := decode[autohand.ChangesBatchUpdateParams](t, updates[0]).Change
	if first.FilePath != "hello.txt" || first.ChangeType != autohand.ChangeTypeCreate || !strings.Contains(first.ProposedContent, "Add a greeting") {
		t.Fatalf("first change = %+v", first)
	}
	// As the CLI, a batch it does not hold is answered success false.
	unknown, err := s.agent.ChangesDecision(ctx, &autohand.ChangesDecisionParams{BatchID: "batch_99", Action: autohand.ChangesDecisionParamsActionAcceptAll})
	ok(t, err)
	if unknown.Success || len(unknown.Errors) != 1 || unknown.Errors[0].ChangeID != "unknown" {
		t.Fatalf("decision on an unknown batch = %+v", unknown)
	}
	dec, err := s.agent.ChangesDecision(ctx, &autohand.ChangesDecisionParams{
		BatchID: batchEnd.BatchID, Action: autohand.ChangesDecisionParamsActionAcceptSelected,
		SelectedChangeIDs: []string{first.ID, "chg_bogus"},
	})
	ok(t, err)
	if dec.Success || dec.AppliedCount != 1 || dec.SkippedCount != 1 || len(dec.Errors) != 1 || dec.Errors[0].ChangeID != "chg_bogus" {
		t.Fatalf("decision = %+v", dec)
	}

	// stopWhen host: the agent asks after the tool step; go on.
	step := decode[autohand.StepEndParams](t, s.next(autohand.MethodStepEnd, from))
	if step.Step.StepNumber != 1 || len(step.Step.ToolCalls) != 1 || len(step.Step.ToolResults) != 1 {
		t.Fatalf("step = %+v", step)
	}
	sd, err := s.agent.StepDecision(ctx, &autohand.StepDecisionParams{StepID: "step_99", Stop: true})
	ok(t, err)
	if sd.Success {
		t.Fatal("unknown step accepted")
	}
	sd, err = s.agent.StepDecision(ctx, &autohand.StepDecisionParams{StepID: step.StepID, Stop: false})
	ok(t, err)
	if !sd.Success {
		t.Fatal("step decision refused")
	}

	end := decode[autohand.TurnEndParams](t, s.next(autohand.MethodTurnEnd, from))
	if end.Reason != autohand.TurnEndReasonCompleted || *end.TokensUsed == 0 || end.DurationMs == nil {
		t.Fatalf("turnEnd = %+v", end)
	}
	want := []string{
		"hook.prePrompt", "turnStart", "directoryAccessRequest", "messageStart", "messageUpdate",
		"hook.preTool", "toolStart", "hook.permissionRequest", "permissionRequest", "toolUpdate",
		"changesBatchStart", "changesBatchUpdate", "changesBatchEnd", "hook.fileModified", "toolEnd",
		"hook.postTool", "stepEnd", "messageEnd", "hook.postResponse", "hook.stop", "turnEnd",
	}
	if got := s.methods()[from:]; !inOrder(got, want) {
		t.Fatalf("events out of order:\n got %v\nwant %v", got, want)
	}
	var text strings.Builder
	for _, ev := range s.all(autohand.MethodMessageUpdate, from) {
		text.WriteString(decode[autohand.MessageUpdateParams](t, ev).Delta)
	}
	msgEnd := decode[autohand.MessageEndParams](t, s.all(autohand.MethodMessageEnd, from)[0])
	if msgEnd.Content != text.String() || len(msgEnd.ToolCalls) != 1 || msgEnd.Aborted {
		t.Fatalf("messageEnd = %+v; streamed %q", msgEnd, text.String())
	}
	mod := decode[autohand.HookFileModifiedParams](t, s.all(autohand.MethodHookFileModified, from)[0])
	if len(s.all(autohand.MethodHookFileModified, from)) != 1 || mod.FilePath != "hello.txt" {
		t.Fatalf("fileModified = %+v", mod)
	}
	toolEnd := decode[autohand.ToolEndParams](t, s.all(autohand.MethodToolEnd, from)[0])
	if !toolEnd.Success || toolEnd.Output != "applied 1 of 2 changes" {
		t.Fatalf("toolEnd = %+v", toolEnd)
	}

	st, err = s.agent.GetState(ctx)
	ok(t, err)
	if st.Status != autohand.AgentStatusIdle || st.MessageCount != 3 || st.ContextPercent <= 0 {
		t.Fatalf("state after = %+v", st)
	}
	msgs, err := s.agent.GetMessages(ctx, &autohand.GetMessagesParams{})
	ok(t, err)
	roles := []autohand.MessageRole{}
	for _, m := range msgs.Messages {
		roles = append(roles, m.Role)
	}
	if !slices.Equal(roles, []autohand.MessageRole{autohand.MessageRoleUser, autohand.MessageRoleAssistant, autohand.MessageRoleTool}) ||
		msgs.Messages[0].Content != "Add a greeting" || msgs.Messages[1].Content != msgEnd.Content || len(msgs.Messages[1].ToolCalls) != 1 {
		t.Fatalf("messages = %+v", msgs.Messages)
	}
	last, err := s.agent.GetMessages(ctx, &autohand.GetMessagesParams{Limit: ptr.To(int64(1))})
	ok(t, err)
	if len(last.Messages) != 1 || last.Messages[0].Role != autohand.MessageRoleTool {
		t.Fatalf("last message = %+v", last.Messages)
	}
}

// inOrder reports whether want is a subsequence of got.
func inOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// TestAbortMidTurn aborts while the agent waits for permission: the turn
// ends as aborted with an Aborted (-32004) error notification, and the
// cleared permission request answers Aborted.
func TestAbortMidTurn(t *testing.T) {
	s := start(t, jsonrpc.Options{})
	ctx := s.ctx
	r, err := s.agent.Abort(ctx)
	ok(t, err)
	if r.Success {
		t.Fatal("abort without a turn succeeded")
	}
	_, err = s.agent.Prompt(ctx, &autohand.PromptParams{Message: "Add a greeting"})
	ok(t, err)
	perm := decode[autohand.PermissionRequestParams](t, s.next(autohand.MethodPermissionRequest, 0))
	r, err = s.agent.Abort(ctx)
	ok(t, err)
	if !r.Success {
		t.Fatal("abort refused")
	}
	end := decode[autohand.TurnEndParams](t, s.next(autohand.MethodTurnEnd, 0))
	if end.Reason != autohand.TurnEndReasonAborted {
		t.Fatalf("turnEnd reason = %s", end.Reason)
	}
	e := decode[autohand.ErrorParams](t, s.next(autohand.MethodError, 0))
	if autohand.CodeAborted != -32004 || e.Code != autohand.CodeAborted || !e.Recoverable {
		t.Fatalf("error notification = %+v", e)
	}
	me := decode[autohand.MessageEndParams](t, s.next(autohand.MethodMessageEnd, 0))
	if !me.Aborted {
		t.Fatalf("messageEnd = %+v", me)
	}
	te := decode[autohand.ToolEndParams](t, s.next(autohand.MethodToolEnd, 0))
	if te.Success {
		t.Fatalf("toolEnd = %+v", te)
	}
	_, err = s.agent.PermissionResponse(ctx, &autohand.PermissionResponseParams{RequestID: perm.RequestID, Allowed: ptr.To(true)})
	wantErr(t, err, autohand.ErrAborted)
	st, err := s.agent.GetState(ctx)
	ok(t, err)
	if st.Status != autohand.AgentStatusIdle {
		t.Fatalf("status after abort = %s", st.Status)
	}
}
