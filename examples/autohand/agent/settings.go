package main

import (
	"context"
	"encoding/json"
	"path"
	"path/filepath"
	"sort"
	"time"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

func projectName(workspace string) string { return filepath.Base(workspace) }

// GetHistory pages through the saved sessions, newest first.
func (a *agent) GetHistory(_ context.Context, p *autohand.GetHistoryParams) (*autohand.GetHistoryResult, error) {
	page, size := int64(1), int64(10)
	if p.Page != nil {
		page = *p.Page
	}
	if p.PageSize != nil {
		size = *p.PageSize
	}
	if page < 1 || size < 1 {
		return nil, jsonrpc.InvalidParams("page", "page and pageSize start at 1")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	total := int64(len(a.history))
	res := &autohand.GetHistoryResult{
		Sessions: []autohand.HistoryEntry{}, CurrentPage: page,
		TotalPages: (total + size - 1) / size, TotalItems: total,
	}
	for i := (page - 1) * size; i < total && i < page*size; i++ {
		res.Sessions = append(res.Sessions, a.history[total-1-i].entry)
	}
	return res, nil
}

// find returns a saved session; a.mu must be held.
func (a *agent) find(id string) *session {
	for i := range a.history {
		if a.history[i].entry.SessionID == id {
			return &a.history[i]
		}
	}
	return nil
}

// GetSession loads a saved session.
func (a *agent) GetSession(_ context.Context, p *autohand.GetSessionParams) (*autohand.GetSessionResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.find(p.SessionID)
	if s == nil {
		return &autohand.GetSessionResult{
			SessionID: p.SessionID, Messages: []autohand.Message{}, Status: "unknown",
			Error: "no saved session " + p.SessionID, WorkspaceRoot: a.cfg.workspace,
		}, nil
	}
	e := s.entry
	return &autohand.GetSessionResult{
		Success: true, SessionID: e.SessionID, ProjectName: e.ProjectName, Model: e.Model,
		MessageCount: e.MessageCount, Status: string(e.Status), CreatedAt: e.CreatedAt,
		LastActiveAt: e.LastActiveAt, Summary: s.messages[0].Content,
		Messages: append([]autohand.Message{}, s.messages...), WorkspaceRoot: a.cfg.workspace,
	}, nil
}

// SessionAttach continues a saved session.
func (a *agent) SessionAttach(_ context.Context, p *autohand.SessionAttachParams) (*autohand.SessionAttachResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.turn != nil {
		return nil, autohand.NewAgentBusyError()
	}
	s := a.find(p.SessionID)
	if s == nil {
		return &autohand.SessionAttachResult{Error: "no saved session " + p.SessionID}, nil
	}
	a.archive()
	a.sessionID = s.entry.SessionID
	a.messages = append([]autohand.Message{}, s.messages...)
	return &autohand.SessionAttachResult{
		Success: true, SessionID: a.sessionID, WorkspaceRoot: a.cfg.workspace,
		MessageCount: ptr.To(int64(len(a.messages))),
	}, nil
}

// PlanModeSet turns plan mode on or off.
func (a *agent) PlanModeSet(ctx context.Context, p *autohand.PlanModeSetParams) (*autohand.SuccessResult, error) {
	a.mu.Lock()
	a.settings.planMode = p.Enabled
	a.mu.Unlock()
	a.modeChanged(ctx, "plan", p.Enabled)
	return &autohand.SuccessResult{Success: true}, nil
}

func (a *agent) modeChanged(ctx context.Context, mode string, value any) {
	raw, _ := json.Marshal(value)
	a.note(a.client.ModeChange(ctx, &autohand.ModeChangeParams{Mode: mode, Value: raw, Timestamp: now()}))
}

// PermissionModeSet changes how the agent asks.
func (a *agent) PermissionModeSet(ctx context.Context, p *autohand.PermissionModeSetParams) (*autohand.PermissionModeSetResult, error) {
	a.mu.Lock()
	prev := a.settings.permissionMode
	a.settings.permissionMode = p.Mode
	a.mu.Unlock()
	a.modeChanged(ctx, "permission", p.Mode)
	return &autohand.PermissionModeSetResult{Success: true, CurrentMode: string(p.Mode), PreviousMode: string(prev)}, nil
}

// YoloSet allows matching tool calls without asking.
func (a *agent) YoloSet(_ context.Context, p *autohand.YoloAllowance) (*autohand.YoloAllowanceResult, error) {
	if _, err := path.Match(p.Pattern, ""); err != nil {
		return nil, jsonrpc.InvalidParams("pattern", err.Error())
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.settings.yoloPattern = p.Pattern
	a.settings.yoloUntil = time.Time{}
	res := &autohand.YoloAllowanceResult{Success: true}
	if p.TimeoutSeconds != nil {
		a.settings.yoloUntil = time.Now().Add(time.Duration(*p.TimeoutSeconds) * time.Second)
		res.ExpiresIn = p.TimeoutSeconds
	}
	return res, nil
}

// YoloSetCompat is the older name of YoloSet.
func (a *agent) YoloSetCompat(ctx context.Context, p *autohand.YoloAllowance) (*autohand.YoloAllowanceResult, error) {
	return a.YoloSet(ctx, p)
}

// allowedWithoutAsking reports whether a tool may run without a permission
// prompt; a.mu must be held.
func (a *agent) allowedWithoutAsking(tool string) bool {
	switch a.settings.permissionMode {
	case autohand.PermissionModeBypassPermissions, autohand.PermissionModeUnrestricted:
		return true
	}
	s := a.settings
	if s.yoloPattern == "" || (!s.yoloUntil.IsZero() && time.Now().After(s.yoloUntil)) {
		return false
	}
	ok, _ := path.Match(s.yoloPattern, tool)
	return ok
}

// ModelSet switches the model.
func (a *agent) ModelSet(_ context.Context, p *autohand.ModelSetParams) (*autohand.ModelSetResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.model = a.cfg.model
	if p.Model != "" {
		a.model = p.Model
	}
	return &autohand.ModelSetResult{Success: true, CurrentModel: a.model}, nil
}

// MaxThinkingTokensSet limits reasoning.
func (a *agent) MaxThinkingTokensSet(_ context.Context, p *autohand.MaxThinkingTokensSetParams) (*autohand.MaxThinkingTokensSetResult, error) {
	if p.MaxThinkingTokens != nil && *p.MaxThinkingTokens < 0 {
		return nil, jsonrpc.InvalidParams("maxThinkingTokens", "must not be negative")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.settings.maxThinkingTokens = p.MaxThinkingTokens
	return &autohand.MaxThinkingTokensSetResult{Success: true, CurrentMaxThinkingTokens: p.MaxThinkingTokens}, nil
}

// ApplyFlagSettings applies the settings it knows: model and plan.
func (a *agent) ApplyFlagSettings(_ context.Context, p *autohand.ApplyFlagSettingsParams) (*autohand.ApplyFlagSettingsResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	applied := []string{}
	for name, raw := range p.Settings {
		switch name {
		case "model":
			var m string
			if json.Unmarshal(raw, &m) == nil && m != "" {
				a.model = m
				applied = append(applied, name)
			}
		case "plan":
			var b bool
			if json.Unmarshal(raw, &b) == nil {
				a.settings.planMode = b
				applied = append(applied, name)
			}
		}
	}
	sort.Strings(applied)
	return &autohand.ApplyFlagSettingsResult{Success: true, AppliedSettings: applied}, nil
}

// SetContextCompact turns compaction on or off.
func (a *agent) SetContextCompact(_ context.Context, p *autohand.SetContextCompactParams) (*autohand.SetContextCompactResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.settings.contextCompact = p.Enabled
	return &autohand.SetContextCompactResult{Enabled: p.Enabled}, nil
}

// GetSupportedModels lists Autohand AI's models and the current one.
func (a *agent) GetSupportedModels(context.Context) (*autohand.GetSupportedModelsResult, error) {
	models := []autohand.GetSupportedModelsResultModelsItem{
		{ID: "fantail", DisplayName: "Fantail"}, {ID: "moa", DisplayName: "MoA"},
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.model != "fantail" && a.model != "moa" {
		models = append(models, autohand.GetSupportedModelsResultModelsItem{ID: a.model, DisplayName: a.model})
	}
	return &autohand.GetSupportedModelsResult{Models: models}, nil
}

// GetSupportedCommands lists the slash commands this agent understands.
func (a *agent) GetSupportedCommands(context.Context) (*autohand.GetSupportedCommandsResult, error) {
	return &autohand.GetSupportedCommandsResult{Commands: []string{"/exit", "/mcp", "/showcase"}}, nil
}

// GetToolsRegistry lists the built-in tools and the editor's MCP tools.
func (a *agent) GetToolsRegistry(context.Context) (*autohand.GetToolsRegistryResult, error) {
	entry := func(name, desc, source string) map[string]json.RawMessage {
		n, _ := json.Marshal(name)
		d, _ := json.Marshal(desc)
		s, _ := json.Marshal(source)
		return map[string]json.RawMessage{"name": n, "description": d, "source": s}
	}
	tools := []map[string]json.RawMessage{
		entry("write_file", "Write a file of the workspace", "builtin"),
		entry("read_file", "Read a file of the workspace", "builtin"),
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, t := range a.mcp.vscode {
		tools = append(tools, entry(t.Name, t.Description, "vscode"))
	}
	return &autohand.GetToolsRegistryResult{Tools: tools, Diagnostics: []autohand.GetToolsRegistryResultDiagnosticsItem{}}, nil
}

// GetContextUsage breaks the context estimate down.
func (a *agent) GetContextUsage(context.Context) (*autohand.GetContextUsageResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	total := a.contextTokens()
	msgs := total - 1200
	window := int64(200000)
	pct := float64(total) * 100 / float64(window)
	return &autohand.GetContextUsageResult{
		SystemPrompt: 800, Tools: 400, Messages: msgs, Total: total, ContextWindow: &window,
		UsagePercent: &pct, IsWarning: pct >= 80, IsCritical: pct >= 95,
	}, nil
}

// ReloadPlugins has no plugins to reload.
func (a *agent) ReloadPlugins(context.Context) (*autohand.ReloadPluginsResult, error) {
	return &autohand.ReloadPluginsResult{Success: true, ReloadedPlugins: []string{}}, nil
}

// GetAccountInfo reports the -account flag.
func (a *agent) GetAccountInfo(context.Context) (*autohand.GetAccountInfoResult, error) {
	return &autohand.GetAccountInfoResult{Email: a.cfg.account}, nil
}
