package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// batch is a set of previewed changes waiting for changesDecision.
type batch struct {
	turn    *turn
	changes []autohand.ProposedFileChange
	applied chan []autohand.ProposedFileChange
}

// previewChanges shows the tool's changes as a batch and waits for the
// client's decision. It returns the applied changes and the batch size.
func (a *agent) previewChanges(ctx context.Context, t *turn, toolID, tool, body string) ([]autohand.ProposedFileChange, int) {
	a.mu.Lock()
	id := a.nextID("batch")
	readme := a.files["README.md"]
	old, exists := a.files["hello.txt"]
	b := &batch{turn: t, applied: make(chan []autohand.ProposedFileChange, 1)}
	kind := autohand.ChangeTypeCreate
	if exists {
		kind = autohand.ChangeTypeModify
	}
	b.changes = []autohand.ProposedFileChange{
		{ID: a.nextID("chg"), FilePath: "hello.txt", ChangeType: kind, OriginalContent: old, ProposedContent: body,
			Description: "Write the greeting", ToolID: toolID, ToolName: tool},
		{ID: a.nextID("chg"), FilePath: "README.md", ChangeType: autohand.ChangeTypeModify, OriginalContent: readme,
			ProposedContent: readme + "See hello.txt.\n", Description: "Mention hello.txt", ToolID: toolID, ToolName: tool},
	}
	a.batches[id] = b
	a.mu.Unlock()

	c := a.client
	a.note(c.ChangesBatchStart(a.ctx, &autohand.ChangesBatchStartParams{BatchID: id, TurnID: t.id, Timestamp: now()}))
	for _, ch := range b.changes {
		a.note(c.ChangesBatchUpdate(a.ctx, &autohand.ChangesBatchUpdateParams{BatchID: id, Change: ch, Timestamp: now()}))
	}
	a.note(c.ChangesBatchEnd(a.ctx, &autohand.ChangesBatchEndParams{BatchID: id, ChangeCount: int64(len(b.changes)), Timestamp: now()}))
	select {
	case applied := <-b.applied:
		return applied, len(b.changes)
	case <-ctx.Done():
		return nil, len(b.changes)
	}
}

// ChangesDecision applies the chosen changes of a batch.
func (a *agent) ChangesDecision(_ context.Context, p *autohand.ChangesDecisionParams) (*autohand.ChangesDecisionResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	b, ok := a.batches[p.BatchID]
	if !ok {
		return &autohand.ChangesDecisionResult{Errors: []autohand.ChangeError{{ChangeID: "unknown", Error: "Batch " + p.BatchID + " is unknown or expired"}}}, nil
	}
	selected := map[string]bool{}
	for _, id := range p.SelectedChangeIDs {
		selected[id] = true
	}
	res := &autohand.ChangesDecisionResult{Success: true}
	var applied []autohand.ProposedFileChange
	for _, ch := range b.changes {
		take := p.Action == autohand.ChangesDecisionParamsActionAcceptAll ||
			(p.Action == autohand.ChangesDecisionParamsActionAcceptSelected && selected[ch.ID])
		delete(selected, ch.ID)
		if !take {
			res.SkippedCount++
			continue
		}
		a.files[ch.FilePath] = ch.ProposedContent
		applied = append(applied, ch)
		res.AppliedCount++
	}
	for id := range selected {
		res.Errors = append(res.Errors, autohand.ChangeError{ChangeID: id, Error: "not in batch " + p.BatchID})
		res.Success = false
	}
	delete(a.batches, p.BatchID)
	b.applied <- applied
	return res, nil
}

// deliver hands an answer to the wait named id, of the given kind.
func (a *agent) deliver(id, kind string, ans answer) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	w, ok := a.waits[id]
	if !ok || w.kind != kind {
		if a.cleared[id] {
			return jsonrpc.NewError(autohand.CodeAborted, fmt.Sprintf("%s request %s was cleared by abort", kind, id), nil)
		}
		return jsonrpc.NewError(autohand.CodeExecution, fmt.Sprintf("no pending %s request %s", kind, id), nil)
	}
	delete(a.waits, id)
	w.answer <- ans
	return nil
}

// acknowledge marks the wait named id as seen by the user.
func (a *agent) acknowledge(id, kind string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	w, ok := a.waits[id]
	if !ok || w.kind != kind {
		return jsonrpc.NewError(autohand.CodeExecution, fmt.Sprintf("no pending %s request %s", kind, id), nil)
	}
	select {
	case <-w.acked:
	default:
		close(w.acked)
	}
	return nil
}

// PermissionResponse answers a permission request.
func (a *agent) PermissionResponse(_ context.Context, p *autohand.PermissionResponseParams) (*autohand.SuccessResult, error) {
	var ans answer
	switch {
	case p.Decision != "":
		if !p.Decision.Valid() {
			return nil, jsonrpc.InvalidParams("decision", "unknown decision")
		}
		ans.ok = strings.HasPrefix(string(p.Decision), "allow_")
		if p.Alternative != "" {
			ans.text = p.Alternative
		}
	case p.Allowed != nil:
		ans.ok = *p.Allowed
	default:
		return nil, jsonrpc.InvalidParams("decision", "give decision or allowed")
	}
	if err := a.deliver(p.RequestID, "permission", ans); err != nil {
		return nil, err
	}
	if ans.ok && p.Decision != "" && p.Decision == autohand.PermissionDecisionAllowSession {
		a.mu.Lock()
		a.settings.yoloPattern = "write_file"
		a.mu.Unlock()
	}
	return &autohand.SuccessResult{Success: true}, nil
}

// PermissionAcknowledged starts the long wait for the user's answer.
func (a *agent) PermissionAcknowledged(_ context.Context, p *autohand.PermissionAcknowledgedParams) (*autohand.SuccessResult, error) {
	if err := a.acknowledge(p.RequestID, "permission"); err != nil {
		return nil, err
	}
	return &autohand.SuccessResult{Success: true}, nil
}

// DirectoryAccessResponse answers a directory access request.
func (a *agent) DirectoryAccessResponse(_ context.Context, p *autohand.DirectoryAccessResponseParams) (*autohand.SuccessResult, error) {
	if err := a.deliver(p.RequestID, "directory", answer{ok: p.Granted}); err != nil {
		return nil, err
	}
	return &autohand.SuccessResult{Success: true}, nil
}

// DirectoryAccessAcknowledged starts the long wait for the user's answer.
func (a *agent) DirectoryAccessAcknowledged(_ context.Context, p *autohand.DirectoryAccessAcknowledgedParams) (*autohand.SuccessResult, error) {
	if err := a.acknowledge(p.RequestID, "directory"); err != nil {
		return nil, err
	}
	return &autohand.SuccessResult{Success: true}, nil
}

// StepDecision answers autohand.stepEnd; success is false for an unknown step.
func (a *agent) StepDecision(_ context.Context, p *autohand.StepDecisionParams) (*autohand.SuccessResult, error) {
	if a.deliver(p.StepID, "step", answer{ok: p.Stop}) != nil {
		return &autohand.SuccessResult{Success: false}, nil
	}
	return &autohand.SuccessResult{Success: true}, nil
}

func rawList(vs []any) []json.RawMessage {
	out := make([]json.RawMessage, len(vs))
	for i, v := range vs {
		out[i], _ = json.Marshal(v)
	}
	return out
}
