package main

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// turn is the running turn.
type turn struct {
	id      string
	cancel  context.CancelFunc
	aborted bool // set by Abort, under agent.mu
	stop    bool // the client stopped it after a step
	tokens  int64
	calls   []autohand.ToolCall
	results []string
}

// Prompt starts a turn and returns at once; the turn runs in the background.
func (a *agent) Prompt(ctx context.Context, p *autohand.PromptParams) (*autohand.SuccessResult, error) {
	if strings.TrimSpace(p.Message) == "" {
		return nil, jsonrpc.InvalidParams("message", "must not be empty")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.turn != nil || a.setupStop != nil || a.automode.running() {
		return nil, autohand.NewAgentBusyError()
	}
	if p.Message == "/exit" {
		// The end notifications are queued before the answer, and the
		// connection closes once the answer is out.
		a.sendEnd(a.sessionID, a.started, autohand.AgentEndParamsReasonCompleted, autohand.HookSessionEndParamsReasonQuit)
		jsonrpc.CloseAfterReply(ctx)
		return &autohand.SuccessResult{Success: true}, nil
	}
	ctx, cancel := context.WithCancel(a.ctx)
	t := &turn{id: a.nextID("turn"), cancel: cancel}
	a.turn = t
	a.status = autohand.AgentStatusProcessing
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer cancel()
		a.runTurn(ctx, t, p)
	}()
	return &autohand.SuccessResult{Success: true}, nil
}

// Abort stops the running turn and clears its pending requests.
func (a *agent) Abort(context.Context) (*autohand.SuccessResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.setupStop != nil {
		a.setupStop()
		return &autohand.SuccessResult{Success: true}, nil
	}
	t := a.turn
	if t == nil {
		return &autohand.SuccessResult{Success: false}, nil
	}
	t.aborted = true
	t.cancel()
	for id := range a.waits {
		a.cleared[id] = true
		delete(a.waits, id)
	}
	return &autohand.SuccessResult{Success: true}, nil
}

// runTurn plays the script of one turn.
func (a *agent) runTurn(ctx context.Context, t *turn, p *autohand.PromptParams) {
	started := time.Now()
	bg := a.ctx // notifications still go out after an abort
	c := a.client
	var files []string
	if p.Context != nil {
		files = p.Context.Files
	}
	stopPing := a.keepalive(t)
	defer stopPing()

	a.note(c.HookPrePrompt(bg, &autohand.HookPrePromptParams{Instruction: p.Message, MentionedFiles: nonNil(files), Timestamp: now()}))
	a.mu.Lock()
	sid := a.sessionID
	a.mu.Unlock()
	a.note(c.TurnStart(bg, &autohand.TurnStartParams{TurnID: t.id, SessionID: sid, Instruction: p.Message, Timestamp: now()}))
	a.addMessage(autohand.MessageRoleUser, p.Message, nil)
	for _, f := range files {
		if outside(a.cfg.workspace, f) && !a.askDirectory(ctx, f) && ctx.Err() == nil {
			a.note(c.Error(bg, &autohand.ErrorParams{Code: autohand.CodePermissionDenied, Message: "directory access denied: " + f, Recoverable: true, Timestamp: now()}))
		}
	}

	msgID := a.id("msg")
	a.note(c.MessageStart(bg, &autohand.MessageStartParams{MessageID: msgID, Role: "assistant", TurnID: t.id, Timestamp: now()}))
	var content strings.Builder
	s := &streamer{a: a, ctx: ctx, msgID: msgID, out: &content, t: t}
	switch {
	case p.Message == "/showcase":
		a.showcase(bg)
		s.say("Sent one of every other event.", "")
	case strings.HasPrefix(p.Message, "/mcp "):
		s.say(a.callEditorTool(ctx, strings.TrimSpace(strings.TrimPrefix(p.Message, "/mcp "))), "")
	default:
		a.toolStep(ctx, t, s, p)
	}
	if ctx.Err() == nil && !t.stop {
		s.say(" Done.", "")
	}
	a.finishTurn(t, msgID, content.String(), time.Since(started))
}

// streamer streams the assistant's reply word by word.
type streamer struct {
	a     *agent
	ctx   context.Context
	msgID string
	out   *strings.Builder
	t     *turn
}

// say streams text; it stops early when the turn is aborted.
func (s *streamer) say(text, thought string) {
	for i, w := range strings.SplitAfter(text, " ") {
		if s.ctx.Err() != nil {
			return
		}
		p := &autohand.MessageUpdateParams{MessageID: s.msgID, Delta: w, Timestamp: now()}
		if i == 0 && thought != "" {
			p.Thought = thought
		}
		s.out.WriteString(w)
		s.t.tokens += 4
		s.a.note(s.a.client.MessageUpdate(s.a.ctx, p))
		s.a.pause(s.ctx, s.a.cfg.delay)
	}
}

// pause waits d or until ctx ends.
func (a *agent) pause(ctx context.Context, d time.Duration) {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
	case <-ctx.Done():
	}
}

// keepalive sends autohand.ping while the turn runs.
func (a *agent) keepalive(t *turn) (stop func()) {
	done := make(chan struct{})
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		tk := time.NewTicker(a.cfg.keepalive)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-a.ctx.Done():
				return
			case <-tk.C:
				a.mu.Lock()
				st := a.status
				a.mu.Unlock()
				a.note(a.client.Ping(a.ctx, &autohand.PingParams{Timestamp: now(), Status: st, TurnID: jsonrpc.Some(t.id)}))
			}
		}
	}()
	return func() { close(done) }
}

// finishTurn ends the message and the turn and makes the agent idle.
func (a *agent) finishTurn(t *turn, msgID, content string, took time.Duration) {
	bg, c := a.ctx, a.client
	a.mu.Lock()
	aborted := t.aborted
	a.mu.Unlock()
	end := &autohand.MessageEndParams{MessageID: msgID, Content: content, Timestamp: now()}
	if len(t.calls) > 0 {
		end.ToolCalls = t.calls
	}
	if aborted {
		end.Aborted = true
	}
	a.note(c.MessageEnd(bg, end))
	a.addMessage(autohand.MessageRoleAssistant, content, t.calls)
	for _, r := range t.results {
		a.addMessage(autohand.MessageRoleTool, r, nil)
	}
	ms := took.Milliseconds()
	a.note(c.HookPostResponse(bg, &autohand.HookPostResponseParams{
		TokensUsed: t.tokens, TokensUsageStatus: autohand.TokensUsageStatusActual,
		ToolCallsCount: int64(len(t.calls)), Duration: ms, Timestamp: now(),
	}))
	a.note(c.HookStop(bg, &autohand.HookStopParams{
		TokensUsed: t.tokens, TokensUsageStatus: autohand.TokensUsageStatusActual,
		ToolCallsCount: int64(len(t.calls)), Duration: ms, Timestamp: now(),
	}))
	reason := autohand.TurnEndReasonCompleted
	switch {
	case aborted:
		reason = autohand.TurnEndReasonAborted
		a.note(c.Error(bg, &autohand.ErrorParams{Code: autohand.CodeAborted, Message: "turn " + t.id + " aborted", Recoverable: true, Timestamp: now()}))
	case t.stop:
		reason = autohand.TurnEndReasonStopCondition
	}
	a.mu.Lock()
	for id, b := range a.batches {
		if b.turn == t {
			delete(a.batches, id)
		}
	}
	a.turn = nil
	a.status = autohand.AgentStatusIdle
	pct := a.contextPercent()
	sid := a.sessionID
	a.mu.Unlock()
	a.note(c.TurnEnd(bg, &autohand.TurnEndParams{
		TurnID: t.id, SessionID: sid, TokensUsed: &t.tokens,
		TokensUsageStatus: autohand.TokensUsageStatusActual, DurationMs: &ms,
		ContextPercent: &pct, Reason: reason, Timestamp: now(),
	}))
}

// addMessage appends to the conversation.
func (a *agent) addMessage(role autohand.MessageRole, content string, calls []autohand.ToolCall) {
	a.mu.Lock()
	defer a.mu.Unlock()
	m := autohand.Message{ID: a.nextID("m"), Role: role, Content: content, Timestamp: now()}
	if len(calls) > 0 {
		m.ToolCalls = calls
	}
	a.messages = append(a.messages, m)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func rawArgs(kv ...string) autohand.Args {
	args := autohand.Args{}
	for i := 0; i+1 < len(kv); i += 2 {
		v, _ := json.Marshal(kv[i+1])
		args[kv[i]] = v
	}
	return args
}
