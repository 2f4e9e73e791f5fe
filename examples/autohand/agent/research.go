package main

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// research is the scripted auto-research ledger: a baseline and one
// accepted candidate, measured on latency_ms.
type research struct {
	started  bool
	active   bool
	goal     string
	max      int64
	attempts []autohand.HistoryAttempt
}

const metric = "latency_ms"

func (a *agent) evaluation(id string, mode autohand.EvaluatorMode, value float64) autohand.EvaluationRecord {
	return autohand.EvaluationRecord{
		SchemaVersion: 1, Type: "evaluation", ID: "eval_" + id, AttemptID: id, Timestamp: now(),
		Context: map[string]json.RawMessage{}, EvaluatorMode: mode,
		Samples:    []autohand.EvaluationSample{sample(id, value)},
		Aggregates: map[string]autohand.MetricAggregate{metric: {Median: value, Mad: 0.2, SampleCount: 1}},
		Checks:     autohand.ChecksResult{Passed: true}, Execution: autohand.ExecutionResult{Outcome: autohand.ExecutionResultOutcomePassed},
		DriftWarnings: []string{},
	}
}

func sample(id string, value float64) autohand.EvaluationSample {
	return autohand.EvaluationSample{Sequence: 1, Metrics: map[string]float64{metric: value}, OutputObject: "objects/" + id + ".json", DurationMs: 40, Timestamp: now()}
}

func decision(id string, src autohand.DecisionRecordSource) autohand.DecisionRecord {
	return autohand.DecisionRecord{
		SchemaVersion: 1, Type: "decision", ID: "dec_" + id + "_" + string(src), AttemptID: id, Timestamp: now(),
		Context: map[string]json.RawMessage{}, PolicyVersion: "1", EvaluationID: "eval_" + id, Source: src,
		ConstraintResults: []autohand.ConstraintResult{}, PrimaryImprovement: 0.18, Confidence: 0.95,
		Outcome: autohand.DecisionRecordOutcomeAccepted, Materialized: true, Explanation: "18% faster at 95% confidence",
	}
}

// report describes the loop; a.mu must be held.
func (a *agent) report() *autohand.AutoresearchReport {
	r := &a.research
	text := "no auto-research session"
	if r.started {
		text = "paused"
		if r.active {
			text = "running: " + r.goal
		}
	}
	res := &autohand.AutoresearchReport{Success: true, Active: r.active, StatusText: text, RunsLogged: ptr.To(int64(len(r.attempts)))}
	if r.started {
		res.State = &autohand.AutoresearchState{Active: r.active, Goal: r.goal, Iteration: int64(len(r.attempts)), MaxIterations: r.max}
		res.Attempts = append([]autohand.HistoryAttempt{}, r.attempts...)
		res.ParetoAttemptIDs = []string{"att_2"}
	}
	return res
}

// AutoresearchStart starts the loop with its scripted ledger.
func (a *agent) AutoresearchStart(_ context.Context, p *autohand.AutoresearchStartParams) (*autohand.AutoresearchReport, error) {
	if strings.TrimSpace(p.Objective) == "" {
		return nil, jsonrpc.InvalidParams("objective", "must not be empty")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.turn != nil {
		return nil, autohand.NewAgentBusyError()
	}
	r := &a.research
	sub := autohand.AutoresearchLifecycleSubcommandResume
	if !r.started {
		sub = autohand.AutoresearchLifecycleSubcommandStart
		ev := a.evaluation("att_2", autohand.EvaluatorModeOriginal, 10.2)
		dec := decision("att_2", autohand.DecisionRecordSourceOriginal)
		r.attempts = []autohand.HistoryAttempt{
			{AttemptID: "att_1", Description: "baseline", Timestamp: now(), Replayable: true, Materialization: autohand.HistoryAttemptMaterializationBaseline},
			{AttemptID: "att_2", Description: "cache parsed templates", Timestamp: now(), Replayable: true,
				LatestEvaluation: &ev, LatestDecision: &dec, Materialization: autohand.HistoryAttemptMaterializationCommitted},
		}
	}
	r.started, r.active, r.goal, r.max = true, true, p.Objective, 20
	if p.MaxIterations != nil {
		r.max = *p.MaxIterations
	}
	res := a.report()
	res.Message = "auto-research started"
	res.Instruction = "Lower " + metric + ": " + p.Objective
	a.announce(sub, res)
	return res, nil
}

// announce sends the loop's state as the notification form of the
// request that changed it (autoresearch.start or autoresearch.status).
func (a *agent) announce(sub autohand.AutoresearchLifecycleSubcommand, res *autohand.AutoresearchReport) {
	method, send := autohand.MethodAutoresearchStart, a.client.AutoresearchStartNotification
	if sub == autohand.AutoresearchLifecycleSubcommandStatus {
		method, send = autohand.MethodAutoresearchStatus, a.client.AutoresearchStatusNotification
	}
	n := &autohand.AutoresearchLifecycle{Active: res.Active, RunsLogged: *res.RunsLogged, StatusText: res.StatusText, Subcommand: sub, Message: res.Message, Timestamp: now()}
	if res.State != nil {
		n.Goal, n.Iteration, n.MaxIterations = res.State.Goal, &res.State.Iteration, &res.State.MaxIterations
	}
	notice(a, method, send, n)
}

// notice sends params with send, the notification form of the request
// method, without waiting: callers hold a.mu.
func notice[P any](a *agent, method string, send func(context.Context, *P) error, params *P) {
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		if err := send(a.ctx, params); err != nil && !isClosed(err) {
			a.log.Warn("notification not sent", "method", method, "err", err)
		}
	}()
}

// AutoresearchStatus reports the loop, and announces it.
func (a *agent) AutoresearchStatus(context.Context) (*autohand.AutoresearchReport, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	res := a.report()
	a.announce(autohand.AutoresearchLifecycleSubcommandStatus, res)
	return res, nil
}

// AutoresearchStop pauses the loop and announces it.
func (a *agent) AutoresearchStop(ctx context.Context) (*autohand.AutoresearchReport, error) {
	a.mu.Lock()
	r := &a.research
	if !r.active {
		a.mu.Unlock()
		return &autohand.AutoresearchReport{Error: "auto-research is not running"}, nil
	}
	r.active = false
	res := a.report()
	a.mu.Unlock()
	res.Message = "auto-research paused"
	a.note(a.client.AutoresearchPause(ctx, &autohand.AutoresearchLifecycle{
		Active: false, Goal: r.goal, Iteration: &res.State.Iteration, MaxIterations: &r.max, RunsLogged: *res.RunsLogged,
		StatusText: res.StatusText, Subcommand: autohand.AutoresearchLifecycleSubcommandStop, Message: res.Message, Timestamp: now(),
	}))
	return res, nil
}

// ledgerOp reports a ledger operation's start and end around f.
func (a *agent) ledgerOp(ctx context.Context, op autohand.AutoresearchEventParamsOperation, attempt string, f func() (ok bool, applied bool)) {
	ev := func(phase autohand.AutoresearchEventParamsPhase, ok bool, applied bool) {
		p := &autohand.AutoresearchEventParams{Operation: op, Phase: phase, Success: ok, Applied: applied, Timestamp: now()}
		if attempt != "" {
			p.AttemptID = attempt
		}
		if !ok {
			p.Error = "unknown attempt"
		}
		a.note(a.client.AutoresearchEvent(ctx, p))
	}
	ev(autohand.AutoresearchEventParamsPhaseStarted, true, false)
	ok, applied := f()
	if ok {
		ev(autohand.AutoresearchEventParamsPhaseCompleted, true, applied)
	} else {
		ev(autohand.AutoresearchEventParamsPhaseFailed, false, applied)
	}
}

// attempt finds an attempt; a.mu must be held.
func (a *agent) attempt(id string) *autohand.HistoryAttempt {
	for i := range a.research.attempts {
		if a.research.attempts[i].AttemptID == id {
			return &a.research.attempts[i]
		}
	}
	return nil
}

// AutoresearchHistory lists the attempts.
func (a *agent) AutoresearchHistory(ctx context.Context) (*autohand.AutoresearchHistoryResult, error) {
	res := &autohand.AutoresearchHistoryResult{Success: true}
	a.ledgerOp(ctx, autohand.AutoresearchEventParamsOperationHistory, "", func() (bool, bool) {
		a.mu.Lock()
		defer a.mu.Unlock()
		res.Attempts = append([]autohand.HistoryAttempt{}, a.research.attempts...)
		return true, false
	})
	return res, nil
}

// AutoresearchReplay measures an attempt again.
func (a *agent) AutoresearchReplay(ctx context.Context, p *autohand.AutoresearchReplayParams) (*autohand.AutoresearchReplayResult, error) {
	mode := autohand.EvaluatorModeOriginal
	if p.Evaluator != "" {
		mode = p.Evaluator
	}
	res := &autohand.AutoresearchReplayResult{}
	a.ledgerOp(ctx, autohand.AutoresearchEventParamsOperationReplay, p.AttemptID, func() (bool, bool) {
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.attempt(p.AttemptID) == nil {
			res.Error = "no attempt " + p.AttemptID
			return false, false
		}
		dec := decision(p.AttemptID, autohand.DecisionRecordSourceReplay)
		*res = autohand.AutoresearchReplayResult{
			Success: true, AttemptID: p.AttemptID, EvaluatorMode: mode, Metrics: map[string]float64{metric: 10.3},
			Samples: []autohand.EvaluationSample{sample(p.AttemptID, 10.3)}, Decision: &dec, DriftWarnings: []string{},
		}
		return true, false
	})
	return res, nil
}

// AutoresearchRescore decides again on one attempt or all.
func (a *agent) AutoresearchRescore(ctx context.Context, p *autohand.AutoresearchRescoreParams) (*autohand.AutoresearchRescoreResult, error) {
	// The params' decoder has refused an object with neither attemptId
	// nor all: true; as the CLI, refuse an empty attemptId too.
	all, id := p.RescoreAll != nil, ""
	if p.RescoreAttempt != nil {
		id, all = p.RescoreAttempt.AttemptID, p.RescoreAttempt.All
		if id == "" && !all {
			return nil, jsonrpc.InvalidParams("attemptId", "must not be empty")
		}
	}
	res := &autohand.AutoresearchRescoreResult{Success: true, Decisions: []autohand.DecisionRecord{}}
	a.ledgerOp(ctx, autohand.AutoresearchEventParamsOperationRescore, id, func() (bool, bool) {
		a.mu.Lock()
		defer a.mu.Unlock()
		for _, at := range a.research.attempts {
			if (all && at.LatestDecision != nil) || at.AttemptID == id {
				res.Decisions = append(res.Decisions, decision(at.AttemptID, autohand.DecisionRecordSourceRescore))
			}
		}
		if !all && len(res.Decisions) == 0 && a.attempt(id) == nil {
			res.Success, res.Error = false, "no attempt "+id
		}
		return res.Success, false
	})
	return res, nil
}

// AutoresearchCompare sets two attempts side by side.
func (a *agent) AutoresearchCompare(_ context.Context, p *autohand.AutoresearchCompareParams) (*autohand.AutoresearchCompareResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	side := func(id string) (autohand.ComparisonSide, bool) {
		at := a.attempt(id)
		if at == nil {
			return autohand.ComparisonSide{}, false
		}
		value := 12.4
		if at.LatestEvaluation != nil {
			value = at.LatestEvaluation.Aggregates[metric].Median
		}
		ev := a.evaluation(id, autohand.EvaluatorModeOriginal, value)
		return autohand.ComparisonSide{AttemptID: id, Samples: ev.Samples, Aggregates: ev.Aggregates, Checks: ev.Checks, Execution: ev.Execution, Decision: at.LatestDecision}, true
	}
	left, okL := side(p.LeftAttemptID)
	right, okR := side(p.RightAttemptID)
	if !okL || !okR {
		return &autohand.AutoresearchCompareResult{Error: "unknown attempt"}, nil
	}
	return &autohand.AutoresearchCompareResult{Success: true, Comparison: &autohand.AutoresearchCompareResultComparison{Left: left, Right: right}}, nil
}

// AutoresearchPareto returns the scripted front: the accepted candidate.
func (a *agent) AutoresearchPareto(context.Context) (*autohand.AutoresearchParetoResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.research.started {
		return &autohand.AutoresearchParetoResult{AttemptIDs: []string{}}, nil
	}
	return &autohand.AutoresearchParetoResult{Success: true, AttemptIDs: []string{"att_2"}}, nil
}

// AutoresearchPin pins or unpins an attempt.
func (a *agent) AutoresearchPin(_ context.Context, p *autohand.AutoresearchPinParams) (*autohand.AutoresearchPinResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	at := a.attempt(p.AttemptID)
	if at == nil {
		return &autohand.AutoresearchPinResult{AttemptID: p.AttemptID, Error: "no attempt " + p.AttemptID}, nil
	}
	at.Pinned = p.Pinned
	return &autohand.AutoresearchPinResult{Success: true, AttemptID: p.AttemptID, Pinned: p.Pinned}, nil
}

// AutoresearchPrune lists, or with yes deletes, the unpinned candidates'
// artifacts (1 KiB each).
func (a *agent) AutoresearchPrune(ctx context.Context, p *autohand.AutoresearchPruneParams) (*autohand.AutoresearchPruneResult, error) {
	apply := p.Yes && !p.DryRun
	res := &autohand.AutoresearchPruneResult{Success: true, Applied: apply, Candidates: []autohand.AutoresearchPruneResultCandidatesItem{}}
	a.ledgerOp(ctx, autohand.AutoresearchEventParamsOperationPrune, "", func() (bool, bool) {
		a.mu.Lock()
		defer a.mu.Unlock()
		for i, at := range a.research.attempts {
			if at.Materialization == autohand.HistoryAttemptMaterializationBaseline {
				continue
			}
			res.Candidates = append(res.Candidates, autohand.AutoresearchPruneResultCandidatesItem{
				AttemptID: at.AttemptID, Objects: []string{"objects/" + at.AttemptID + ".json"}, Bytes: 1024,
				Protected: at.Pinned, Reason: map[bool]string{true: "pinned", false: "superseded"}[at.Pinned],
			})
			if apply && !at.Pinned {
				res.BytesFreed += 1024
				a.research.attempts[i].Replayable = false
			} else {
				res.RemainingBytes += 1024
			}
		}
		return true, apply
	})
	return res, nil
}
