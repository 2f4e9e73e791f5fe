package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// The tools that call back into the client.

func (s *server) caps() mcp.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientCaps
}

func (s *server) roots(ctx context.Context, c mcp.Client, _ *mcp.ProgressToken, _ json.RawMessage) (*mcp.CallToolResult, error) {
	if s.caps().Roots == nil {
		return toolError("the client does not offer roots"), nil
	}
	res, err := c.ListRoots(ctx, &mcp.RequestParams{})
	if err != nil {
		return nil, fmt.Errorf("listing the client's roots: %w", err)
	}
	var lines []string
	for _, r := range res.Roots {
		lines = append(lines, strings.TrimSpace(r.URI+" "+r.Name))
	}
	return text("%d roots\n%s", len(res.Roots), strings.Join(lines, "\n")), nil
}

// relayProgress registers a progress token for a request to the client
// whose progress goes to the caller's token, if any; call the returned
// function when the request is over.
func (s *server) relayProgress(c mcp.Client, caller *mcp.ProgressToken) (*mcp.RequestMeta, func()) {
	s.mu.Lock()
	s.nextToken++
	tok := mcp.NewProgressToken(fmt.Sprintf("server-%d", s.nextToken))
	key, _ := json.Marshal(tok)
	if caller != nil {
		s.relays[string(key)] = relay{token: *caller, client: c}
	}
	s.mu.Unlock()
	return &mcp.RequestMeta{ProgressToken: tok}, func() {
		s.mu.Lock()
		delete(s.relays, string(key))
		s.mu.Unlock()
	}
}

func (s *server) sample(ctx context.Context, c mcp.Client, token *mcp.ProgressToken, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		Prompt     string `json:"prompt"`
		MaxTokens  int64  `json:"maxTokens"`
		AsTask     bool   `json:"asTask"`
		CancelTask bool   `json:"cancelTask"`
		AwaitDone  bool   `json:"awaitDone"`
	}
	if bad := decode(raw, &a); bad != nil {
		return bad, nil
	}
	caps := s.caps()
	if caps.Sampling == nil {
		return toolError("the client does not offer sampling"), nil
	}
	if a.MaxTokens <= 0 {
		a.MaxTokens = 200
	}
	meta, done := s.relayProgress(c, token)
	defer done()
	p := &mcp.CreateMessageRequestParams{
		Meta:         meta,
		Messages:     []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewSamplingContent(mcp.NewSamplingMessageContentBlock(mcp.TextContent{Text: a.Prompt}))}},
		SystemPrompt: "You are a concise assistant.",
		MaxTokens:    a.MaxTokens,
	}
	asTask := a.AsTask && caps.Tasks != nil && caps.Tasks.Requests != nil &&
		caps.Tasks.Requests.Sampling != nil && caps.Tasks.Requests.Sampling.CreateMessage != nil
	if asTask {
		p.Task = &mcp.TaskMetadata{TTL: ptr.To(int64(60000))}
	}
	resp, err := c.CreateMessage(ctx, p)
	if errors.Is(err, mcp.ErrUserRejected) {
		return toolError("the user rejected the sampling request"), nil
	}
	if err != nil {
		return nil, fmt.Errorf("sampling: %w", err)
	}
	res := resp.CreateMessageResult
	if resp.CreateTaskResult != nil {
		if a.CancelTask {
			task := resp.CreateTaskResult.Task
			if a.AwaitDone {
				// Cancelling a finished task is refused: wait for it to
				// finish, to show that.
				if task, err = s.pollTask(ctx, c, task); err != nil {
					return nil, err
				}
			}
			t, err := c.CancelTask(ctx, &mcp.TaskIDParams{TaskID: task.TaskID})
			if err != nil {
				return toolError("could not cancel the sampling task: %s", jsonrpc.Truncate(err.Error())), nil
			}
			return text("sampling task %s", t.Status), nil
		}
		if res, err = s.awaitSampling(ctx, c, resp.CreateTaskResult.Task); err != nil {
			return nil, err
		}
	}
	var parts []string
	blocks := []mcp.SamplingMessageContentBlock{}
	if res.Content.SamplingMessageContentBlock != nil {
		blocks = append(blocks, *res.Content.SamplingMessageContentBlock)
	} else if res.Content.Array != nil {
		blocks = *res.Content.Array
	}
	for _, b := range blocks {
		if b.Text != nil {
			parts = append(parts, b.Text.Text)
		}
	}
	prefix := ""
	if resp.CreateTaskResult != nil {
		prefix = "(task) "
	}
	return text("%s%s [model %s]", prefix, strings.Join(parts, ""), res.Model), nil
}

// awaitSampling polls a sampling task the client runs while it works and
// then fetches its result.
func (s *server) awaitSampling(ctx context.Context, c mcp.Client, t mcp.Task) (*mcp.CreateMessageResult, error) {
	if caps := s.caps(); caps.Tasks != nil && caps.Tasks.List != nil {
		// A client that lists its tasks must list this one.
		list, err := c.ListTasks(ctx, &mcp.PaginatedRequestParams{})
		if err != nil {
			return nil, fmt.Errorf("listing the client's tasks: %w", err)
		}
		if !slices.ContainsFunc(list.Tasks, func(l mcp.Task) bool { return l.TaskID == t.TaskID }) {
			return nil, fmt.Errorf("the client does not list its sampling task %s", t.TaskID)
		}
	}
	// Once the task is final or input_required, tasks/result waits for
	// the outcome (and carries the client's requests, if it has any).
	t, err := s.pollTask(ctx, c, t)
	if err != nil {
		return nil, err
	}
	payload, err := c.GetTaskPayload(ctx, &mcp.TaskIDParams{TaskID: t.TaskID})
	if err != nil {
		return nil, fmt.Errorf("fetching the result of sampling task %s: %w", t.TaskID, err)
	}
	b, err := json.Marshal(payload)
	if err != nil {
		return nil, fmt.Errorf("re-encoding the sampling result: %w", err)
	}
	var res mcp.CreateMessageResult
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("decoding the sampling result: %w", err)
	}
	return &res, nil
}

func (s *server) ask(ctx context.Context, c mcp.Client, _ *mcp.ProgressToken, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		Question string `json:"question"`
	}
	if bad := decode(raw, &a); bad != nil {
		return bad, nil
	}
	if s.caps().Elicitation == nil {
		return toolError("the client does not offer elicitation"), nil
	}
	form := "form"
	resp, err := c.Elicit(ctx, ptr.To(mcp.NewElicitRequestParams(mcp.ElicitRequestFormParams{
		Mode:    form,
		Message: a.Question,
		RequestedSchema: mcp.ElicitationSchema{
			Type: "object",
			Properties: map[string]mcp.PrimitiveSchemaDefinition{
				"answer":    mcp.NewPrimitiveSchemaDefinition(mcp.StringSchema{Title: "Answer", Default: "yes"}),
				"confident": mcp.NewPrimitiveSchemaDefinition(mcp.BooleanSchema{Title: "Confident?", Default: ptr.To(true)}),
			},
			Required: []string{"answer"},
		},
	})))
	if err != nil {
		return nil, fmt.Errorf("asking the user: %w", err)
	}
	if resp.ElicitResult == nil {
		return toolError("the client answered with a task, which this tool does not ask for"), nil
	}
	r := resp.ElicitResult
	if r.Action != mcp.ElicitActionAccept {
		return text("the user chose %s", r.Action), nil
	}
	answer, _ := json.Marshal(r.Content["answer"])
	confident, _ := json.Marshal(r.Content["confident"])
	return text("answer: %s, confident: %s", answer, confident), nil
}

// newElicitationID returns a fresh random id.
func newElicitationID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func connectURL(id string) string { return "https://example.invalid/connect?elicitationId=" + id }

func (s *server) connect(ctx context.Context, c mcp.Client, _ *mcp.ProgressToken, _ json.RawMessage) (*mcp.CallToolResult, error) {
	if e := s.caps().Elicitation; e == nil || e.URL == nil {
		return toolError("the client does not offer URL elicitation"), nil
	}
	id := newElicitationID()
	resp, err := c.Elicit(ctx, ptr.To(mcp.NewElicitRequestParams(mcp.ElicitRequestURLParams{
		Mode: "url", Message: "Sign in to connect your example account.", ElicitationID: id, URL: connectURL(id),
	})))
	if err != nil {
		return nil, fmt.Errorf("asking the user to connect: %w", err)
	}
	if resp.ElicitResult == nil || resp.ElicitResult.Action != mcp.ElicitActionAccept {
		return text("not connected"), nil
	}
	// The example has no web page: the sign-in counts as done at once.
	s.mu.Lock()
	s.connected = true
	s.mu.Unlock()
	if err := c.ElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: id}); err != nil {
		return nil, fmt.Errorf("announcing the completed elicitation: %w", err)
	}
	return text("connected (elicitation %s)", id), nil
}

func (s *server) account(context.Context, mcp.Client, *mcp.ProgressToken, json.RawMessage) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	connected := s.connected
	s.mu.Unlock()
	if !connected {
		id := newElicitationID()
		return nil, mcp.NewURLElicitationRequiredError(&mcp.URLElicitationRequiredData{
			Elicitations: []mcp.ElicitRequestURLParams{{Mode: "url", ElicitationID: id, URL: connectURL(id),
				Message: "Connect your example account first."}},
		})
	}
	return text("account: example-user"), nil
}

// pollTask polls the client's task t while it works and returns it as it
// is once it no longer does.
func (s *server) pollTask(ctx context.Context, c mcp.Client, t mcp.Task) (mcp.Task, error) {
	for t.Status == mcp.TaskStatusWorking {
		wait := 20 * time.Millisecond
		if t.PollInterval != nil && *t.PollInterval > 0 {
			wait = min(time.Duration(*t.PollInterval)*time.Millisecond, time.Second)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return t, ctx.Err()
		}
		got, err := c.GetTask(ctx, &mcp.TaskIDParams{TaskID: t.TaskID})
		if err != nil {
			return t, fmt.Errorf("polling task %s: %w", t.TaskID, err)
		}
		t.Status, t.PollInterval = got.Status, got.PollInterval
	}
	return t, nil
}
