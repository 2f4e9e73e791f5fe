package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// goals is the workspace's persistent goal state (in memory here).
type goals struct {
	active    *autohand.GoalState
	queue     []autohand.QueuedGoal
	completed []autohand.CompletedGoal
	updated   autohand.Timestamp
}

const goalsDisabled = "Goals are disabled; start the agent without -no-goals."

// snapshot returns the goal state; a.mu must be held.
func (a *agent) snapshot() autohand.GoalSnapshot {
	g := &a.goals
	if g.updated == "" {
		g.updated = now()
	}
	return autohand.GoalSnapshot{
		Version: 1, Goal: g.active, Queue: append([]autohand.QueuedGoal{}, g.queue...),
		Completed: append([]autohand.CompletedGoal{}, g.completed...), UpdatedAt: g.updated,
	}
}

// mutation reports the goal state after a change; a.mu must be held.
func (a *agent) mutation() *autohand.GoalMutationResult {
	a.goals.updated = now()
	res := &autohand.GoalMutationResult{Ok: true, Queue: append([]autohand.QueuedGoal{}, a.goals.queue...)}
	if g := a.goals.active; g != nil {
		res.Goal = jsonrpc.Some(*g)
		res.Telemetry = &autohand.GoalMutationResultTelemetry{TokensRemaining: remaining(g.TokenBudget, g.TokensUsed)}
	}
	return res
}

func remaining(budget *int64, used int64) *int64 {
	if budget == nil {
		return nil
	}
	return ptr.To(max(*budget-used, 0))
}

func disabledMutation() *autohand.GoalMutationResult {
	return &autohand.GoalMutationResult{Message: goalsDisabled}
}

// GoalGet returns the goal snapshot.
func (a *agent) GoalGet(context.Context) (*autohand.GoalGetResult, error) {
	if a.cfg.noGoals {
		r := autohand.NewGoalGetResult(autohand.GoalDisabled{Message: goalsDisabled})
		return &r, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	r := autohand.NewGoalGetResult(a.snapshot())
	return &r, nil
}

// GoalCreate starts a goal, or queues it behind the active one.
func (a *agent) GoalCreate(_ context.Context, p *autohand.GoalRequest) (*autohand.GoalMutationResult, error) {
	if strings.TrimSpace(p.Objective) == "" {
		return nil, jsonrpc.InvalidParams("objective", "must not be empty")
	}
	if a.cfg.noGoals {
		return disabledMutation(), nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.goals.active != nil {
		if len(a.goals.queue) >= maxKept {
			return a.queueFull(), nil
		}
		q := a.enqueue(p)
		res := a.mutation()
		res.Queued = &q
		return res, nil
	}
	a.goals.active = &autohand.GoalState{
		GoalID: a.nextID("goal"), Objective: p.Objective, Status: autohand.GoalStatusActive,
		TokenBudget: p.TokenBudget, TimeBudgetSeconds: p.TimeBudgetSeconds,
		MinTokensBeforeWrapUp: p.MinTokensBeforeWrapUp, MinTimeSecondsBeforeWrapUp: p.MinTimeSecondsBeforeWrapUp,
		CreatedAt: now(), UpdatedAt: now(),
	}
	res := a.mutation()
	res.Started = a.goals.active
	return res, nil
}

// enqueue queues a goal; a.mu must be held.
func (a *agent) enqueue(p *autohand.GoalRequest) autohand.QueuedGoal {
	q := autohand.QueuedGoal{
		QueueID: a.nextID("queued"), Objective: p.Objective, Source: "rpc", CreatedAt: now(),
		TokenBudget: p.TokenBudget, TimeBudgetSeconds: p.TimeBudgetSeconds,
		MinTokensBeforeWrapUp: p.MinTokensBeforeWrapUp, MinTimeSecondsBeforeWrapUp: p.MinTimeSecondsBeforeWrapUp,
	}
	a.goals.queue = append(a.goals.queue, q)
	return q
}

// budget applies one budget member of goal.update: absent keeps, null
// clears, an integer sets.
func budget(v jsonrpc.Nullable[int64], field string, dst **int64) error {
	switch v.State {
	case jsonrpc.Null:
		*dst = nil
	case jsonrpc.Present:
		if v.Value < 0 {
			return jsonrpc.InvalidParams(field, "must be a non-negative integer or null")
		}
		n := v.Value
		*dst = &n
	}
	return nil
}

// GoalUpdate changes the active goal.
func (a *agent) GoalUpdate(_ context.Context, p *autohand.GoalUpdateParams) (*autohand.GoalMutationResult, error) {
	if a.cfg.noGoals {
		return disabledMutation(), nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	g := a.goals.active
	if g == nil {
		res := a.mutation()
		res.Ok, res.Message = false, "no active goal"
		return res, nil
	}
	next := *g
	for _, b := range []struct {
		v     jsonrpc.Nullable[int64]
		field string
		dst   **int64
	}{
		{p.TokenBudget, "token_budget", &next.TokenBudget},
		{p.TimeBudgetSeconds, "time_budget_seconds", &next.TimeBudgetSeconds},
		{p.MinTokensBeforeWrapUp, "min_tokens_before_wrap_up", &next.MinTokensBeforeWrapUp},
		{p.MinTimeSecondsBeforeWrapUp, "min_time_seconds_before_wrap_up", &next.MinTimeSecondsBeforeWrapUp},
	} {
		if err := budget(b.v, b.field, b.dst); err != nil {
			return nil, err
		}
	}
	if p.Objective != "" {
		next.Objective = p.Objective
	}
	if p.Status != "" {
		next.Status = p.Status
	}
	next.UpdatedAt = now()
	if next.Status == autohand.GoalStatusComplete {
		done := a.complete(next)
		res := a.mutation()
		res.Completed = &done
		return res, nil
	}
	a.goals.active = &next
	return a.mutation(), nil
}

// complete moves a goal to the completed list; a.mu must be held.
func (a *agent) complete(g autohand.GoalState) autohand.CompletedGoal {
	done := autohand.CompletedGoal{
		GoalID: g.GoalID, Objective: g.Objective, Status: autohand.GoalStatusComplete,
		TokensUsed: g.TokensUsed, TimeUsedSeconds: g.TimeUsedSeconds, CreatedAt: g.CreatedAt, CompletedAt: now(),
	}
	a.goals.completed = keepNewest(append(a.goals.completed, done), maxKept)
	a.goals.active = nil
	return done
}

// GoalClear drops the active goal.
func (a *agent) GoalClear(context.Context) (*autohand.GoalMutationResult, error) {
	if a.cfg.noGoals {
		return disabledMutation(), nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.goals.active = nil
	return a.mutation(), nil
}

// GoalQueue queues a goal, or returns the snapshot without an objective.
func (a *agent) GoalQueue(_ context.Context, p *autohand.GoalQueueParams) (*autohand.GoalQueueResult, error) {
	if a.cfg.noGoals {
		r := autohand.NewGoalQueueResult(*disabledMutation())
		return &r, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if p.Objective == "" || strings.TrimSpace(p.Objective) == "" {
		r := autohand.NewGoalQueueResult(a.snapshot())
		return &r, nil
	}
	if len(a.goals.queue) >= maxKept {
		r := autohand.NewGoalQueueResult(*a.queueFull())
		return &r, nil
	}
	q := a.enqueue(&autohand.GoalRequest{
		Objective: p.Objective, TokenBudget: p.TokenBudget, TimeBudgetSeconds: p.TimeBudgetSeconds,
		MinTokensBeforeWrapUp: p.MinTokensBeforeWrapUp, MinTimeSecondsBeforeWrapUp: p.MinTimeSecondsBeforeWrapUp,
	})
	res := a.mutation()
	res.Queued = &q
	r := autohand.NewGoalQueueResult(*res)
	return &r, nil
}

// GoalStartQueued activates the first queued goal.
func (a *agent) GoalStartQueued(context.Context) (*autohand.GoalMutationResult, error) {
	if a.cfg.noGoals {
		return disabledMutation(), nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.goals.active != nil:
		res := a.mutation()
		res.Ok, res.Message = false, "a goal is already active"
		return res, nil
	case len(a.goals.queue) == 0:
		res := a.mutation()
		res.Ok, res.Message = false, "the queue is empty"
		return res, nil
	}
	q := a.goals.queue[0]
	a.goals.queue = a.goals.queue[1:]
	a.goals.active = &autohand.GoalState{
		GoalID: a.nextID("goal"), Objective: q.Objective, Status: autohand.GoalStatusActive,
		TokenBudget: q.TokenBudget, TimeBudgetSeconds: q.TimeBudgetSeconds,
		MinTokensBeforeWrapUp: q.MinTokensBeforeWrapUp, MinTimeSecondsBeforeWrapUp: q.MinTimeSecondsBeforeWrapUp,
		CreatedAt: now(), UpdatedAt: now(),
	}
	res := a.mutation()
	res.Dequeued, res.Started = &q, a.goals.active
	return res, nil
}

// GoalListTemplates lists the scripted templates, or says the goal feature
// is off.
func (a *agent) GoalListTemplates(context.Context) (*autohand.GoalListTemplatesResult, error) {
	if a.cfg.noGoals {
		r := autohand.NewGoalListTemplatesResult(autohand.GoalDisabled{Message: goalsDisabled})
		return &r, nil
	}
	r := autohand.NewGoalListTemplatesResult(autohand.GoalTemplates{{
		Name: "fix-tests", Path: fmt.Sprintf("%s/.autohand/goals/fix-tests.md", a.cfg.workspace),
		Description: "Make the test suite pass", Aliases: []string{"tests"}, AllowCommands: []string{"go test ./..."},
		RequiredPlaceholders: []string{}, RequiredFlags: []string{}, RequiresArgs: false,
	}})
	return &r, nil
}
