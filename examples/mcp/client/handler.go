package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/examples/mcp/internal/tasks"
	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// handler implements mcp.Client: it answers the server's requests and logs
// its notifications.
type handler struct {
	mcp.UnimplementedClient
	log      *slog.Logger
	roots    []mcp.Root
	sampling string        // echo or reject
	delay    time.Duration // how long the echo model takes
	elicit   string        // accept, decline or cancel
	tasks    *tasks.Store
}

func (h *handler) Ping(context.Context, *mcp.RequestParams) (*mcp.EmptyResult, error) {
	return &mcp.EmptyResult{}, nil
}

func (h *handler) ListRoots(context.Context, *mcp.RequestParams) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: h.roots}, nil
}

// CreateMessage stands in for a model: it repeats the last user text (or
// refuses, with -sampling reject). A request made a task runs as one.
func (h *handler) CreateMessage(ctx context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResponse, error) {
	if h.sampling == "reject" {
		return nil, mcp.NewUserRejectedError()
	}
	c := server(ctx)
	if p.Task != nil {
		info, err := h.tasks.Start(p.Task, h.notifier(c), func(ctx context.Context) (any, error) {
			return h.sample(ctx, c, p)
		})
		if err != nil {
			return nil, err
		}
		return ptr.To(mcp.NewCreateMessageResponse(mcp.CreateTaskResult{Task: info})), nil
	}
	res, err := h.sample(ctx, c, p)
	if err != nil {
		return nil, err
	}
	return ptr.To(mcp.NewCreateMessageResponse(*res)), nil
}

// sample builds the echo model's reply and reports progress when asked.
func (h *handler) sample(ctx context.Context, c mcp.Server, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
	var last string
	for _, m := range p.Messages {
		if m.Role != mcp.RoleUser {
			continue
		}
		blocks := []mcp.SamplingMessageContentBlock{}
		if m.Content.SamplingMessageContentBlock != nil {
			blocks = append(blocks, *m.Content.SamplingMessageContentBlock)
		} else if m.Content.Array != nil {
			blocks = *m.Content.Array
		}
		for _, b := range blocks {
			if b.Text != nil {
				last = b.Text.Text
			}
		}
	}
	select {
	case <-time.After(h.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	reply := "echo: " + last
	if words := strings.Fields(reply); int64(len(words)) > p.MaxTokens {
		reply = strings.Join(words[:p.MaxTokens], " ")
	}
	if p.Meta != nil && !p.Meta.ProgressToken.IsZero() {
		total, msg := 1.0, "generated"
		if err := c.Progress(ctx, &mcp.ProgressNotificationParams{ProgressToken: p.Meta.ProgressToken, Progress: 1, Total: &total, Message: msg}); err != nil {
			h.log.Warn("sending progress", "error", err)
		}
	}
	return &mcp.CreateMessageResult{
		Role:       mcp.RoleAssistant,
		Content:    mcp.NewSamplingContent(mcp.NewSamplingMessageContentBlock(mcp.TextContent{Text: reply})),
		Model:      "echo",
		StopReason: "endTurn",
	}, nil
}

// Elicit answers as -elicit says; accepting a form fills in its defaults.
func (h *handler) Elicit(_ context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResponse, error) {
	res := mcp.ElicitResult{Action: mcp.ElicitAction(h.elicit)}
	if u := p.ElicitRequestURLParams; u != nil {
		h.log.Info("the server asks the user to open a URL", "message", u.Message, "url", u.URL, "answer", h.elicit)
		return ptr.To(mcp.NewElicitResponse(res)), nil
	}
	form := p.ElicitRequestFormParams
	if form == nil {
		return nil, fmt.Errorf("elicitation params of neither mode")
	}
	h.log.Info("the server asks the user", "message", form.Message, "answer", h.elicit)
	if h.elicit == "accept" {
		res.Content = map[string]mcp.ElicitValue{}
		for name, prop := range form.RequestedSchema.Properties {
			v, err := defaultValue(prop)
			if err != nil {
				return nil, fmt.Errorf("form field %s: %w", name, err)
			}
			res.Content[name] = v
		}
	}
	return ptr.To(mcp.NewElicitResponse(res)), nil
}

// defaultValue is the value a user accepting the form as shown submits.
func defaultValue(p mcp.PrimitiveSchemaDefinition) (mcp.ElicitValue, error) {
	switch {
	case p.StringSchema != nil:
		return mcp.NewElicitValue(p.StringSchema.Default), nil
	case p.BooleanSchema != nil:
		return mcp.NewElicitValue(deref(p.BooleanSchema.Default)), nil
	case p.NumberSchema != nil:
		n := p.NumberSchema
		if n.Default != nil {
			return mcp.NewElicitValue(*n.Default), nil
		}
		return mcp.NewElicitValue(deref(n.Minimum)), nil
	case p.EnumSchema != nil:
		return enumDefault(*p.EnumSchema), nil
	}
	return mcp.ElicitValue{}, fmt.Errorf("a property of no known kind")
}

// enumDefault is the choice a user accepting an enum property as shown
// submits: its default, else its first value (none for a multi-select).
func enumDefault(e mcp.EnumSchema) mcp.ElicitValue {
	first := func(def string, values []string) mcp.ElicitValue {
		if def == "" && len(values) > 0 {
			def = values[0]
		}
		return mcp.NewElicitValue(def)
	}
	switch {
	case e.UntitledSingleSelectEnumSchema != nil:
		return first(e.UntitledSingleSelectEnumSchema.Default, e.UntitledSingleSelectEnumSchema.Enum)
	case e.LegacyTitledEnumSchema != nil:
		return first(e.LegacyTitledEnumSchema.Default, e.LegacyTitledEnumSchema.Enum)
	case e.TitledSingleSelectEnumSchema != nil:
		var values []string
		for _, o := range e.TitledSingleSelectEnumSchema.OneOf {
			values = append(values, o.Const)
		}
		return first(e.TitledSingleSelectEnumSchema.Default, values)
	case e.MultiSelectEnumSchema != nil && e.MultiSelectEnumSchema.Default != nil:
		return mcp.NewElicitValue(e.MultiSelectEnumSchema.Default)
	}
	return mcp.NewElicitValue([]string{})
}

// Tasks the server created here (sampling made a task).

func (h *handler) GetTask(_ context.Context, p *mcp.TaskIDParams) (*mcp.GetTaskResult, error) {
	return h.tasks.Get(p.TaskID)
}

func (h *handler) GetTaskPayload(ctx context.Context, p *mcp.TaskIDParams) (*mcp.GetTaskPayloadResult, error) {
	return h.tasks.Result(ctx, p.TaskID)
}

func (h *handler) ListTasks(_ context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListTasksResult, error) {
	return h.tasks.List(p.Cursor, 50)
}

func (h *handler) CancelTask(ctx context.Context, p *mcp.TaskIDParams) (*mcp.CancelTaskResult, error) {
	return h.tasks.Cancel(p.TaskID, h.notifier(server(ctx)))
}

// notifier sends notifications/tasks/status to the server.
func (h *handler) notifier(c mcp.Server) func(mcp.Task) {
	return func(t mcp.Task) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := c.TaskStatus(ctx, &mcp.TaskStatusNotificationParams{TaskID: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage,
			CreatedAt: t.CreatedAt, LastUpdatedAt: t.LastUpdatedAt, TTL: t.TTL, PollInterval: t.PollInterval})
		if err != nil {
			h.log.Warn("sending a task status", "error", err)
		}
	}
}

// Notifications from the server.

func (h *handler) Progress(_ context.Context, p *mcp.ProgressNotificationParams) error {
	h.log.Info("progress", "progress", p.Progress, "total", deref(p.Total), "message", p.Message)
	return nil
}

func (h *handler) ResourceListChanged(context.Context, *mcp.NotificationParams) error {
	h.log.Info("the server's resources changed")
	return nil
}

func (h *handler) ResourceUpdated(_ context.Context, p *mcp.ResourceUpdatedNotificationParams) error {
	h.log.Info("resource updated", "uri", p.URI)
	return nil
}

func (h *handler) PromptListChanged(context.Context, *mcp.NotificationParams) error {
	h.log.Info("the server's prompts changed")
	return nil
}

func (h *handler) ToolListChanged(context.Context, *mcp.NotificationParams) error {
	h.log.Info("the server's tools changed")
	return nil
}

func (h *handler) TaskStatus(_ context.Context, p *mcp.TaskStatusNotificationParams) error {
	h.log.Info("task status", "task", p.TaskID, "status", p.Status)
	return nil
}

func (h *handler) LoggingMessage(_ context.Context, p *mcp.LoggingMessageNotificationParams) error {
	h.log.Info("server log", "level", p.Level, "logger", p.Logger, "data", string(p.Data))
	return nil
}

func (h *handler) ElicitationComplete(_ context.Context, p *mcp.ElicitationCompleteParams) error {
	h.log.Info("elicitation complete", "id", p.ElicitationID)
	return nil
}

// server returns the server at the other end of the connection serving ctx.
func server(ctx context.Context) mcp.Server {
	return mcp.NewServerRemote(jsonrpc.ConnFromContext(ctx))
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
