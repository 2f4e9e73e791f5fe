package autohand_test

import (
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// TestPermissionDeniedAndTimeouts covers the agent's side of the permission
// windows (scaled down from 30 s and one hour), a denial, and a yolo
// allowance that skips the prompt.
func TestPermissionDeniedAndTimeouts(t *testing.T) {
	// Each window that must close gets an agent of its own, where only
	// that window is short: a window the test answers in is never so
	// short that a loaded machine could close it first.
	unacked := start(t, jsonrpc.Options{}, "-ack-timeout", "100ms")
	unanswered := start(t, jsonrpc.Options{}, "-ack-timeout", wait.String(), "-response-timeout", "150ms")
	s := start(t, jsonrpc.Options{})
	ctx := s.ctx
	turn := func(s *session, answer func(*autohand.PermissionRequestParams)) (int, *autohand.ToolEndParams) {
		t.Helper()
		from := s.mark()
		_, err := s.agent.Prompt(s.ctx, &autohand.PromptParams{Message: "Add a greeting"})
		ok(t, err)
		if answer != nil {
			answer(decode[autohand.PermissionRequestParams](t, s.next(autohand.MethodPermissionRequest, from)))
		}
		s.next(autohand.MethodTurnEnd, from)
		return from, decode[autohand.ToolEndParams](t, s.next(autohand.MethodToolEnd, from))
	}
	codes := func(s *session, from int) []int64 {
		var cs []int64
		for _, ev := range s.all(autohand.MethodError, from) {
			cs = append(cs, decode[autohand.ErrorParams](t, ev).Code)
		}
		return cs
	}

	// Never acknowledged: Timeout (-32002), then denied (-32001).
	from, end := turn(unacked, func(*autohand.PermissionRequestParams) {})
	if autohand.CodeTimeout != -32002 || autohand.CodePermissionDenied != -32001 {
		t.Fatal("error codes differ from the IDL")
	}
	if c := codes(unacked, from); len(c) != 2 || c[0] != autohand.CodeTimeout || c[1] != autohand.CodePermissionDenied {
		t.Fatalf("error codes = %v", c)
	}
	if end.Success || end.Error != "Permission denied" {
		t.Fatalf("toolEnd = %+v", end)
	}

	// Acknowledged but never answered: the response window closes.
	from, end = turn(unanswered, func(p *autohand.PermissionRequestParams) {
		_, err := unanswered.agent.PermissionAcknowledged(unanswered.ctx, &autohand.PermissionAcknowledgedParams{RequestID: p.RequestID})
		ok(t, err)
	})
	if c := codes(unanswered, from); len(c) != 2 || c[0] != autohand.CodeTimeout || end.Success {
		t.Fatalf("error codes = %v, toolEnd = %+v", c, end)
	}

	// Denied by the user, with the older allowed flag.
	from, end = turn(s, func(p *autohand.PermissionRequestParams) {
		_, err := s.agent.PermissionResponse(ctx, &autohand.PermissionResponseParams{RequestID: p.RequestID, Allowed: ptr.To(false)})
		ok(t, err)
	})
	if c := codes(s, from); len(c) != 1 || c[0] != autohand.CodePermissionDenied || end.Success {
		t.Fatalf("error codes = %v, toolEnd = %+v", c, end)
	}
	post := decode[autohand.HookPostToolParams](t, s.next(autohand.MethodHookPostTool, from))
	if post.Success {
		t.Fatalf("postTool = %+v", post)
	}
	_, err := s.agent.PermissionAcknowledged(ctx, &autohand.PermissionAcknowledgedParams{RequestID: "perm_99"})
	wantErr(t, err, autohand.ErrExecution)

	// A yolo allowance skips the prompt; the batch is rejected.
	y, err := s.agent.YoloSet(ctx, &autohand.YoloAllowance{Pattern: "write_*", TimeoutSeconds: ptr.To(int64(60))})
	ok(t, err)
	if !y.Success || *y.ExpiresIn != 60 {
		t.Fatalf("yoloSet = %+v", y)
	}
	from = s.mark()
	_, err = s.agent.Prompt(ctx, &autohand.PromptParams{Message: "Again"})
	ok(t, err)
	b := decode[autohand.ChangesBatchEndParams](t, s.next(autohand.MethodChangesBatchEnd, from))
	dec, err := s.agent.ChangesDecision(ctx, &autohand.ChangesDecisionParams{BatchID: b.BatchID, Action: autohand.ChangesDecisionParamsActionRejectAll})
	ok(t, err)
	if !dec.Success || dec.AppliedCount != 0 || dec.SkippedCount != 2 {
		t.Fatalf("decision = %+v", dec)
	}
	s.next(autohand.MethodTurnEnd, from)
	if n := len(s.all(autohand.MethodPermissionRequest, from)); n != 0 {
		t.Fatalf("%d permission requests despite the allowance", n)
	}
	if n := len(s.all(autohand.MethodHookFileModified, from)); n != 0 {
		t.Fatalf("%d files modified after reject_all", n)
	}
	_, err = s.agent.YoloSet(ctx, &autohand.YoloAllowance{Pattern: "["})
	wantErr(t, err, jsonrpc.ErrInvalidParams)
}

// TestStopAfterStep denies a directory, lets the tool run without asking
// (bypassPermissions) and stops the turn at its step decision.
func TestStopAfterStep(t *testing.T) {
	s := start(t, jsonrpc.Options{})
	ctx := s.ctx
	pm, err := s.agent.PermissionModeSet(ctx, &autohand.PermissionModeSetParams{Mode: autohand.PermissionModeBypassPermissions})
	ok(t, err)
	if !pm.Success || pm.CurrentMode != "bypassPermissions" || pm.PreviousMode != "interactive" {
		t.Fatalf("permissionModeSet = %+v", pm)
	}
	from := s.mark()
	_, err = s.agent.Prompt(ctx, &autohand.PromptParams{
		Message: "Tidy up", Context: &autohand.PromptParamsContext{Files: []string{"/etc/hosts"}},
		StopWhen: &autohand.PromptParamsStopWhen{Mode: "host"},
	})
	ok(t, err)
	dir := decode[autohand.DirectoryAccessRequestParams](t, s.next(autohand.MethodDirectoryAccessRequest, from))
	_, err = s.agent.DirectoryAccessResponse(ctx, &autohand.DirectoryAccessResponseParams{RequestID: dir.RequestID, Granted: false})
	ok(t, err)
	_, err = s.agent.DirectoryAccessResponse(ctx, &autohand.DirectoryAccessResponseParams{RequestID: dir.RequestID, Granted: true})
	wantErr(t, err, autohand.ErrExecution)
	e := decode[autohand.ErrorParams](t, s.next(autohand.MethodError, from))
	if e.Code != autohand.CodePermissionDenied {
		t.Fatalf("error = %+v", e)
	}
	b := decode[autohand.ChangesBatchEndParams](t, s.next(autohand.MethodChangesBatchEnd, from))
	_, err = s.agent.ChangesDecision(ctx, &autohand.ChangesDecisionParams{BatchID: b.BatchID, Action: autohand.ChangesDecisionParamsActionAcceptAll})
	ok(t, err)
	step := decode[autohand.StepEndParams](t, s.next(autohand.MethodStepEnd, from))
	_, err = s.agent.StepDecision(ctx, &autohand.StepDecisionParams{StepID: step.StepID, Stop: true})
	ok(t, err)
	end := decode[autohand.TurnEndParams](t, s.next(autohand.MethodTurnEnd, from))
	if end.Reason != autohand.TurnEndReasonStopCondition {
		t.Fatalf("turnEnd reason = %s", end.Reason)
	}
	if n := len(s.all(autohand.MethodPermissionRequest, from)); n != 0 {
		t.Fatalf("%d permission requests in bypassPermissions mode", n)
	}
	if n := len(s.all(autohand.MethodHookFileModified, from)); n != 2 {
		t.Fatalf("%d files modified, want 2", n)
	}
	me := decode[autohand.MessageEndParams](t, s.next(autohand.MethodMessageEnd, from))
	if strings.HasSuffix(me.Content, "Done.") {
		t.Fatalf("the turn went on after stop: %q", me.Content)
	}
	mc := decode[autohand.ModeChangeParams](t, s.next(autohand.MethodModeChange, 0))
	if mc.Mode != "permission" || string(mc.Value) != `"bypassPermissions"` {
		t.Fatalf("modeChange = %+v", mc)
	}
}
