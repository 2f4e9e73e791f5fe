package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// agent is the scripted Autohand agent. One mutex guards its state; the
// notifications are sent outside it.
type agent struct {
	autohand.UnimplementedAgent

	cfg    config
	log    *slog.Logger
	client autohand.Client
	ctx    context.Context // lives as long as the session
	cancel context.CancelFunc
	wg     sync.WaitGroup // background work: turns, auto-mode, setup
	ready  chan struct{}  // closed by start

	mu        sync.Mutex
	seq       map[string]int
	sessionID string
	started   time.Time
	model     string
	messages  []autohand.Message
	files     map[string]string // the in-memory workspace
	status    autohand.AgentStatus
	turn      *turn
	waits     map[string]*wait // permission, directory, step and MCP requests
	cleared   map[string]bool  // requests that an abort cleared
	batches   map[string]*batch
	history   []session
	settings  settings
	mcp       mcpState
	skills    map[string]string // installed skill name -> path
	handoffs  []string
	automode  *automode
	setupStop context.CancelFunc
	logins    map[string]int // login session id -> polls so far
	loginIDs  []string       // the ids of logins, oldest first
	goals     goals
	research  research
}

// settings are the session settings the client may change.
type settings struct {
	planMode          bool
	permissionMode    autohand.PermissionMode
	yoloPattern       string
	yoloUntil         time.Time
	maxThinkingTokens *int64
	contextCompact    bool
	browserTools      []string
}

// session is a saved session of the history.
type session struct {
	entry    autohand.HistoryEntry
	messages []autohand.Message
}

func newAgent(cfg config, log *slog.Logger) *agent {
	ctx, cancel := context.WithCancel(context.Background())
	return &agent{
		cfg:      cfg,
		log:      log,
		ctx:      ctx,
		cancel:   cancel,
		ready:    make(chan struct{}),
		seq:      map[string]int{},
		model:    cfg.model,
		files:    map[string]string{"README.md": "# app\n"},
		status:   autohand.AgentStatusIdle,
		waits:    map[string]*wait{},
		cleared:  map[string]bool{},
		batches:  map[string]*batch{},
		settings: settings{permissionMode: autohand.PermissionModeInteractive, contextCompact: true},
		mcp:      newMCPState(),
		skills:   map[string]string{},
		logins:   map[string]int{},
	}
}

// start announces the session once the connection is up.
func (a *agent) start(client autohand.Client) {
	a.client = client
	defer close(a.ready)
	if a.cfg.profile != profileGeneral {
		return // restricted profiles have no agent session
	}
	a.mu.Lock()
	a.sessionID = a.nextID("session")
	a.started = time.Now()
	a.mu.Unlock()
	pct := 0.0
	a.note(client.AgentStart(a.ctx, &autohand.AgentStartParams{
		SessionID: a.sessionID, Model: a.cfg.model, Workspace: a.cfg.workspace,
		ContextPercent: &pct, Timestamp: now(),
	}))
	a.note(client.HookSessionStart(a.ctx, &autohand.HookSessionStartParams{
		SessionType: autohand.HookSessionStartParamsSessionTypeStartup, Timestamp: now(),
	}))
}

// stop ends the background work and waits for it.
func (a *agent) stop() {
	a.cancel()
	a.wg.Wait()
}

// end announces the end of the session.
func (a *agent) end(reason autohand.AgentEndParamsReason, hook autohand.HookSessionEndParamsReason) {
	a.mu.Lock()
	id, started := a.sessionID, a.started
	a.mu.Unlock()
	a.sendEnd(id, started, reason, hook)
}

// sendEnd sends the session-end hook and agentEnd notifications.
func (a *agent) sendEnd(id string, started time.Time, reason autohand.AgentEndParamsReason, hook autohand.HookSessionEndParamsReason) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	a.note(a.client.HookSessionEnd(ctx, &autohand.HookSessionEndParams{
		Reason: hook, Duration: time.Since(started).Milliseconds(), Timestamp: now(),
	}))
	a.note(a.client.AgentEnd(ctx, &autohand.AgentEndParams{SessionID: id, Reason: reason, Timestamp: now()}))
}

// nextID returns a fresh id with the prefix; a.mu must be held.
func (a *agent) nextID(prefix string) string {
	a.seq[prefix]++
	return fmt.Sprintf("%s_%d", prefix, a.seq[prefix])
}

// id is nextID taking the lock.
func (a *agent) id(prefix string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.nextID(prefix)
}

// note logs a notification that could not be sent.
func (a *agent) note(err error) {
	if err != nil && !isClosed(err) {
		a.log.Warn("notification not sent", "err", err)
	}
}

func isClosed(err error) bool {
	return errors.Is(err, jsonrpc.ErrClosed) || errors.Is(err, jsonrpc.ErrPeerClosed) || errors.Is(err, context.Canceled)
}

func now() autohand.Timestamp {
	return autohand.Timestamp(time.Now().UTC().Format(time.RFC3339Nano))
}

// GetState reports the session.
func (a *agent) GetState(context.Context) (*autohand.GetStateResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var id *string
	if a.sessionID != "" {
		id = ptr.To(a.sessionID)
	}
	return &autohand.GetStateResult{
		Status: a.status, SessionID: id, Model: a.model, Workspace: a.cfg.workspace,
		ContextPercent: a.contextPercent(), MessageCount: int64(len(a.messages)),
		AuthenticatedUser: &autohand.GetStateResultAuthenticatedUser{Email: a.cfg.account},
	}, nil
}

// contextPercent estimates context use at 4 characters a token in a
// 200,000-token window; a.mu must be held.
func (a *agent) contextPercent() float64 {
	return float64(a.contextTokens()) / 2000
}

func (a *agent) contextTokens() int64 {
	n := 0
	for _, m := range a.messages {
		n += len(m.Content)
	}
	return int64(n/4) + 1200 // the system prompt
}

// GetMessages returns the most recent messages.
func (a *agent) GetMessages(_ context.Context, p *autohand.GetMessagesParams) (*autohand.GetMessagesResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	msgs := a.messages
	if p.Limit != nil {
		if *p.Limit < 0 {
			return nil, jsonrpc.InvalidParams("limit", "must not be negative")
		}
		if int(*p.Limit) < len(msgs) {
			msgs = msgs[len(msgs)-int(*p.Limit):]
		}
	}
	return &autohand.GetMessagesResult{Messages: append([]autohand.Message{}, msgs...)}, nil
}

// Reset saves the session to the history and starts a new one.
func (a *agent) Reset(ctx context.Context) (*autohand.ResetResult, error) {
	a.mu.Lock()
	if a.turn != nil {
		a.mu.Unlock()
		return nil, autohand.NewAgentBusyError()
	}
	a.archive()
	old := a.started
	a.sessionID = a.nextID("session")
	a.started = time.Now()
	a.messages = nil
	id := a.sessionID
	a.mu.Unlock()
	a.note(a.client.HookSessionEnd(ctx, &autohand.HookSessionEndParams{
		Reason: autohand.HookSessionEndParamsReasonClear, Duration: time.Since(old).Milliseconds(), Timestamp: now(),
	}))
	a.note(a.client.AgentStart(ctx, &autohand.AgentStartParams{
		SessionID: id, Model: a.cfg.model, Workspace: a.cfg.workspace, Timestamp: now(),
	}))
	a.note(a.client.HookSessionStart(ctx, &autohand.HookSessionStartParams{
		SessionType: autohand.HookSessionStartParamsSessionTypeClear, Timestamp: now(),
	}))
	return &autohand.ResetResult{SessionID: id}, nil
}

// archive saves the current session to the history; a.mu must be held.
func (a *agent) archive() {
	if len(a.messages) == 0 {
		return
	}
	defer func() { a.history = keepNewest(a.history, maxKept) }()
	a.history = append(a.history, session{
		entry: autohand.HistoryEntry{
			SessionID: a.sessionID, CreatedAt: stamp(a.started), LastActiveAt: now(),
			ProjectName: projectName(a.cfg.workspace), Model: a.model,
			MessageCount: int64(len(a.messages)), Status: autohand.HistoryEntryStatusCompleted,
		},
		messages: append([]autohand.Message{}, a.messages...),
	})
}

func stamp(t time.Time) autohand.Timestamp {
	return autohand.Timestamp(t.UTC().Format(time.RFC3339Nano))
}
