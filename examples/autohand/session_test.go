package autohand_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// runTurn plays one turn, allowing and accepting everything.
func runTurn(t *testing.T, s *session, msg string) {
	t.Helper()
	from := s.mark()
	_, err := s.agent.Prompt(s.ctx, &autohand.PromptParams{Message: msg})
	ok(t, err)
	p := decode[autohand.PermissionRequestParams](t, s.next(autohand.MethodPermissionRequest, from))
	_, err = s.agent.PermissionResponse(s.ctx, &autohand.PermissionResponseParams{RequestID: p.RequestID, Decision: autohand.PermissionDecisionAllowOnce})
	ok(t, err)
	b := decode[autohand.ChangesBatchEndParams](t, s.next(autohand.MethodChangesBatchEnd, from))
	_, err = s.agent.ChangesDecision(s.ctx, &autohand.ChangesDecisionParams{BatchID: b.BatchID, Action: autohand.ChangesDecisionParamsActionAcceptAll})
	ok(t, err)
	s.next(autohand.MethodTurnEnd, from)
}

// TestSessionHistory resets, lists, loads and re-attaches sessions.
func TestSessionHistory(t *testing.T) {
	s := start(t, jsonrpc.Options{})
	ctx := s.ctx
	runTurn(t, s, "First task")
	from := s.mark()
	r, err := s.agent.Reset(ctx)
	ok(t, err)
	if r.SessionID != "session_2" {
		t.Fatalf("reset = %+v", r)
	}
	end := decode[autohand.HookSessionEndParams](t, s.next(autohand.MethodHookSessionEnd, from))
	as := decode[autohand.AgentStartParams](t, s.next(autohand.MethodAgentStart, from))
	ss := decode[autohand.HookSessionStartParams](t, s.next(autohand.MethodHookSessionStart, from))
	if end.Reason != autohand.HookSessionEndParamsReasonClear || as.SessionID != "session_2" || ss.SessionType != autohand.HookSessionStartParamsSessionTypeClear {
		t.Fatalf("reset events: %+v %+v %+v", end, as, ss)
	}
	st, err := s.agent.GetState(ctx)
	ok(t, err)
	if *st.SessionID != "session_2" || st.MessageCount != 0 {
		t.Fatalf("state after reset = %+v", st)
	}

	h, err := s.agent.GetHistory(ctx, &autohand.GetHistoryParams{Page: ptr.To(int64(1)), PageSize: ptr.To(int64(5))})
	ok(t, err)
	if h.TotalItems != 1 || h.TotalPages != 1 || len(h.Sessions) != 1 || h.Sessions[0].SessionID != "session_1" ||
		h.Sessions[0].MessageCount != 3 || h.Sessions[0].Status != autohand.HistoryEntryStatusCompleted || h.Sessions[0].ProjectName != "app" {
		t.Fatalf("history = %+v", h)
	}
	_, err = s.agent.GetHistory(ctx, &autohand.GetHistoryParams{Page: ptr.To(int64(0))})
	wantErr(t, err, jsonrpc.ErrInvalidParams)
	gs, err := s.agent.GetSession(ctx, &autohand.GetSessionParams{SessionID: "session_1"})
	ok(t, err)
	if !gs.Success || len(gs.Messages) != 3 || gs.Summary != "First task" || gs.WorkspaceRoot != "/work/app" {
		t.Fatalf("getSession = %+v", gs)
	}
	gs, err = s.agent.GetSession(ctx, &autohand.GetSessionParams{SessionID: "nope"})
	ok(t, err)
	if gs.Success || gs.Error == "" {
		t.Fatalf("getSession of an unknown session = %+v", gs)
	}
	at, err := s.agent.SessionAttach(ctx, &autohand.SessionAttachParams{SessionID: "session_1"})
	ok(t, err)
	if !at.Success || at.SessionID != "session_1" || *at.MessageCount != 3 {
		t.Fatalf("attach = %+v", at)
	}
	msgs, err := s.agent.GetMessages(ctx, &autohand.GetMessagesParams{})
	ok(t, err)
	if len(msgs.Messages) != 3 || msgs.Messages[0].Content != "First task" {
		t.Fatalf("messages after attach = %+v", msgs)
	}
}

// TestSettings changes every setting and reads it back.
func TestSettings(t *testing.T) {
	s := start(t, jsonrpc.Options{})
	ctx := s.ctx
	r, err := s.agent.PlanModeSet(ctx, &autohand.PlanModeSetParams{Enabled: true})
	ok(t, err)
	mc := decode[autohand.ModeChangeParams](t, s.next(autohand.MethodModeChange, 0))
	if !r.Success || mc.Mode != "plan" || string(mc.Value) != "true" {
		t.Fatalf("planModeSet = %+v, modeChange = %+v", r, mc)
	}
	//lint:ignore SA1019 the deprecated alias is still part of the protocol and must keep working
	y, err := s.agent.YoloSetCompat(ctx, &autohand.YoloAllowance{Pattern: "read_*"})
	ok(t, err)
	if !y.Success || y.ExpiresIn != nil {
		t.Fatalf("yolo.set = %+v", y)
	}
	m, err := s.agent.ModelSet(ctx, &autohand.ModelSetParams{Model: "moa"})
	ok(t, err)
	st, err := s.agent.GetState(ctx)
	ok(t, err)
	if m.CurrentModel != "moa" || st.Model != "moa" || st.AuthenticatedUser.Email != "dev@example.com" {
		t.Fatalf("modelSet = %+v, state = %+v", m, st)
	}
	m, err = s.agent.ModelSet(ctx, &autohand.ModelSetParams{})
	ok(t, err)
	if m.CurrentModel != "fantail" {
		t.Fatalf("default model = %s", m.CurrentModel)
	}
	mt, err := s.agent.MaxThinkingTokensSet(ctx, &autohand.MaxThinkingTokensSetParams{MaxThinkingTokens: ptr.To(int64(2048))})
	ok(t, err)
	if *mt.CurrentMaxThinkingTokens != 2048 {
		t.Fatalf("maxThinkingTokensSet = %+v", mt)
	}
	mt, err = s.agent.MaxThinkingTokensSet(ctx, &autohand.MaxThinkingTokensSetParams{})
	ok(t, err)
	if mt.CurrentMaxThinkingTokens != nil {
		t.Fatalf("unlimited thinking = %+v", mt)
	}
	af, err := s.agent.ApplyFlagSettings(ctx, &autohand.ApplyFlagSettingsParams{Settings: map[string]json.RawMessage{
		"model": json.RawMessage(`"local/qwen"`), "plan": json.RawMessage(`false`), "bogus": json.RawMessage(`1`),
	}})
	ok(t, err)
	if !slices.Equal(af.AppliedSettings, []string{"model", "plan"}) {
		t.Fatalf("applyFlagSettings = %+v", af)
	}
	cc, err := s.agent.SetContextCompact(ctx, &autohand.SetContextCompactParams{Enabled: false})
	ok(t, err)
	if cc.Enabled {
		t.Fatal("setContextCompact kept compaction on")
	}
	sm, err := s.agent.GetSupportedModels(ctx)
	ok(t, err)
	var ids []string
	for _, m := range sm.Models {
		ids = append(ids, m.ID)
	}
	if !slices.Equal(ids, []string{"fantail", "moa", "local/qwen"}) {
		t.Fatalf("supported models = %v", ids)
	}
	cmds, err := s.agent.GetSupportedCommands(ctx)
	ok(t, err)
	if !slices.Contains(cmds.Commands, "/showcase") {
		t.Fatalf("commands = %v", cmds.Commands)
	}
	tr, err := s.agent.GetToolsRegistry(ctx)
	ok(t, err)
	if len(tr.Tools) != 2 || string(tr.Tools[0]["name"]) != `"write_file"` || len(tr.Diagnostics) != 0 {
		t.Fatalf("tools registry = %+v", tr)
	}
	cu, err := s.agent.GetContextUsage(ctx)
	ok(t, err)
	if cu.Total != cu.Messages+1200 || *cu.ContextWindow != 200000 || cu.IsWarning {
		t.Fatalf("context usage = %+v", cu)
	}
	rp, err := s.agent.ReloadPlugins(ctx)
	ok(t, err)
	acct, err := s.agent.GetAccountInfo(ctx)
	ok(t, err)
	if !rp.Success || acct.Email != "dev@example.com" {
		t.Fatalf("reloadPlugins = %+v, account = %+v", rp, acct)
	}
}
