package main

import (
	"context"
	"encoding/json"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/internal/ptr"
)

// Setup walks through the scripted setup wizard; autohand.abort cancels it.
func (a *agent) Setup(ctx context.Context, p *autohand.SetupParams) (*autohand.SetupResult, error) {
	c := a.client
	a.mu.Lock()
	if a.turn != nil || a.setupStop != nil {
		a.mu.Unlock()
		msg := "setup cannot run while the agent is busy"
		a.note(c.SetupError(ctx, &autohand.SetupErrorParams{Timestamp: now(), Error: msg}))
		return &autohand.SetupResult{SkippedSteps: []string{}, Error: msg}, nil
	}
	sctx, cancel := context.WithCancel(ctx)
	a.setupStop = cancel
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.setupStop = nil
		a.mu.Unlock()
		cancel()
	}()

	a.note(c.SetupStarted(ctx, &autohand.SetupStartedParams{Timestamp: now(), Locale: "en", WorkspaceRoot: a.cfg.workspace}))
	skip := map[string]bool{
		"welcome":     p.SkipWelcome,
		"agents-file": p.QuickSetup,
	}
	res := &autohand.SetupResult{SkippedSteps: []string{}, Provider: "autohandai", Model: a.cfg.model, Locale: "en"}
	for _, step := range []string{"welcome", "provider", "model", "agents-file"} {
		if skip[step] {
			res.SkippedSteps = append(res.SkippedSteps, step)
			continue
		}
		a.note(c.SetupStepStart(ctx, &autohand.SetupStep{Step: step, Timestamp: now()}))
		a.pause(sctx, a.cfg.delay)
		if sctx.Err() != nil {
			a.note(c.SetupCancelled(a.ctx, &autohand.SetupCancelledParams{Timestamp: now(), Step: step}))
			return &autohand.SetupResult{SkippedSteps: res.SkippedSteps, Cancelled: true}, nil
		}
		done, _ := json.Marshal(true)
		a.note(c.SetupStepComplete(ctx, &autohand.SetupStep{Step: step, Timestamp: now(), Data: map[string]json.RawMessage{"done": done}}))
	}
	res.Success = true
	res.AgentsFileCreated = !skip["agents-file"]
	a.note(c.SetupComplete(ctx, &autohand.SetupCompleteParams{
		Timestamp: now(), Success: true, Provider: res.Provider, Model: res.Model,
		SkippedSteps: res.SkippedSteps, AgentsFileCreated: res.AgentsFileCreated,
	}))
	return res, nil
}

// showcase sends one of every event the scripted turn does not produce, so
// clients can render each of them.
func (a *agent) showcase(ctx context.Context) {
	c := a.client
	ts := now()
	a.note(c.HookRateLimit(ctx, &autohand.HookRateLimitParams{Error: "rate limited", Code: "rate_limit", RetryAfterMs: ptr.To(int64(1000)), HTTPStatus: ptr.To(int64(429)), Model: a.cfg.model, Provider: "autohandai", Timestamp: ts}))
	a.note(c.HookSessionError(ctx, &autohand.HookSessionErrorParams{Error: "rate limited", Code: "rate_limit", Timestamp: ts}))
	a.note(c.HookSubagentStop(ctx, &autohand.HookSubagentStopParams{SubagentID: "sub_1", SubagentName: "reviewer", SubagentType: "review", Success: true, Duration: 5, Timestamp: ts}))
	a.note(c.HookNotification(ctx, &autohand.HookNotificationParams{NotificationType: "info", Message: "showcase running", Timestamp: ts}))
	a.note(c.HookContextWarning(ctx, &autohand.ContextThreshold{UsagePercent: 80, RemainingTokens: 40000, Timestamp: ts}))
	a.note(c.HookContextCritical(ctx, &autohand.ContextThreshold{UsagePercent: 95, RemainingTokens: 10000, Timestamp: ts}))
	a.note(c.HookContextOverflow(ctx, &autohand.HookContextOverflowParams{TokensBefore: 210000, TokensAfter: 120000, CroppedCount: 12, UsagePercent: 60, Timestamp: ts}))
	a.note(c.HookContextCompacted(ctx, &autohand.HookContextCompactedParams{CroppedCount: 12, Summary: "earlier work summarised", UsagePercent: 60, Reason: "overflow", Timestamp: ts}))
	a.note(c.PipeOutput(ctx, &autohand.PipeOutputParams{Type: autohand.PipeOutputParamsTypeResult, Content: "piped result", Timestamp: ts}))
	a.note(c.PipeError(ctx, &autohand.PipeErrorParams{Error: "pipe closed early", Timestamp: ts}))
	a.note(c.PipeComplete(ctx, &autohand.PipeCompleteParams{Timestamp: ts}))
	a.note(c.ScheduleTriggered(ctx, &autohand.ScheduleTriggeredParams{Prompt: "nightly check", ScheduleID: "sched_1", Timestamp: ts}))
}
