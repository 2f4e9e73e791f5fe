package main

import (
	"cmp"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// BrowserHandoffCreate issues a handoff token for the browser extension.
func (a *agent) BrowserHandoffCreate(_ context.Context, _ *autohand.BrowserHandoffCreateParams) (*autohand.BrowserHandoffCreateResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	tok := a.nextID("handoff")
	a.handoffs = keepNewest(append(a.handoffs, tok), maxKept)
	t := time.Now()
	return &autohand.BrowserHandoffCreateResult{
		Token: tok, SessionID: a.sessionID, WorkspaceRoot: a.cfg.workspace,
		CreatedAt: stamp(t), ExpiresAt: stamp(t.Add(10 * time.Minute)), URL: "autohand://handoff/" + tok,
	}, nil
}

// BrowserHandoffAttach attaches through a token this agent issued.
func (a *agent) BrowserHandoffAttach(_ context.Context, p *autohand.BrowserHandoffAttachParams) (*autohand.BrowserHandoffAttachResult, error) {
	if p.Token == "" {
		return nil, jsonrpc.InvalidParams("token", "must not be empty")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, t := range a.handoffs {
		if t == p.Token {
			return a.attached(), nil
		}
	}
	return &autohand.BrowserHandoffAttachResult{Success: false}, nil
}

// attached describes the session a handoff joins; a.mu must be held.
func (a *agent) attached() *autohand.BrowserHandoffAttachResult {
	return &autohand.BrowserHandoffAttachResult{
		Success: true, SessionID: a.sessionID, WorkspaceRoot: a.cfg.workspace,
		MessageCount: ptr.To(int64(len(a.messages))),
	}
}

// BrowserHandoffAttachLatest attaches through the newest token.
func (a *agent) BrowserHandoffAttachLatest(context.Context) (*autohand.BrowserHandoffAttachLatestResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.handoffs) == 0 {
		return &autohand.BrowserHandoffAttachLatestResult{}, nil
	}
	r := a.attached()
	return &autohand.BrowserHandoffAttachLatestResult{Success: r.Success, SessionID: r.SessionID, WorkspaceRoot: r.WorkspaceRoot, MessageCount: r.MessageCount}, nil
}

// BrowserCapabilitiesSet enables the browser tools of protocol 1 or 2.
func (a *agent) BrowserCapabilitiesSet(_ context.Context, p *autohand.BrowserCapabilitiesSetParams) (*autohand.BrowserCapabilitiesSetResult, error) {
	res := &autohand.BrowserCapabilitiesSetResult{ProtocolVersion: autohand.BrowserCapabilitiesSetResultProtocolVersionN1, Tools: []string{}}
	if p.ProtocolVersion == 1 || p.ProtocolVersion == 2 {
		res.Enabled = true
		res.ProtocolVersion = autohand.BrowserCapabilitiesSetResultProtocolVersion(p.ProtocolVersion)
		res.Tools = nonNil(p.Tools)
	}
	a.mu.Lock()
	a.settings.browserTools = res.Tools
	a.mu.Unlock()
	return res, nil
}

// registry is the scripted community skills registry.
var registry = []autohand.CommunitySkill{
	{ID: "go-testing", Name: "go-testing", Description: "Write table-driven Go tests", Category: "testing", Tags: []string{"go"}, Rating: ptr.To(4.8), IsCurated: true},
	{ID: "commit-messages", Name: "commit-messages", Description: "Write clear commit messages", Category: "git", Rating: ptr.To(4.5), IsFeatured: true},
	{ID: "shell-runner", Name: "shell-runner", Description: "Run arbitrary shell scripts", Category: "automation", Tags: []string{"shell"}, Rating: ptr.To(3.9)},
}

// GetSkillsRegistry lists the registry.
func (a *agent) GetSkillsRegistry(context.Context, *autohand.GetSkillsRegistryParams) (*autohand.GetSkillsRegistryResult, error) {
	counts := map[string]int64{}
	res := &autohand.GetSkillsRegistryResult{Success: true, Skills: registry}
	for _, s := range registry {
		if counts[s.Category] == 0 {
			res.Categories = append(res.Categories, autohand.GetSkillsRegistryResultCategoriesItem{Name: s.Category})
		}
		counts[s.Category]++
	}
	for i := range res.Categories {
		res.Categories[i].Count = counts[res.Categories[i].Name]
	}
	return res, nil
}

// InstallSkill installs a registry skill, warning about risky ones.
func (a *agent) InstallSkill(ctx context.Context, p *autohand.SkillInstall) (*autohand.SkillInstallResult, error) {
	var skill *autohand.CommunitySkill
	for i := range registry {
		if registry[i].ID == p.SkillName || registry[i].Name == p.SkillName {
			skill = &registry[i]
		}
	}
	if skill == nil {
		return &autohand.SkillInstallResult{Error: "no skill " + p.SkillName + " in the registry"}, nil
	}
	a.mu.Lock()
	_, have := a.skills[skill.Name]
	if have && !p.Force {
		a.mu.Unlock()
		return &autohand.SkillInstallResult{SkillName: skill.Name, Error: "already installed; set force to overwrite"}, nil
	}
	dir := filepath.Join(a.cfg.workspace, ".autohand", "skills", skill.Name)
	if p.Scope == autohand.SkillScopeUser {
		dir = filepath.Join("~", ".autohand", "skills", skill.Name)
	}
	a.skills[skill.Name] = dir
	a.mu.Unlock()
	if skill.Category == "automation" {
		a.note(a.client.LearnSecurityWarning(ctx, &autohand.LearnSecurityWarningParams{
			Skill: skill.Name, Message: skill.Name + " can run arbitrary shell commands", Timestamp: now(),
		}))
	}
	a.note(a.client.LearnInstallComplete(ctx, &autohand.LearnInstallCompleteParams{Skills: []string{skill.Name}, Timestamp: now()}))
	return &autohand.SkillInstallResult{Success: true, SkillName: skill.Name, Path: dir}, nil
}

func (a *agent) learnProgress(ctx context.Context, steps ...autohand.LearnProgressParamsStatus) {
	for _, s := range steps {
		a.note(a.client.LearnProgress(ctx, &autohand.LearnProgressParams{Status: s, Timestamp: now()}))
	}
}

// LearnRecommend recommends the registry skills not installed yet.
func (a *agent) LearnRecommend(ctx context.Context, _ *autohand.LearnRecommendParams) (*autohand.LearnRecommendResult, error) {
	a.learnProgress(ctx, autohand.LearnProgressParamsStatusAnalyzing, autohand.LearnProgressParamsStatusLoadingRegistry, autohand.LearnProgressParamsStatusEvaluating)
	res := &autohand.LearnRecommendResult{
		Success: true, ProjectSummary: "Project " + projectName(a.cfg.workspace),
		Audit: []autohand.LearnRecommendResultAuditItem{}, Recommendations: []autohand.LearnRecommendResultRecommendationsItem{},
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range registry {
		if _, ok := a.skills[s.Name]; !ok && s.Rating != nil {
			res.Recommendations = append(res.Recommendations, autohand.LearnRecommendResultRecommendationsItem{Slug: s.ID, Score: *s.Rating / 5, Reason: s.Description})
		}
	}
	return res, nil
}

// LearnUpdate reports every installed skill as current.
func (a *agent) LearnUpdate(ctx context.Context) (*autohand.LearnUpdateResult, error) {
	a.learnProgress(ctx, autohand.LearnProgressParamsStatusUpdating)
	a.mu.Lock()
	defer a.mu.Unlock()
	res := &autohand.LearnUpdateResult{Success: true, Results: []autohand.LearnUpdateResultResultsItem{}}
	for name := range a.skills {
		res.Unchanged++
		res.Results = append(res.Results, autohand.LearnUpdateResultResultsItem{Name: name, Status: autohand.LearnUpdateResultResultsItemStatusUnchanged})
	}
	return res, nil
}

// LearnGenerate writes a skill describing the project.
func (a *agent) LearnGenerate(ctx context.Context, p *autohand.LearnGenerateParams) (*autohand.LearnGenerateResult, error) {
	a.learnProgress(ctx, autohand.LearnProgressParamsStatusAnalyzing, autohand.LearnProgressParamsStatusGenerating)
	name := projectName(a.cfg.workspace) + "-conventions"
	dir := filepath.Join(a.cfg.workspace, ".autohand", "skills", name)
	if p.Scope == autohand.SkillScopeUser {
		dir = filepath.Join("~", ".autohand", "skills", name)
	}
	a.mu.Lock()
	a.skills[name] = dir
	a.mu.Unlock()
	return &autohand.LearnGenerateResult{Success: true, SkillName: name, SkillPath: dir}, nil
}

// SkillsSearch finds registry skills whose name, description or tags hold
// every word of the query.
func (a *agent) SkillsSearch(_ context.Context, p *autohand.SkillsSearchParams) (*autohand.SkillList, error) {
	words := strings.Fields(strings.ToLower(p.Query))
	res := &autohand.SkillList{Success: true, Skills: []autohand.CommunitySkill{}}
	for _, s := range registry {
		text := strings.ToLower(s.Name + " " + s.Description + " " + strings.Join(s.Tags, " "))
		match := true
		for _, w := range words {
			match = match && strings.Contains(text, w)
		}
		if match {
			res.Skills = append(res.Skills, s)
		}
	}
	res.Skills = limit(res.Skills, p.Limit)
	return res, nil
}

// SkillsTrending lists the registry by rating.
func (a *agent) SkillsTrending(_ context.Context, p *autohand.SkillsTrendingParams) (*autohand.SkillList, error) {
	skills := slices.Clone(registry)
	slices.SortStableFunc(skills, func(x, y autohand.CommunitySkill) int { return cmp.Compare(*y.Rating, *x.Rating) })
	return &autohand.SkillList{Success: true, Skills: limit(skills, p.Limit)}, nil
}

func limit[T any](s []T, n *int64) []T {
	if n != nil && *n >= 0 && int(*n) < len(s) {
		return s[:*n]
	}
	return s
}

// SkillsInstall is InstallSkill under its skills-namespace name.
func (a *agent) SkillsInstall(ctx context.Context, p *autohand.SkillInstall) (*autohand.SkillInstallResult, error) {
	return a.InstallSkill(ctx, p)
}

// SkillsRemove uninstalls a skill.
func (a *agent) SkillsRemove(_ context.Context, p *autohand.SkillsRemoveParams) (*autohand.SkillsRemoveResult, error) {
	if p.SkillName == "" {
		return nil, jsonrpc.InvalidParams("skillName", "must not be empty")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.skills[p.SkillName]; !ok {
		return &autohand.SkillsRemoveResult{SkillName: p.SkillName, Error: p.SkillName + " is not installed"}, nil
	}
	delete(a.skills, p.SkillName)
	return &autohand.SkillsRemoveResult{Success: true, SkillName: p.SkillName}, nil
}
