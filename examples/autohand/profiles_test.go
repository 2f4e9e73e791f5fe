package autohand_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// answerParams is a valid answer envelope asking for a summary and a count.
func answerParams() *autohand.AnswerParams {
	return &autohand.AnswerParams{
		PolicyHash: strings.Repeat("ab", 32),
		Artifacts: []autohand.AnswerParamsArtifactsItem{
			{ID: "a1", Class: autohand.ArtifactClassCode, Content: "func main() {}"},
			{ID: "a2", Class: autohand.ArtifactClassCredential, Content: "secret"},
		},
		OutputSchema: autohand.AnswerParamsOutputSchema{
			Properties: map[string]json.RawMessage{"summary": json.RawMessage(`{"type":"string"}`), "count": json.RawMessage(`{"type":"integer"}`)},
			Required:   []string{"summary", "count"},
		},
	}
}

// TestAnswerOnlyProfile covers Blueprint's answer-only profile and its errors.
func TestAnswerOnlyProfile(t *testing.T) {
	s := start(t, jsonrpc.Options{}, "-profile", "answer-only")
	ctx := s.ctx
	ri, err := s.agent.RuntimeInspect(ctx)
	ok(t, err)
	if ri.AnswerContractVersion != 1 || !ri.AnswerOnly || ri.ToolsEnabled || ri.PermissionMode != "restricted" ||
		ri.Authentication != autohand.RuntimeInspectResultAuthenticationConfigured || len(ri.CliIdentity.Artifacts) != 1 || len(ri.CliIdentity.IdentityHash) != 64 {
		t.Fatalf("runtimeInspect = %+v", ri)
	}
	ans, err := s.agent.Answer(ctx, answerParams())
	ok(t, err)
	if string(ans.Result) != `{"count":1,"summary":"func main() {}"}` || ans.ContractVersion != 1 || ans.ProviderID != "scripted" {
		t.Fatalf("answer = %+v (%s)", ans, ans.Result)
	}
	bad := answerParams()
	bad.PolicyHash = "ABC"
	_, err = s.agent.Answer(ctx, bad)
	wantErr(t, err, autohand.ErrAnswerContractInvalid)
	odd := answerParams()
	odd.OutputSchema.Properties["summary"] = json.RawMessage(`{"type":"date"}`)
	_, err = s.agent.Answer(ctx, odd)
	wantErr(t, err, autohand.ErrOutputInvalid)
	big := answerParams()
	big.Artifacts[0].Content = strings.Repeat("x", 3000)
	for i := 0; i < 30; i++ {
		name := "p" + strings.Repeat("x", i)
		big.OutputSchema.Properties[name] = json.RawMessage(`{"type":"string"}`)
		big.OutputSchema.Required = append(big.OutputSchema.Required, name)
	}
	_, err = s.agent.Answer(ctx, big)
	wantErr(t, err, autohand.ErrOutputLimitExceeded)

	// Anything else ends the session with ProfileViolation.
	_, err = s.agent.GetState(ctx)
	wantErr(t, err, autohand.ErrProfileViolation)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || !strings.Contains(string(rpcErr.Data), `"kind":"profile_violation"`) {
		t.Fatalf("violation = %#v", err)
	}
	select {
	case <-s.conn.Done():
	case <-s.ctx.Done():
		t.Fatal("the agent kept the session after a violation")
	}
}

// TestAnswerBlocked covers the answer errors of a signed-out agent and of a
// hosted model.
func TestAnswerBlocked(t *testing.T) {
	s := start(t, jsonrpc.Options{}, "-profile", "answer-only", "-account", "")
	_, err := s.agent.Answer(s.ctx, answerParams())
	wantErr(t, err, autohand.ErrAuthenticationRequired)
	ri, err := s.agent.RuntimeInspect(s.ctx)
	ok(t, err)
	if ri.Authentication != autohand.RuntimeInspectResultAuthenticationMissing {
		t.Fatalf("authentication = %s", ri.Authentication)
	}
	h := start(t, jsonrpc.Options{}, "-profile", "answer-only", "-inference", "hosted")
	_, err = h.agent.Answer(h.ctx, answerParams())
	wantErr(t, err, autohand.ErrInferenceDestinationBlocked)
	ri, err = h.agent.RuntimeInspect(h.ctx)
	ok(t, err)
	if hosted := ri.InferenceDestination.Hosted; hosted == nil || hosted.Provider != "scripted" {
		t.Fatalf("destination = %+v", ri.InferenceDestination)
	}
}

// TestSetupOnlyProfile runs a device authorization to the end, and a
// cancelled one.
func TestSetupOnlyProfile(t *testing.T) {
	s := start(t, jsonrpc.Options{}, "-profile", "setup-only")
	ctx := s.ctx
	b, err := s.agent.LoginBegin(ctx, &autohand.LoginBeginParams{})
	ok(t, err)
	if len(b.SessionID) != 32 || !strings.HasSuffix(b.VerificationURIComplete, b.UserCode) {
		t.Fatalf("begin = %+v", b)
	}
	var statuses []string
	for i := 0; i < 2; i++ {
		p, err := s.agent.LoginPoll(ctx, &autohand.LoginSession{SessionID: b.SessionID})
		ok(t, err)
		statuses = append(statuses, string(p.Status))
	}
	unknown, err := s.agent.LoginPoll(ctx, &autohand.LoginSession{SessionID: "0"})
	ok(t, err)
	if strings.Join(statuses, ",") != "pending,authorized" || unknown.Status != autohand.LoginPollResultStatusFailed || unknown.Problem == nil {
		t.Fatalf("polls = %v, unknown = %+v", statuses, unknown)
	}
	b2, err := s.agent.LoginBegin(ctx, &autohand.LoginBeginParams{})
	ok(t, err)
	c, err := s.agent.LoginCancel(ctx, &autohand.LoginSession{SessionID: b2.SessionID})
	ok(t, err)
	p, err := s.agent.LoginPoll(ctx, &autohand.LoginSession{SessionID: b2.SessionID})
	ok(t, err)
	if c.Status != autohand.LoginCancelResultStatusCancelled || p.Status != autohand.LoginPollResultStatusCancelled {
		t.Fatalf("cancel = %+v, poll = %+v", c, p)
	}
	_, err = s.agent.Answer(ctx, answerParams())
	wantErr(t, err, autohand.ErrProfileViolation)
}

// TestGeneralProfileRefusals checks the standard errors of the general agent.
func TestGeneralProfileRefusals(t *testing.T) {
	s := start(t, jsonrpc.Options{})
	_, err := s.agent.RuntimeInspect(s.ctx)
	wantErr(t, err, jsonrpc.ErrMethodNotFound)
	err = s.conn.Call(s.ctx, "autohand.bogus", nil, nil)
	wantErr(t, err, jsonrpc.ErrMethodNotFound)
	err = s.conn.Call(s.ctx, autohand.MethodPermissionResponse, map[string]any{"requestId": 7}, nil)
	wantErr(t, err, jsonrpc.ErrInvalidParams)
}

// TestShowcaseAndExit receives every remaining notification, then ends the
// session with /exit.
func TestShowcaseAndExit(t *testing.T) {
	s := start(t, jsonrpc.Options{})
	_, err := s.agent.Prompt(s.ctx, &autohand.PromptParams{Message: "/showcase"})
	ok(t, err)
	s.next(autohand.MethodTurnEnd, 0)
	for _, m := range []string{
		autohand.MethodHookRateLimit, autohand.MethodHookSessionError, autohand.MethodHookSubagentStop,
		autohand.MethodHookNotification, autohand.MethodHookContextWarning, autohand.MethodHookContextCritical,
		autohand.MethodHookContextOverflow, autohand.MethodHookContextCompacted, autohand.MethodPipeOutput,
		autohand.MethodPipeError, autohand.MethodPipeComplete, autohand.MethodScheduleTriggered,
	} {
		if len(s.all(m, 0)) != 1 {
			t.Errorf("no %s", m)
		}
	}
	rl := decode[autohand.HookRateLimitParams](t, s.next(autohand.MethodHookRateLimit, 0))
	if *rl.RetryAfterMs != 1000 || *rl.HTTPStatus != 429 {
		t.Fatalf("rateLimit = %+v", rl)
	}

	from := s.mark()
	_, err = s.agent.Prompt(s.ctx, &autohand.PromptParams{Message: "/exit"})
	if err != nil && !errors.Is(err, jsonrpc.ErrClosed) {
		t.Fatalf("exit: %v", err)
	}
	end := decode[autohand.AgentEndParams](t, s.next(autohand.MethodAgentEnd, from))
	se := decode[autohand.HookSessionEndParams](t, s.next(autohand.MethodHookSessionEnd, from))
	if end.Reason != autohand.AgentEndParamsReasonCompleted || end.SessionID != "session_1" || se.Reason != autohand.HookSessionEndParamsReasonQuit {
		t.Fatalf("agentEnd = %+v, sessionEnd = %+v", end, se)
	}
	select {
	case <-s.conn.Done():
	case <-s.ctx.Done():
		t.Fatal("the agent did not close the connection")
	}
}

// TestClientBinary runs the client example against the agent example: the
// client spawns the agent and answers its requests from its flags.
func TestClientBinary(t *testing.T) {
	run := func(args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command(clientBin, append(args, "--", agentBin, "-delay", "1ms", "-workspace", "/work/app", "-ack-timeout", "2s")...)
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr, cmd.Stdin = &out, &stderr, strings.NewReader("y\n")
		err := cmd.Run()
		if stderr.Len() > 0 {
			t.Logf("client stderr: %s", stderr.String())
		}
		return out.String(), err
	}
	out, err := run("-prompt", "Add a greeting", "-permission", "ask", "-changes", "accept", "-state", "-mcp-tool", "echo")
	ok(t, err)
	for _, want := range []string{
		"[agentStart]", "I will add hello.txt", "Allow write_file: Write hello.txt? [y/N]",
		"[client] batch_1: 2 applied, 0 skipped", `"reason":"completed"`, "state: idle", "message m_3 tool: applied 2 of 2 changes",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, err = run("-prompt", "/mcp echo", "-mcp-tool", "echo", "-json")
	ok(t, err)
	if !strings.Contains(out, `autohand.mcp.invokeRequest {"requestId":"mcp_1"`) || !strings.Contains(out, `returned: {\"workspace\":\"/work/app\"}`) {
		t.Errorf("MCP run output:\n%s", out)
	}
	out, err = run("-prompt", "Add a greeting", "-permission", "deny", "-stop-after-step")
	ok(t, err)
	if !strings.Contains(out, `"code":-32001`) || !strings.Contains(out, `"reason":"stop_condition"`) {
		t.Errorf("denied run output:\n%s", out)
	}
	out, err = run("-prompt", "Add a greeting", "-permission", "ignore", "-abort-after", "50ms")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(out, `"code":-32004`) || !strings.Contains(out, `"reason":"aborted"`) {
		t.Errorf("aborted run: err = %v, output:\n%s", err, out)
	}
	if _, err := run(); err == nil {
		t.Error("client without -prompt succeeded")
	}
}
