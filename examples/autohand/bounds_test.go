package autohand_test

import (
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// maxKept is the agent's bound on each list it keeps for its client.
const maxKept = 64

// The goal queue holds at most 64 goals; past it a goal is refused, with
// ok false and a message. Completed goals keep the newest 64.
func TestGoalListsAreBounded(t *testing.T) {
	s := start(t, jsonrpc.Options{})
	ctx := s.ctx
	_, err := s.agent.GoalCreate(ctx, &autohand.GoalRequest{Objective: "active"})
	ok(t, err)
	for i := range maxKept {
		q, err := s.agent.GoalQueue(ctx, &autohand.GoalQueueParams{Objective: "queued"})
		ok(t, err)
		if q.GoalMutationResult == nil || !q.GoalMutationResult.Ok {
			t.Fatalf("queued goal %d: %+v", i+1, q)
		}
	}
	q, err := s.agent.GoalQueue(ctx, &autohand.GoalQueueParams{Objective: "one too many"})
	ok(t, err)
	if r := q.GoalMutationResult; r == nil || r.Ok || r.Message == "" || !strings.Contains(r.Message, "full") || len(r.Queue) != maxKept {
		t.Fatalf("goal %d in the queue: %+v", maxKept+1, q)
	}
	c, err := s.agent.GoalCreate(ctx, &autohand.GoalRequest{Objective: "one too many"})
	ok(t, err)
	if c.Ok || c.Queued != nil {
		t.Fatalf("goal.create with a full queue: %+v", c)
	}
	for range maxKept + 1 {
		_, err := s.agent.GoalUpdate(ctx, &autohand.GoalUpdateParams{Status: autohand.GoalStatusComplete})
		ok(t, err)
		_, err = s.agent.GoalStartQueued(ctx)
		ok(t, err)
	}
	g, err := s.agent.GoalGet(ctx)
	ok(t, err)
	if g.GoalSnapshot == nil || len(g.GoalSnapshot.Completed) != maxKept {
		t.Fatalf("completed goals: %+v", g)
	}
}

// Browser handoff tokens keep the newest 64.
func TestHandoffsAreBounded(t *testing.T) {
	s := start(t, jsonrpc.Options{})
	ctx := s.ctx
	var tokens []string
	for range maxKept + 1 {
		h, err := s.agent.BrowserHandoffCreate(ctx, &autohand.BrowserHandoffCreateParams{})
		ok(t, err)
		tokens = append(tokens, h.Token)
	}
	for i, want := range map[int]bool{0: false, 1: true, maxKept: true} {
		a, err := s.agent.BrowserHandoffAttach(ctx, &autohand.BrowserHandoffAttachParams{Token: tokens[i]})
		ok(t, err)
		if a.Success != want {
			t.Errorf("handoff %d attaches: %t, want %t", i+1, a.Success, want)
		}
	}
}

// Login sessions keep the newest 64, each with its own id.
func TestLoginsAreBounded(t *testing.T) {
	s := start(t, jsonrpc.Options{}, "-profile", "setup-only")
	ctx := s.ctx
	var logins []string
	for range maxKept + 1 {
		b, err := s.agent.LoginBegin(ctx, &autohand.LoginBeginParams{})
		ok(t, err)
		logins = append(logins, b.SessionID)
	}
	for i, want := range map[int]bool{0: false, 1: true, maxKept: true} {
		p, err := s.agent.LoginPoll(ctx, &autohand.LoginSession{SessionID: logins[i]})
		ok(t, err)
		if known := p.Problem == nil; known != want {
			t.Errorf("login %d known: %t, want %t (%+v)", i+1, known, want, p)
		}
	}
}

// Attaching a saved session archives the current one: the history keeps
// the newest 64 sessions.
func TestHistoryIsBounded(t *testing.T) {
	s := start(t, jsonrpc.Options{})
	ctx := s.ctx
	runTurn(t, s, "First task")
	_, err := s.agent.Reset(ctx)
	ok(t, err)
	for range maxKept + 6 {
		at, err := s.agent.SessionAttach(ctx, &autohand.SessionAttachParams{SessionID: "session_1"})
		ok(t, err)
		if !at.Success {
			t.Fatalf("attach = %+v", at)
		}
	}
	h, err := s.agent.GetHistory(ctx, &autohand.GetHistoryParams{Page: ptr.To(int64(1)), PageSize: ptr.To(int64(5))})
	ok(t, err)
	if h.TotalItems != maxKept {
		t.Fatalf("history holds %d sessions, want %d", h.TotalItems, maxKept)
	}
}
