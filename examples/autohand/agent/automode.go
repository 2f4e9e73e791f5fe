package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/rpcgen/rpcgen/generated/autohand"
)

// scriptedIterations is how many iterations the scripted task needs.
const scriptedIterations = 3

// automode is the state of the auto-mode loop.
type automode struct {
	sessionID string
	prompt    string
	max       int64
	interval  int64
	iteration int64
	status    autohand.AutomodeStatusResultStateStatus
	resume    chan struct{}
	cancel    context.CancelFunc
	log       []autohand.AutomodeLogEntry
	last      *autohand.AutomodeCheckpoint
	modified  int64
}

func (m *automode) running() bool {
	return m != nil && (m.status == autohand.AutomodeStatusResultStateStatusRunning || m.status == autohand.AutomodeStatusResultStateStatusPaused)
}

// AutomodeStart starts the loop in the background.
func (a *agent) AutomodeStart(_ context.Context, p *autohand.AutomodeStartParams) (*autohand.AutomodeStartResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.turn != nil {
		return nil, autohand.NewAgentBusyError()
	}
	if a.automode.running() {
		return &autohand.AutomodeStartResult{Error: "auto-mode is already running"}, nil
	}
	m := &automode{sessionID: a.nextID("auto"), prompt: p.Prompt, max: 50, interval: 5,
		status: autohand.AutomodeStatusResultStateStatusRunning, resume: make(chan struct{}, 1)}
	if p.MaxIterations != nil {
		m.max = *p.MaxIterations
	}
	if p.CheckpointInterval != nil && *p.CheckpointInterval > 0 {
		m.interval = *p.CheckpointInterval
	}
	ctx, cancel := context.WithCancel(a.ctx)
	m.cancel = cancel
	a.automode = m
	notice(a, autohand.MethodAutomodeStart, a.client.AutomodeStartNotification, &autohand.AutomodeStartNotice{SessionID: m.sessionID, Prompt: m.prompt, MaxIterations: m.max, Timestamp: now()})
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer cancel()
		a.runAutomode(ctx, m)
	}()
	return &autohand.AutomodeStartResult{Success: true, SessionID: m.sessionID}, nil
}

// runAutomode plays the scripted task: done after a few iterations, or an
// error at the first one when the prompt mentions "fail".
func (a *agent) runAutomode(ctx context.Context, m *automode) {
	c := a.client
	for i := int64(1); i <= m.max; i++ {
		a.pause(ctx, a.cfg.delay)
		for {
			a.mu.Lock()
			paused := m.status == autohand.AutomodeStatusResultStateStatusPaused
			a.mu.Unlock()
			if !paused {
				break
			}
			select {
			case <-m.resume:
			case <-ctx.Done():
				return
			}
		}
		if ctx.Err() != nil {
			return
		}
		if strings.Contains(m.prompt, "fail") {
			a.mu.Lock()
			m.status = autohand.AutomodeStatusResultStateStatusFailed
			a.mu.Unlock()
			a.note(c.AutomodeError(ctx, &autohand.AutomodeErrorParams{SessionID: m.sessionID, Error: "the task failed its checks", Timestamp: now()}))
			return
		}
		action := fmt.Sprintf("worked on %q (step %d)", m.prompt, i)
		tokens := int64(100 * i)
		a.mu.Lock()
		m.iteration, m.modified = i, i
		entry := autohand.AutomodeLogEntry{Iteration: i, Timestamp: now(), Actions: []string{action}, TokensUsed: &tokens}
		if i%m.interval == 0 {
			m.last = &autohand.AutomodeCheckpoint{Commit: fmt.Sprintf("c0ffee%02d", i), Message: fmt.Sprintf("auto-mode checkpoint %d", i), Timestamp: now()}
			entry.Checkpoint = m.last
		}
		m.log = append(m.log, entry)
		a.mu.Unlock()
		a.note(c.AutomodeIteration(ctx, &autohand.AutomodeIterationParams{SessionID: m.sessionID, Iteration: i, Actions: entry.Actions, TokensUsed: &tokens, Timestamp: now()}))
		if entry.Checkpoint != nil {
			a.note(c.AutomodeCheckpoint(ctx, &autohand.AutomodeCheckpointParams{SessionID: m.sessionID, Iteration: i, Commit: entry.Checkpoint.Commit, Timestamp: now()}))
		}
		if i == scriptedIterations || i == m.max {
			a.mu.Lock()
			m.status = autohand.AutomodeStatusResultStateStatusCompleted
			a.mu.Unlock()
			a.note(c.AutomodeComplete(ctx, &autohand.AutomodeCompleteParams{SessionID: m.sessionID, Iterations: i, FilesCreated: 1, FilesModified: i, Timestamp: now()}))
			return
		}
	}
}

// AutomodeStatus reports the loop.
func (a *agent) AutomodeStatus(context.Context) (*autohand.AutomodeStatusResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	m := a.automode
	if m == nil {
		return &autohand.AutomodeStatusResult{}, nil
	}
	return &autohand.AutomodeStatusResult{
		Active: m.running(), Paused: m.status == autohand.AutomodeStatusResultStateStatusPaused,
		State: &autohand.AutomodeStatusResultState{
			SessionID: m.sessionID, Status: m.status, CurrentIteration: m.iteration, MaxIterations: m.max,
			FilesCreated: min(m.iteration, 1), FilesModified: m.modified, LastCheckpoint: m.last,
		},
	}, nil
}

// AutomodePause pauses a running loop.
func (a *agent) AutomodePause(context.Context) (*autohand.SuccessOrError, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.automode == nil || a.automode.status != autohand.AutomodeStatusResultStateStatusRunning {
		return &autohand.SuccessOrError{Error: "auto-mode is not running"}, nil
	}
	a.automode.status = autohand.AutomodeStatusResultStateStatusPaused
	notice(a, autohand.MethodAutomodePause, a.client.AutomodePauseNotification, &autohand.AutomodeProgressNotice{SessionID: a.automode.sessionID, Iteration: a.automode.iteration, Timestamp: now()})
	return &autohand.SuccessOrError{Success: true}, nil
}

// AutomodeResume resumes a paused loop.
func (a *agent) AutomodeResume(context.Context) (*autohand.SuccessOrError, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.automode == nil || a.automode.status != autohand.AutomodeStatusResultStateStatusPaused {
		return &autohand.SuccessOrError{Error: "auto-mode is not paused"}, nil
	}
	a.automode.status = autohand.AutomodeStatusResultStateStatusRunning
	notice(a, autohand.MethodAutomodeResume, a.client.AutomodeResumeNotification, &autohand.AutomodeProgressNotice{SessionID: a.automode.sessionID, Iteration: a.automode.iteration, Timestamp: now()})
	select {
	case a.automode.resume <- struct{}{}:
	default:
	}
	return &autohand.SuccessOrError{Success: true}, nil
}

// AutomodeCancel stops the loop.
func (a *agent) AutomodeCancel(_ context.Context, p *autohand.AutomodeCancelParams) (*autohand.SuccessOrError, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.automode.running() {
		return &autohand.SuccessOrError{Error: "auto-mode is not running"}, nil
	}
	a.automode.status = autohand.AutomodeStatusResultStateStatusCancelled
	a.automode.cancel()
	reason := "cancelled by the client"
	if p.Reason != "" {
		reason = p.Reason
	}
	notice(a, autohand.MethodAutomodeCancel, a.client.AutomodeCancelNotification, &autohand.AutomodeCancelNotice{SessionID: a.automode.sessionID, Reason: reason, Iteration: a.automode.iteration, Timestamp: now()})
	return &autohand.SuccessOrError{Success: true}, nil
}

// AutomodeGetLog returns the most recent iterations.
func (a *agent) AutomodeGetLog(_ context.Context, p *autohand.AutomodeGetLogParams) (*autohand.AutomodeGetLogResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	res := &autohand.AutomodeGetLogResult{Success: true, Iterations: []autohand.AutomodeLogEntry{}}
	if a.automode == nil {
		return res, nil
	}
	log := a.automode.log
	if p.Limit != nil && int(*p.Limit) < len(log) && *p.Limit >= 0 {
		log = log[len(log)-int(*p.Limit):]
	}
	res.Iterations = append(res.Iterations, log...)
	return res, nil
}
