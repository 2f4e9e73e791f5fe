package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// The tools that make the server call the client back.

func TestRoots(t *testing.T) {
	s := start(t)
	res := s.call(t, "roots", nil)
	if isError(res) || textOf(res) != "1 roots\nfile:///work/project project" {
		t.Fatalf("roots = %q", textOf(res))
	}
	recv(t, s.c.rootsAsked, "roots/list")
	// A roots change makes the server list them again and log the count.
	if err := s.srv.RootsListChanged(bounded(t), &mcp.NotificationParams{}); err != nil {
		t.Fatalf("notifications/roots/list_changed: %v", err)
	}
	recv(t, s.c.rootsAsked, "roots/list after the change")
	for {
		if logText(t, recv(t, s.c.logs, "the roots log")) == "roots changed: 1 roots" {
			break
		}
	}
}

func TestSampling(t *testing.T) {
	s := start(t)
	var asked *mcp.CreateMessageRequestParams
	relayed := make(chan *mcp.ProgressNotificationParams, 1)
	s.c.sampling = func(ctx context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResponse, error) {
		asked = p
		// Report progress under the server's token; the server relays it.
		msg := "thinking"
		if err := server(ctx).Progress(ctx, &mcp.ProgressNotificationParams{ProgressToken: p.Meta.ProgressToken, Progress: 1, Message: msg}); err != nil {
			return nil, err
		}
		// Answer only once the relayed progress is back: a response is
		// delivered as soon as it is read, so the server could otherwise
		// finish the tool (and drop the relay) before handling the
		// progress notification sent just before it.
		select {
		case r := <-s.c.progress:
			relayed <- r
		case <-time.After(wait):
			relayed <- nil
		}
		text := mcp.NewSamplingMessageContentBlock(mcp.TextContent{Text: "Paris"})
		return ptr.To(mcp.NewCreateMessageResponse(mcp.CreateMessageResult{
			Role: mcp.RoleAssistant, Model: "test-model", Content: mcp.NewSamplingContent([]mcp.SamplingMessageContentBlock{text}),
		})), nil
	}
	token := mcp.NewProgressToken(int64(9))
	res, err := s.callErr(bounded(t), "sample", map[string]any{"prompt": "Capital of France?", "maxTokens": 5}, &token)
	if err != nil || isError(res) || textOf(res) != "Paris [model test-model]" {
		t.Fatalf("sample = %v, %v", res, err)
	}
	if asked.MaxTokens != 5 || asked.Messages[0].Content.SamplingMessageContentBlock.Text.Text != "Capital of France?" || asked.Task != nil {
		t.Errorf("sampling request %+v", asked)
	}
	p := <-relayed
	if p == nil {
		t.Fatal("timed out waiting for relayed progress")
	}
	if p.ProgressToken.Integer == nil || *p.ProgressToken.Integer != 9 || p.Message == "" || p.Message != "thinking" {
		t.Errorf("relayed progress %+v", p)
	}

	s.c.sampling = nil // the user refuses: UserRejected (-1)
	if res := s.call(t, "sample", map[string]any{"prompt": "x"}); !isError(res) || !strings.Contains(textOf(res), "rejected") {
		t.Errorf("rejected sample = %q", textOf(res))
	}
}

func TestServerCancelsItsRequest(t *testing.T) {
	s := start(t)
	started := make(chan struct{})
	handlerDone := make(chan error, 1)
	s.c.sampling = func(ctx context.Context, _ *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResponse, error) {
		close(started)
		<-ctx.Done() // a person who never answers
		handlerDone <- ctx.Err()
		return nil, ctx.Err()
	}
	ctx, cancel := context.WithCancel(bounded(t))
	callDone := make(chan error, 1)
	go func() {
		_, err := s.callErr(ctx, "sample", map[string]any{"prompt": "x"}, nil)
		callDone <- err
	}()
	recv(t, started, "the sampling request")
	cancel() // cancels tools/call, so the server cancels sampling/createMessage
	if err := recv(t, callDone, "the cancelled call"); !errors.Is(err, context.Canceled) {
		t.Errorf("call: err = %v", err)
	}
	// The server's notifications/cancelled is consumed by the client's
	// connection, which ends the sampling handler's context.
	if err := recv(t, handlerDone, "the sampling handler to stop"); !errors.Is(err, context.Canceled) {
		t.Errorf("sampling handler context: %v", err)
	}
}

func TestElicitation(t *testing.T) {
	s := start(t)
	var form *mcp.ElicitRequestFormParams
	s.c.elicit = func(p *mcp.ElicitRequestParams) mcp.ElicitResult {
		if p.ElicitRequestURLParams != nil {
			return mcp.ElicitResult{Action: mcp.ElicitActionAccept}
		}
		form = p.ElicitRequestFormParams
		return mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]mcp.ElicitValue{
			"answer": mcp.NewElicitValue("42"), "confident": mcp.NewElicitValue(false),
		}}
	}
	res := s.call(t, "ask", map[string]any{"question": "Meaning of life?"})
	if textOf(res) != `answer: "42", confident: false` {
		t.Fatalf("ask = %q", textOf(res))
	}
	if form == nil || form.Message != "Meaning of life?" {
		t.Fatalf("form %+v", form)
	}
	if answer := form.RequestedSchema.Properties["answer"].StringSchema; answer == nil || answer.Default == "" || answer.Default != "yes" {
		t.Errorf("answer property %+v, want a string schema defaulting to yes", form.RequestedSchema.Properties["answer"])
	}
	if confident := form.RequestedSchema.Properties["confident"].BooleanSchema; confident == nil || confident.Default == nil || !*confident.Default {
		t.Errorf("confident property %+v, want a boolean schema defaulting to true", form.RequestedSchema.Properties["confident"])
	}
	s.c.elicit = func(*mcp.ElicitRequestParams) mcp.ElicitResult {
		return mcp.ElicitResult{Action: mcp.ElicitActionDecline}
	}
	if got := textOf(s.call(t, "ask", map[string]any{"question": "?"})); got != "the user chose decline" {
		t.Errorf("declined ask = %q", got)
	}

	// account needs a URL-mode elicitation first: -32042 lists it.
	ctx := bounded(t)
	_, err := s.callErr(ctx, "account", nil, nil)
	var rpcErr *jsonrpc.Error
	if !errors.Is(err, mcp.ErrURLElicitationRequired) || !errors.As(err, &rpcErr) {
		t.Fatalf("account before connecting: err = %v", err)
	}
	var data mcp.URLElicitationRequiredData
	if err := json.Unmarshal(rpcErr.Data, &data); err != nil || len(data.Elicitations) != 1 || data.Elicitations[0].Mode != "url" {
		t.Fatalf("error data %s: %v", rpcErr.Data, err)
	}
	s.c.elicit = func(p *mcp.ElicitRequestParams) mcp.ElicitResult {
		if u := p.ElicitRequestURLParams; u == nil || u.URL == "" || u.ElicitationID == "" {
			t.Errorf("connect asked %+v", p)
		}
		return mcp.ElicitResult{Action: mcp.ElicitActionAccept}
	}
	res = s.call(t, "connect", nil)
	id := recv(t, s.c.elicited, "notifications/elicitation/complete")
	if !strings.Contains(textOf(res), id) {
		t.Errorf("connect = %q, completed %s", textOf(res), id)
	}
	if got := textOf(s.call(t, "account", nil)); got != "account: example-user" {
		t.Errorf("account = %q", got)
	}
}

// server returns the server as the client's handlers call it.
func server(ctx context.Context) mcp.Server {
	return mcp.NewServerRemote(jsonrpc.ConnFromContext(ctx))
}
