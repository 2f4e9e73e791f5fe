package autohand_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// TestBrowserSkillsLearn covers the browser handoff, skills and learn
// requests and the notifications they cause.
func TestBrowserSkillsLearn(t *testing.T) {
	s := start(t, jsonrpc.Options{})
	ctx := s.ctx
	latest, err := s.agent.BrowserHandoffAttachLatest(ctx)
	ok(t, err)
	if latest.Success {
		t.Fatal("attached without a handoff")
	}
	h, err := s.agent.BrowserHandoffCreate(ctx, &autohand.BrowserHandoffCreateParams{ExtensionID: "ext"})
	ok(t, err)
	if h.SessionID != "session_1" || !strings.HasSuffix(h.URL, h.Token) || h.ExpiresAt <= h.CreatedAt {
		t.Fatalf("handoff = %+v", h)
	}
	at, err := s.agent.BrowserHandoffAttach(ctx, &autohand.BrowserHandoffAttachParams{Token: h.Token})
	ok(t, err)
	bad, err := s.agent.BrowserHandoffAttach(ctx, &autohand.BrowserHandoffAttachParams{Token: "forged"})
	ok(t, err)
	latest, err = s.agent.BrowserHandoffAttachLatest(ctx)
	ok(t, err)
	if !at.Success || at.WorkspaceRoot != "/work/app" || bad.Success || !latest.Success {
		t.Fatalf("attach = %+v, forged = %+v, latest = %+v", at, bad, latest)
	}
	_, err = s.agent.BrowserHandoffAttach(ctx, &autohand.BrowserHandoffAttachParams{})
	wantErr(t, err, jsonrpc.ErrInvalidParams)
	caps, err := s.agent.BrowserCapabilitiesSet(ctx, &autohand.BrowserCapabilitiesSetParams{ProtocolVersion: 2, ExtensionVersion: "1.4.0", Tools: []string{"click", "read_page"}})
	ok(t, err)
	if !caps.Enabled || caps.ProtocolVersion != autohand.BrowserCapabilitiesSetResultProtocolVersionN2 || len(caps.Tools) != 2 {
		t.Fatalf("capabilities = %+v", caps)
	}

	reg, err := s.agent.GetSkillsRegistry(ctx, &autohand.GetSkillsRegistryParams{ForceRefresh: true})
	ok(t, err)
	if !reg.Success || len(reg.Skills) != 3 || len(reg.Categories) != 3 {
		t.Fatalf("registry = %+v", reg)
	}
	from := s.mark()
	in, err := s.agent.InstallSkill(ctx, &autohand.SkillInstall{SkillName: "shell-runner", Scope: autohand.SkillScopeProject})
	ok(t, err)
	if !in.Success || in.Path != "/work/app/.autohand/skills/shell-runner" {
		t.Fatalf("install = %+v", in)
	}
	warn := decode[autohand.LearnSecurityWarningParams](t, s.next(autohand.MethodLearnSecurityWarning, from))
	done := decode[autohand.LearnInstallCompleteParams](t, s.next(autohand.MethodLearnInstallComplete, from))
	if warn.Skill != "shell-runner" || done.Skills[0] != "shell-runner" {
		t.Fatalf("warning = %+v, complete = %+v", warn, done)
	}
	again, err := s.agent.InstallSkill(ctx, &autohand.SkillInstall{SkillName: "shell-runner", Scope: autohand.SkillScopeUser})
	ok(t, err)
	forced, err := s.agent.InstallSkill(ctx, &autohand.SkillInstall{SkillName: "shell-runner", Scope: autohand.SkillScopeUser, Force: true})
	ok(t, err)
	missing, err := s.agent.InstallSkill(ctx, &autohand.SkillInstall{SkillName: "nope", Scope: autohand.SkillScopeUser})
	ok(t, err)
	if again.Success || !forced.Success || missing.Success || missing.Error == "" {
		t.Fatalf("again = %+v, forced = %+v, missing = %+v", again, forced, missing)
	}

	from = s.mark()
	rec, err := s.agent.LearnRecommend(ctx, &autohand.LearnRecommendParams{Deep: true})
	ok(t, err)
	if len(rec.Recommendations) != 2 || rec.ProjectSummary != "Project app" {
		t.Fatalf("recommend = %+v", rec)
	}
	up, err := s.agent.LearnUpdate(ctx)
	ok(t, err)
	if up.Unchanged != 1 || len(up.Results) != 1 {
		t.Fatalf("update = %+v", up)
	}
	gen, err := s.agent.LearnGenerate(ctx, &autohand.LearnGenerateParams{Scope: autohand.SkillScopeProject})
	ok(t, err)
	if gen.SkillName != "app-conventions" {
		t.Fatalf("generate = %+v", gen)
	}
	var statuses []string
	for _, ev := range s.count(autohand.MethodLearnProgress, from, 6) {
		statuses = append(statuses, string(decode[autohand.LearnProgressParams](t, ev).Status))
	}
	if strings.Join(statuses, ",") != "analyzing,loading-registry,evaluating,updating,analyzing,generating" {
		t.Fatalf("learn progress = %v", statuses)
	}
}

// TestMCP covers the MCP requests and an agent-to-editor tool call.
func TestMCP(t *testing.T) {
	s := start(t, jsonrpc.Options{})
	ctx := s.ctx
	servers, err := s.agent.McpListServers(ctx)
	ok(t, err)
	if len(servers.Servers) != 1 || servers.Servers[0].Name != "filesystem" || servers.Servers[0].Status != "connected" {
		t.Fatalf("servers = %+v", servers)
	}
	from := s.mark()
	_, err = s.agent.McpSetVscodeTools(ctx, &autohand.McpSetVscodeToolsParams{Tools: []autohand.McpSetVscodeToolsParamsToolsItem{{
		Name: "open_editors", Description: "Lists open editors", ServerName: "vscode",
		InputSchema: &autohand.McpSetVscodeToolsParamsToolsItemInputSchema{Properties: map[string]json.RawMessage{}},
	}}})
	ok(t, err)
	changed := decode[autohand.McpToolsChangedParams](t, s.next(autohand.MethodMcpToolsChanged, from))
	if len(changed.Tools) != 2 {
		t.Fatalf("toolsChanged = %+v", changed)
	}
	tools, err := s.agent.McpListTools(ctx, &autohand.McpListToolsParams{ServerName: "vscode"})
	ok(t, err)
	if len(tools.Tools) != 1 || tools.Tools[0].Name != "open_editors" {
		t.Fatalf("vscode tools = %+v", tools)
	}

	// The agent calls the editor's tool; the client answers.
	from = s.mark()
	_, err = s.agent.Prompt(ctx, &autohand.PromptParams{Message: "/mcp open_editors"})
	ok(t, err)
	inv := decode[autohand.McpInvokeRequestParams](t, s.next(autohand.MethodMcpInvokeRequest, from))
	if inv.ToolName != "open_editors" || string(inv.Args["workspace"]) != `"/work/app"` {
		t.Fatalf("invokeRequest = %+v", inv)
	}
	_, err = s.agent.McpInvokeResponse(ctx, &autohand.McpInvokeResponseParams{RequestID: "mcp_99", Success: true})
	wantErr(t, err, autohand.ErrExecution)
	_, err = s.agent.McpInvokeResponse(ctx, &autohand.McpInvokeResponseParams{RequestID: inv.RequestID, Success: true, Result: "main.go"})
	ok(t, err)
	me := decode[autohand.MessageEndParams](t, s.next(autohand.MethodMessageEnd, from))
	if !strings.Contains(me.Content, "returned: main.go") {
		t.Fatalf("reply = %q", me.Content)
	}
	s.next(autohand.MethodTurnEnd, from)

	cfgs, err := s.agent.McpGetServerConfigs(ctx)
	ok(t, err)
	if len(cfgs.Configs) != 1 || cfgs.Configs[0].Command != "mcp-filesystem" {
		t.Fatalf("configs = %+v", cfgs)
	}
	tg, err := s.agent.McpToggleServer(ctx, &autohand.McpToggleServerParams{ServerName: "filesystem", Enabled: false})
	ok(t, err)
	rc, err := s.agent.McpReconnectServer(ctx, &autohand.McpReconnectServerParams{ServerName: "filesystem"})
	ok(t, err)
	if tg.Status != autohand.McpToggleServerResultStatusDisabled || rc.Success || rc.Status != autohand.McpReconnectServerResultStatusDisconnected {
		t.Fatalf("toggle = %+v, reconnect = %+v", tg, rc)
	}
	_, err = s.agent.McpToggleServer(ctx, &autohand.McpToggleServerParams{ServerName: "nope", Enabled: true})
	wantErr(t, err, jsonrpc.ErrInvalidParams)
	set, err := s.agent.McpSetServers(ctx, &autohand.McpSetServersParams{Servers: map[string]map[string]json.RawMessage{
		"github": {"transport": json.RawMessage(`"http"`), "url": json.RawMessage(`"https://mcp.example.com"`)},
		"local":  {"command": json.RawMessage(`"mcp-local"`)},
	}})
	ok(t, err)
	rc, err = s.agent.McpReconnectServer(ctx, &autohand.McpReconnectServerParams{ServerName: "github"})
	ok(t, err)
	if strings.Join(set.ConfiguredServers, ",") != "github,local" || !rc.Success {
		t.Fatalf("setServers = %+v, reconnect = %+v", set, rc)
	}
	_, err = s.agent.McpSetServers(ctx, &autohand.McpSetServersParams{Servers: map[string]map[string]json.RawMessage{"bad": {"transport": json.RawMessage(`"pigeon"`)}}})
	wantErr(t, err, jsonrpc.ErrInvalidParams)
}

// TestAutomode runs the scripted auto-mode task, a failing one, and pauses,
// resumes and cancels a slow one.
func TestAutomode(t *testing.T) {
	s := start(t, jsonrpc.Options{})
	ctx := s.ctx
	st, err := s.agent.AutomodeStart(ctx, &autohand.AutomodeStartParams{Prompt: "Port the tests", CheckpointInterval: ptr.To(int64(2))})
	ok(t, err)
	notice := decode[autohand.AutomodeStartNotice](t, s.next(autohand.MethodAutomodeStart, 0))
	done := decode[autohand.AutomodeCompleteParams](t, s.next(autohand.MethodAutomodeComplete, 0))
	if notice.SessionID != st.SessionID || notice.MaxIterations != 50 || notice.Prompt != "Port the tests" {
		t.Fatalf("start notification = %+v", notice)
	}
	if !st.Success || done.SessionID != st.SessionID || done.Iterations != 3 {
		t.Fatalf("start = %+v, complete = %+v", st, done)
	}
	if n := len(s.all(autohand.MethodAutomodeIteration, 0)); n != 3 {
		t.Fatalf("%d iterations", n)
	}
	cp := decode[autohand.AutomodeCheckpointParams](t, s.next(autohand.MethodAutomodeCheckpoint, 0))
	status, err := s.agent.AutomodeStatus(ctx)
	ok(t, err)
	if cp.Iteration != 2 || status.Active || status.State.Status != autohand.AutomodeStatusResultStateStatusCompleted || status.State.LastCheckpoint.Commit != cp.Commit {
		t.Fatalf("checkpoint = %+v, status = %+v", cp, status)
	}
	log, err := s.agent.AutomodeGetLog(ctx, &autohand.AutomodeGetLogParams{Limit: ptr.To(int64(2))})
	ok(t, err)
	if len(log.Iterations) != 2 || log.Iterations[1].Iteration != 3 || log.Iterations[0].Checkpoint == nil {
		t.Fatalf("log = %+v", log)
	}
	from := s.mark()
	_, err = s.agent.AutomodeStart(ctx, &autohand.AutomodeStartParams{Prompt: "this will fail"})
	ok(t, err)
	if e := decode[autohand.AutomodeErrorParams](t, s.next(autohand.MethodAutomodeError, from)); e.Error == "" {
		t.Fatal("empty auto-mode error")
	}
	p, err := s.agent.AutomodePause(ctx)
	ok(t, err)
	if p.Success {
		t.Fatal("paused a failed loop")
	}

	// Iterations 5 s apart: the loop is still running for every call
	// below, however slow the machine (cancelling ends the wait).
	slow := start(t, jsonrpc.Options{}, "-delay", "5s")
	_, err = slow.agent.AutomodeStart(ctx, &autohand.AutomodeStartParams{Prompt: "Slow task"})
	ok(t, err)
	again, err := slow.agent.AutomodeStart(ctx, &autohand.AutomodeStartParams{Prompt: "Another"})
	ok(t, err)
	_, err = slow.agent.Prompt(ctx, &autohand.PromptParams{Message: "busy?"})
	wantErr(t, err, autohand.ErrAgentBusy)
	p, err = slow.agent.AutomodePause(ctx)
	ok(t, err)
	status, err = slow.agent.AutomodeStatus(ctx)
	ok(t, err)
	if again.Success || !p.Success || !status.Paused {
		t.Fatalf("again = %+v, pause = %+v, status = %+v", again, p, status)
	}
	r, err := slow.agent.AutomodeResume(ctx)
	ok(t, err)
	r2, err := slow.agent.AutomodeResume(ctx)
	ok(t, err)
	c, err := slow.agent.AutomodeCancel(ctx, &autohand.AutomodeCancelParams{Reason: "changed my mind"})
	ok(t, err)
	status, err = slow.agent.AutomodeStatus(ctx)
	ok(t, err)
	if !r.Success || r2.Success || !c.Success || status.Active || status.State.Status != autohand.AutomodeStatusResultStateStatusCancelled {
		t.Fatalf("resume = %+v / %+v, cancel = %+v, status = %+v", r, r2, c, status)
	}
	decode[autohand.AutomodeProgressNotice](t, slow.next(autohand.MethodAutomodePause, 0))
	decode[autohand.AutomodeProgressNotice](t, slow.next(autohand.MethodAutomodeResume, 0))
	if cn := decode[autohand.AutomodeCancelNotice](t, slow.next(autohand.MethodAutomodeCancel, 0)); cn.Reason != "changed my mind" {
		t.Fatalf("cancel notification = %+v", cn)
	}
}

// TestSetup runs the wizard, cancels it with abort, and refuses it during a turn.
func TestSetup(t *testing.T) {
	s := start(t, jsonrpc.Options{})
	ctx := s.ctx
	res, err := s.agent.Setup(ctx, &autohand.SetupParams{QuickSetup: true, SkipWelcome: true})
	ok(t, err)
	if !res.Success || strings.Join(res.SkippedSteps, ",") != "welcome,agents-file" || res.AgentsFileCreated {
		t.Fatalf("setup = %+v", res)
	}
	s.next(autohand.MethodSetupStarted, 0)
	sc := decode[autohand.SetupCompleteParams](t, s.next(autohand.MethodSetupComplete, 0))
	if n := len(s.all(autohand.MethodSetupStepComplete, 0)); n != 2 || len(s.all(autohand.MethodSetupStepStart, 0)) != 2 {
		t.Fatalf("%d steps completed", n)
	}
	if !sc.Success || sc.Provider != "autohandai" {
		t.Fatalf("setup complete = %+v", sc)
	}

	from := s.mark()
	_, err = s.agent.Prompt(ctx, &autohand.PromptParams{Message: "hold on"})
	ok(t, err)
	s.next(autohand.MethodPermissionRequest, from)
	res, err = s.agent.Setup(ctx, &autohand.SetupParams{})
	ok(t, err)
	if res.Success || res.Error == "" {
		t.Fatalf("setup during a turn = %+v", res)
	}
	s.next(autohand.MethodSetupError, from)
	_, err = s.agent.Abort(ctx)
	ok(t, err)
	s.next(autohand.MethodTurnEnd, from)

	slow := start(t, jsonrpc.Options{}, "-delay", "5s")
	got := make(chan *autohand.SetupResult, 1)
	go func() {
		r, err := slow.agent.Setup(context.Background(), &autohand.SetupParams{})
		if err != nil {
			t.Errorf("setup: %v", err)
		}
		got <- r
	}()
	slow.next(autohand.MethodSetupStepStart, 0)
	_, err = slow.agent.Abort(ctx)
	ok(t, err)
	select {
	case r := <-got:
		if r == nil || !r.Cancelled || r.Success {
			t.Fatalf("cancelled setup = %+v", r)
		}
	case <-ctx.Done():
		t.Fatal("setup did not end after abort")
	}
	if c := decode[autohand.SetupCancelledParams](t, slow.next(autohand.MethodSetupCancelled, 0)); c.Step != "welcome" {
		t.Fatalf("cancelled at %q", c.Step)
	}
}
