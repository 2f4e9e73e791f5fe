package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// The tools that send notifications while they run or call back into the
// client.

// step is the pause between the messages of the logging and progress
// tools, so that the client sees them arrive one by one during the call.
const step = 50 * time.Millisecond

// pause waits for d, or returns the context's error if it ends first.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func toolWithLogging(ctx context.Context, s *session, c call) (*mcp.CallToolResult, error) {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			if err := pause(ctx, step); err != nil {
				return nil, err
			}
		}
		if err := s.logf(ctx, c.client, mcp.LoggingLevelInfo, msg); err != nil {
			return nil, fmt.Errorf("sending log message %d: %w", i+1, err)
		}
	}
	return result(textBlock("Sent three log messages.")), nil
}

func toolWithProgress(ctx context.Context, _ *session, c call) (*mcp.CallToolResult, error) {
	total := 100.0
	for i, done := range []float64{0, 50, 100} {
		if i > 0 {
			if err := pause(ctx, step); err != nil {
				return nil, err
			}
		}
		if c.token.IsZero() {
			continue
		}
		msg := fmt.Sprintf("step %d of 3", i+1)
		if err := c.client.Progress(ctx, &mcp.ProgressNotificationParams{ProgressToken: c.token, Progress: done, Total: &total, Message: msg}); err != nil {
			return nil, fmt.Errorf("sending progress %v: %w", done, err)
		}
	}
	return result(textBlock("Reported progress 0, 50 and 100 of 100.")), nil
}

func sampling(ctx context.Context, s *session, c call) (*mcp.CallToolResult, error) {
	prompt, bad := c.stringArg("prompt")
	if bad != nil {
		return bad, nil
	}
	if s.caps().Sampling == nil {
		return toolError("the client does not offer sampling"), nil
	}
	resp, err := c.client.CreateMessage(ctx, &mcp.CreateMessageRequestParams{
		Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewSamplingContent(
			mcp.NewSamplingMessageContentBlock(mcp.TextContent{Text: prompt}))}},
		MaxTokens: 100,
	})
	if err != nil {
		return toolError("sampling failed: %s", jsonrpc.Truncate(err.Error())), nil
	}
	if resp.CreateMessageResult == nil {
		return toolError("the client answered sampling with a task, which was not asked for"), nil
	}
	res := resp.CreateMessageResult
	var blocks []mcp.SamplingMessageContentBlock
	switch {
	case res.Content.SamplingMessageContentBlock != nil:
		blocks = []mcp.SamplingMessageContentBlock{*res.Content.SamplingMessageContentBlock}
	case res.Content.Array != nil:
		blocks = *res.Content.Array
	}
	var text []string
	for _, b := range blocks {
		if b.Text != nil {
			text = append(text, b.Text.Text)
		}
	}
	return result(textBlock("LLM response: %s", strings.Join(text, ""))), nil
}

// elicit asks the user to fill in the form schema and describes the
// answer; a client without elicitation gets a tool error.
func elicit(ctx context.Context, s *session, c call, message string, schema mcp.ElicitationSchema) (*mcp.CallToolResult, error) {
	if s.caps().Elicitation == nil {
		return toolError("the client does not offer elicitation"), nil
	}
	resp, err := c.client.Elicit(ctx, &mcp.ElicitRequestParams{ElicitRequestFormParams: &mcp.ElicitRequestFormParams{
		Message: message, RequestedSchema: schema,
	}})
	if err != nil {
		return toolError("elicitation failed: %s", jsonrpc.Truncate(err.Error())), nil
	}
	if resp.ElicitResult == nil {
		return toolError("the client answered elicitation with a task, which was not asked for"), nil
	}
	content, err := json.Marshal(resp.ElicitResult.Content)
	if err != nil {
		return nil, fmt.Errorf("encoding the user's answer: %w", err)
	}
	return result(textBlock("Elicitation completed: action=%s, content=%s", resp.ElicitResult.Action, jsonrpc.Truncate(string(content)))), nil
}

func elicitation(ctx context.Context, s *session, c call) (*mcp.CallToolResult, error) {
	message, bad := c.stringArg("message")
	if bad != nil {
		return bad, nil
	}
	return elicit(ctx, s, c, message, mcp.ElicitationSchema{
		Properties: map[string]mcp.PrimitiveSchemaDefinition{
			"username": mcp.NewPrimitiveSchemaDefinition(mcp.StringSchema{Description: "The user's name"}),
			"email":    mcp.NewPrimitiveSchemaDefinition(mcp.StringSchema{Description: "The user's email address"}),
		},
		Required: []string{"username", "email"},
	})
}

// elicitationDefaults asks for a field of each primitive type, each with
// a default value (SEP-1034).
func elicitationDefaults(ctx context.Context, s *session, c call) (*mcp.CallToolResult, error) {
	return elicit(ctx, s, c, "Please review your details; every field has a default.", mcp.ElicitationSchema{
		Properties: map[string]mcp.PrimitiveSchemaDefinition{
			"name": mcp.NewPrimitiveSchemaDefinition(mcp.StringSchema{Description: "Your name", Default: "John Doe"}),
			"age": mcp.NewPrimitiveSchemaDefinition(mcp.NumberSchema{
				Type: mcp.NumberSchemaTypeInteger, Description: "Your age", Default: ptr.To(30.0)}),
			"score": mcp.NewPrimitiveSchemaDefinition(mcp.NumberSchema{
				Type: mcp.NumberSchemaTypeNumber, Description: "Your score", Default: ptr.To(95.5)}),
			"status": mcp.NewPrimitiveSchemaDefinition(mcp.NewEnumSchema(mcp.UntitledSingleSelectEnumSchema{
				Description: "Your status", Enum: []string{"active", "inactive", "pending"}, Default: "active"})),
			"verified": mcp.NewPrimitiveSchemaDefinition(mcp.BooleanSchema{Description: "Verified", Default: ptr.To(true)}),
		},
	})
}

// elicitationEnums asks for one field of each kind of enum (SEP-1330):
// single and multiple choice, with and without titles, and the legacy
// enumNames form.
func elicitationEnums(ctx context.Context, s *session, c call) (*mcp.CallToolResult, error) {
	options := []string{"option1", "option2", "option3"}
	titled := func(prefix string, titles ...string) []mcp.EnumOption {
		var out []mcp.EnumOption
		for i, t := range titles {
			out = append(out, mcp.EnumOption{Const: fmt.Sprintf("%s%d", prefix, i+1), Title: t})
		}
		return out
	}
	enum := func(e mcp.EnumSchema) mcp.PrimitiveSchemaDefinition {
		return mcp.NewPrimitiveSchemaDefinition(e)
	}
	return elicit(ctx, s, c, "Please pick from each list.", mcp.ElicitationSchema{
		Properties: map[string]mcp.PrimitiveSchemaDefinition{
			"untitledSingle": enum(mcp.NewEnumSchema(mcp.UntitledSingleSelectEnumSchema{
				Description: "One option", Enum: options})),
			"titledSingle": enum(mcp.NewEnumSchema(mcp.TitledSingleSelectEnumSchema{
				Description: "One titled option", OneOf: titled("value", "First Option", "Second Option", "Third Option")})),
			//lint:ignore SA1019 the suite asks for the deprecated enumNames form too
			"legacyEnum": enum(mcp.NewEnumSchema(mcp.LegacyTitledEnumSchema{
				Description: "One option, titled the legacy way", Enum: []string{"opt1", "opt2", "opt3"},
				EnumNames: []string{"Option One", "Option Two", "Option Three"}})),
			"untitledMulti": enum(mcp.NewEnumSchema(mcp.MultiSelectEnumSchema{
				Description: "Any of the options",
				Items:       mcp.NewMultiSelectEnumItems(mcp.UntitledEnumItems{Enum: options})})),
			"titledMulti": enum(mcp.NewEnumSchema(mcp.MultiSelectEnumSchema{
				Description: "Any of the titled options",
				Items:       mcp.NewMultiSelectEnumItems(mcp.TitledEnumItems{AnyOf: titled("value", "First Choice", "Second Choice", "Third Choice")})})),
		},
	})
}
