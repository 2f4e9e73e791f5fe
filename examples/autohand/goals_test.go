package autohand_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// TestGoals walks a goal through create, queue, update, complete and the
// queue, and checks a disabled feature.
func TestGoals(t *testing.T) {
	s := start(t, jsonrpc.Options{})
	ctx := s.ctx
	g, err := s.agent.GoalGet(ctx)
	ok(t, err)
	if g.GoalSnapshot == nil || g.GoalSnapshot.Goal != nil || g.GoalSnapshot.Version != 1 {
		t.Fatalf("empty snapshot = %+v", g)
	}
	_, err = s.agent.GoalCreate(ctx, &autohand.GoalRequest{})
	wantErr(t, err, jsonrpc.ErrInvalidParams)
	c, err := s.agent.GoalCreate(ctx, &autohand.GoalRequest{Objective: "Ship v2", TokenBudget: ptr.To(int64(5000))})
	ok(t, err)
	if !c.Ok || c.Started == nil || c.Goal.Value.Objective != "Ship v2" || *c.Telemetry.TokensRemaining != 5000 {
		t.Fatalf("create = %+v", c)
	}
	c2, err := s.agent.GoalCreate(ctx, &autohand.GoalRequest{Objective: "Write docs"})
	ok(t, err)
	q, err := s.agent.GoalQueue(ctx, &autohand.GoalQueueParams{Objective: "Fix flakes"})
	ok(t, err)
	snap, err := s.agent.GoalQueue(ctx, &autohand.GoalQueueParams{})
	ok(t, err)
	if c2.Queued == nil || q.GoalMutationResult == nil || q.GoalMutationResult.Queued.Objective != "Fix flakes" ||
		snap.GoalSnapshot == nil || len(snap.GoalSnapshot.Queue) != 2 {
		t.Fatalf("create while active = %+v, queue = %+v, snapshot = %+v", c2, q, snap)
	}

	// null clears a budget; an absent member keeps it.
	u, err := s.agent.GoalUpdate(ctx, &autohand.GoalUpdateParams{TokenBudget: jsonrpc.NullOf[int64](), TimeBudgetSeconds: jsonrpc.Some[int64](600)})
	ok(t, err)
	if u.Goal.Value.TokenBudget != nil || *u.Goal.Value.TimeBudgetSeconds != 600 {
		t.Fatalf("update = %+v", u.Goal)
	}
	u, err = s.agent.GoalUpdate(ctx, &autohand.GoalUpdateParams{Objective: "Ship v2.1"})
	ok(t, err)
	if *u.Goal.Value.TimeBudgetSeconds != 600 || u.Goal.Value.Objective != "Ship v2.1" {
		t.Fatalf("update keeping budgets = %+v", u.Goal)
	}
	err = s.conn.Call(ctx, autohand.MethodGoalUpdate, map[string]any{"token_budget": "lots"}, nil)
	wantErr(t, err, jsonrpc.ErrInvalidParams)
	if !strings.Contains(err.Error(), "token_budget") {
		t.Errorf("a budget that is not an integer: %v, want it to name token_budget", err)
	}
	_, err = s.agent.GoalUpdate(ctx, &autohand.GoalUpdateParams{TokenBudget: jsonrpc.Some[int64](-1)})
	wantErr(t, err, jsonrpc.ErrInvalidParams)
	busy, err := s.agent.GoalStartQueued(ctx)
	ok(t, err)
	done, err := s.agent.GoalUpdate(ctx, &autohand.GoalUpdateParams{Status: autohand.GoalStatusComplete})
	ok(t, err)
	if busy.Ok || done.Completed == nil || done.Completed.Objective != "Ship v2.1" || done.Goal.State != jsonrpc.Absent {
		t.Fatalf("startQueued while active = %+v, complete = %+v", busy, done)
	}
	st, err := s.agent.GoalStartQueued(ctx)
	ok(t, err)
	if st.Dequeued == nil || st.Dequeued.Objective != "Write docs" || st.Goal.Value.Objective != "Write docs" || len(st.Queue) != 1 {
		t.Fatalf("startQueued = %+v", st)
	}
	cl, err := s.agent.GoalClear(ctx)
	ok(t, err)
	g, err = s.agent.GoalGet(ctx)
	ok(t, err)
	if cl.Goal.State != jsonrpc.Absent || g.GoalSnapshot.Goal != nil || len(g.GoalSnapshot.Completed) != 1 || len(g.GoalSnapshot.Queue) != 1 {
		t.Fatalf("clear = %+v, snapshot = %+v", cl, g.GoalSnapshot)
	}
	tpl, err := s.agent.GoalListTemplates(ctx)
	ok(t, err)
	if tpl.GoalTemplates == nil || len(*tpl.GoalTemplates) != 1 || (*tpl.GoalTemplates)[0].Name != "fix-tests" {
		t.Fatalf("templates = %+v", tpl)
	}

	off := start(t, jsonrpc.Options{}, "-no-goals")
	g, err = off.agent.GoalGet(ctx)
	ok(t, err)
	m, err := off.agent.GoalCreate(ctx, &autohand.GoalRequest{Objective: "x"})
	ok(t, err)
	oq, err := off.agent.GoalQueue(ctx, &autohand.GoalQueueParams{Objective: "x"})
	ok(t, err)
	tpl, err = off.agent.GoalListTemplates(ctx)
	ok(t, err)
	if g.GoalDisabled == nil || m.Ok || m.Message == "" || oq.GoalMutationResult == nil || oq.GoalMutationResult.Ok || tpl.GoalDisabled == nil || tpl.GoalTemplates != nil {
		t.Fatalf("disabled: get = %+v, create = %+v, queue = %+v, templates = %+v", g, m, oq, tpl)
	}
}

// TestSkillsNamespace covers the skills.* requests.
func TestSkillsNamespace(t *testing.T) {
	s := start(t, jsonrpc.Options{})
	ctx := s.ctx
	found, err := s.agent.SkillsSearch(ctx, &autohand.SkillsSearchParams{Query: "GO tests"})
	ok(t, err)
	if len(found.Skills) != 1 || found.Skills[0].ID != "go-testing" {
		t.Fatalf("search = %+v", found)
	}
	top, err := s.agent.SkillsTrending(ctx, &autohand.SkillsTrendingParams{Limit: ptr.To(int64(2))})
	ok(t, err)
	if len(top.Skills) != 2 || top.Skills[0].ID != "go-testing" || top.Skills[1].ID != "commit-messages" {
		t.Fatalf("trending = %+v", top)
	}
	in, err := s.agent.SkillsInstall(ctx, &autohand.SkillInstall{SkillName: "go-testing", Scope: autohand.SkillScopeUser})
	ok(t, err)
	if !in.Success || !strings.HasPrefix(in.Path, "~/.autohand/skills/") {
		t.Fatalf("install = %+v", in)
	}
	rm, err := s.agent.SkillsRemove(ctx, &autohand.SkillsRemoveParams{SkillName: "go-testing"})
	ok(t, err)
	again, err := s.agent.SkillsRemove(ctx, &autohand.SkillsRemoveParams{SkillName: "go-testing"})
	ok(t, err)
	if !rm.Success || again.Success || again.Error == "" {
		t.Fatalf("remove = %+v, again = %+v", rm, again)
	}
}

// TestAutoresearch covers the auto-research loop and its ledger.
func TestAutoresearch(t *testing.T) {
	s := start(t, jsonrpc.Options{})
	ctx := s.ctx
	st, err := s.agent.AutoresearchStatus(ctx)
	ok(t, err)
	stop, err := s.agent.AutoresearchStop(ctx)
	ok(t, err)
	if st.Active || st.State != nil || stop.Success {
		t.Fatalf("idle status = %+v, stop = %+v", st, stop)
	}
	_, err = s.agent.AutoresearchStart(ctx, &autohand.AutoresearchStartParams{})
	wantErr(t, err, jsonrpc.ErrInvalidParams)
	r, err := s.agent.AutoresearchStart(ctx, &autohand.AutoresearchStartParams{
		Objective: "Faster template rendering", MaxIterations: ptr.To(int64(8)), Direction: autohand.OptimizationDirectionLower,
		Constraints: []autohand.Constraint{{MetricName: "errors", Operator: autohand.ConstraintOperatorAtMost, Threshold: 0}},
	})
	ok(t, err)
	if !r.Success || !r.Active || r.State.MaxIterations != 8 || len(r.Attempts) != 2 || r.ParetoAttemptIDs[0] != "att_2" {
		t.Fatalf("start = %+v", r)
	}
	// Notifications named like requests, sent beside the generated API.
	started := decode[autohand.AutoresearchLifecycle](t, s.next(autohand.MethodAutoresearchStart, 0))
	if started.Subcommand != autohand.AutoresearchLifecycleSubcommandStart || !started.Active || *started.MaxIterations != 8 {
		t.Fatalf("start notification = %+v", started)
	}
	_, err = s.agent.AutoresearchStatus(ctx)
	ok(t, err)
	if n := decode[autohand.AutoresearchLifecycle](t, s.count(autohand.MethodAutoresearchStatus, 0, 2)[1]); n.Subcommand != autohand.AutoresearchLifecycleSubcommandStatus || n.RunsLogged != 2 {
		t.Fatalf("status notification = %+v", n)
	}
	from := s.mark()
	h, err := s.agent.AutoresearchHistory(ctx)
	ok(t, err)
	if len(h.Attempts) != 2 || h.Attempts[1].LatestDecision.Outcome != autohand.DecisionRecordOutcomeAccepted {
		t.Fatalf("history = %+v", h)
	}
	evs := s.count(autohand.MethodAutoresearchEvent, from, 2)
	if e := decode[autohand.AutoresearchEventParams](t, evs[1]); e.Operation != autohand.AutoresearchEventParamsOperationHistory || e.Phase != autohand.AutoresearchEventParamsPhaseCompleted {
		t.Fatalf("history event = %+v", e)
	}
	from = s.mark()
	rp, err := s.agent.AutoresearchReplay(ctx, &autohand.AutoresearchReplayParams{AttemptID: "att_2", Evaluator: autohand.EvaluatorModeCurrent})
	ok(t, err)
	if !rp.Success || rp.EvaluatorMode != autohand.EvaluatorModeCurrent || rp.Metrics["latency_ms"] == 0 || rp.Decision.Source != autohand.DecisionRecordSourceReplay {
		t.Fatalf("replay = %+v", rp)
	}
	bad, err := s.agent.AutoresearchReplay(ctx, &autohand.AutoresearchReplayParams{AttemptID: "att_9"})
	ok(t, err)
	fail := decode[autohand.AutoresearchEventParams](t, s.count(autohand.MethodAutoresearchEvent, from, 4)[3])
	if bad.Success || fail.Phase != autohand.AutoresearchEventParamsPhaseFailed || fail.AttemptID != "att_9" {
		t.Fatalf("bad replay = %+v, event = %+v", bad, fail)
	}
	// Neither attemptId nor all: true, or an empty attemptId: -32602, as
	// the CLI answers.
	for _, params := range []string{`{}`, `{"all":false}`, `{"attemptId":""}`} {
		err = s.conn.Call(ctx, autohand.MethodAutoresearchRescore, json.RawMessage(params), nil)
		wantErr(t, err, jsonrpc.ErrInvalidParams)
	}
	if _, err := s.agent.AutoresearchRescore(ctx, &autohand.AutoresearchRescoreParams{}); err == nil {
		t.Fatal("the client sent rescore params with neither attemptId nor all")
	}
	one, err := s.agent.AutoresearchRescore(ctx, &autohand.AutoresearchRescoreParams{RescoreAttempt: &autohand.RescoreAttempt{AttemptID: "att_2"}})
	ok(t, err)
	if len(one.Decisions) != 1 || one.Decisions[0].AttemptID != "att_2" {
		t.Fatalf("rescore att_2 = %+v", one)
	}
	rs, err := s.agent.AutoresearchRescore(ctx, &autohand.AutoresearchRescoreParams{RescoreAll: &autohand.RescoreAll{}})
	ok(t, err)
	if len(rs.Decisions) != 1 || rs.Decisions[0].Source != autohand.DecisionRecordSourceRescore {
		t.Fatalf("rescore = %+v", rs)
	}
	cmp, err := s.agent.AutoresearchCompare(ctx, &autohand.AutoresearchCompareParams{LeftAttemptID: "att_1", RightAttemptID: "att_2"})
	ok(t, err)
	if !cmp.Success || cmp.Comparison.Right.Aggregates["latency_ms"].Median >= cmp.Comparison.Left.Aggregates["latency_ms"].Median {
		t.Fatalf("compare = %+v", cmp)
	}
	pa, err := s.agent.AutoresearchPareto(ctx)
	ok(t, err)
	pin, err := s.agent.AutoresearchPin(ctx, &autohand.AutoresearchPinParams{AttemptID: "att_2", Pinned: true})
	ok(t, err)
	if len(pa.AttemptIDs) != 1 || !pin.Pinned {
		t.Fatalf("pareto = %+v, pin = %+v", pa, pin)
	}
	dry, err := s.agent.AutoresearchPrune(ctx, &autohand.AutoresearchPruneParams{})
	ok(t, err)
	if dry.Applied || len(dry.Candidates) != 1 || !dry.Candidates[0].Protected || dry.BytesFreed != 0 {
		t.Fatalf("prune = %+v", dry)
	}
	from = s.mark()
	stop, err = s.agent.AutoresearchStop(ctx)
	ok(t, err)
	pause := decode[autohand.AutoresearchLifecycle](t, s.next(autohand.MethodAutoresearchPause, from))
	if !stop.Success || stop.Active || pause.Active || pause.Subcommand != autohand.AutoresearchLifecycleSubcommandStop || pause.Goal != "Faster template rendering" {
		t.Fatalf("stop = %+v, pause = %+v", stop, pause)
	}
}
