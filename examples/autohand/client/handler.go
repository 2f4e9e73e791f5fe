package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// client answers the agent's notifications.
type client struct {
	autohand.UnimplementedClient

	cfg     config
	agent   autohand.Agent
	ready   chan struct{} // closed once agent is set
	wg      sync.WaitGroup
	turnEnd chan autohand.TurnEndReason
	ended   chan struct{}
	endOnce sync.Once

	// decisions counts the changesDecision calls not yet answered: the
	// agent writes accepted files only when it applies the decision,
	// which may come after turnEnd.
	decisions sync.WaitGroup

	mu      sync.Mutex // guards out and in
	out     io.Writer
	in      *bufio.Reader
	midLine bool // the assistant's text left a line open
}

func newClient(cfg config, in *bufio.Reader, out io.Writer) *client {
	return &client{cfg: cfg, in: in, out: out, ready: make(chan struct{}),
		turnEnd: make(chan autohand.TurnEndReason, 1), ended: make(chan struct{})}
}

// print is middleware printing every notification as it arrives.
func (c *client) print(next jsonrpc.Handler) jsonrpc.Handler {
	return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		<-c.ready
		if req.IsNotification() {
			c.show(req.Method, req.Params)
		}
		return next.Handle(ctx, req)
	})
}

// show prints one notification.
func (c *client) show(method string, params json.RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	name := strings.TrimPrefix(method, "autohand.")
	if c.cfg.json {
		fmt.Fprintf(c.out, "%s %s\n", method, params)
		return
	}
	if name == "messageUpdate" {
		var u autohand.MessageUpdateParams
		if json.Unmarshal(params, &u) == nil {
			if u.Thought != "" {
				fmt.Fprintf(c.out, "(thinking: %s)\n", u.Thought)
			}
			fmt.Fprint(c.out, u.Delta)
			c.midLine = true
			return
		}
	}
	if c.midLine {
		fmt.Fprintln(c.out)
		c.midLine = false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) == nil {
		delete(m, "timestamp")
		if name == "messageEnd" {
			delete(m, "content") // already printed
		}
		params, _ = json.Marshal(m)
	}
	fmt.Fprintf(c.out, "[%s] %s\n", name, params)
}

// note prints a line of the client's own.
func (c *client) note(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.midLine {
		fmt.Fprintln(c.out)
		c.midLine = false
	}
	fmt.Fprintf(c.out, "[client] "+format+"\n", args...)
}

// ask asks the user a yes/no question on the terminal.
func (c *client) ask(question string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.midLine {
		fmt.Fprintln(c.out)
		c.midLine = false
	}
	fmt.Fprintf(c.out, "%s [y/N] ", question)
	line, _ := c.in.ReadString('\n')
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "y")
}

// later answers the agent outside the notification handler, so the
// notifications behind it keep flowing while the user thinks.
func (c *client) later(what string, f func(ctx context.Context) error) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		if err := f(context.Background()); err != nil {
			slog.Default().Warn("could not answer the agent", "what", what, "err", err)
			c.note("%s failed: %v", what, err)
		}
	}()
}

// PermissionRequest acknowledges the request, then answers it.
func (c *client) PermissionRequest(_ context.Context, p *autohand.PermissionRequestParams) error {
	if c.cfg.permission == "ignore" {
		return nil // the agent denies once its acknowledgement window closes
	}
	c.later("permission response", func(ctx context.Context) error {
		if _, err := c.agent.PermissionAcknowledged(ctx, &autohand.PermissionAcknowledgedParams{RequestID: p.RequestID}); err != nil {
			return fmt.Errorf("acknowledge %s: %w", p.RequestID, err)
		}
		allow := c.cfg.permission == "allow" || (c.cfg.permission == "ask" && c.ask(fmt.Sprintf("Allow %s: %s?", p.Tool, p.Description)))
		d := autohand.PermissionDecisionDenyOnce
		if allow {
			d = autohand.PermissionDecisionAllowOnce
		}
		_, err := c.agent.PermissionResponse(ctx, &autohand.PermissionResponseParams{RequestID: p.RequestID, Decision: d})
		return err
	})
	return nil
}

// DirectoryAccessRequest acknowledges the request, then answers it.
func (c *client) DirectoryAccessRequest(_ context.Context, p *autohand.DirectoryAccessRequestParams) error {
	c.later("directory access response", func(ctx context.Context) error {
		if _, err := c.agent.DirectoryAccessAcknowledged(ctx, &autohand.DirectoryAccessAcknowledgedParams{RequestID: p.RequestID}); err != nil {
			return fmt.Errorf("acknowledge %s: %w", p.RequestID, err)
		}
		grant := c.cfg.directory == "grant" || (c.cfg.directory == "ask" && c.ask("Let the agent work in "+p.Path+"?"))
		_, err := c.agent.DirectoryAccessResponse(ctx, &autohand.DirectoryAccessResponseParams{RequestID: p.RequestID, Granted: grant})
		return err
	})
	return nil
}

// ChangesBatchEnd decides the batch, unless it is empty: the agent has then
// dropped it already and would answer that it is not found.
func (c *client) ChangesBatchEnd(_ context.Context, p *autohand.ChangesBatchEndParams) error {
	if p.ChangeCount == 0 {
		c.note("%s: no changes", p.BatchID)
		return nil
	}
	c.decisions.Add(1) // before turnEnd, which comes after, is handled
	c.later("changes decision", func(ctx context.Context) error {
		defer c.decisions.Done()
		accept := c.cfg.changes == "accept" || (c.cfg.changes == "ask" && c.ask(fmt.Sprintf("Apply the %d changes of %s?", p.ChangeCount, p.BatchID)))
		action := autohand.ChangesDecisionParamsActionRejectAll
		if accept {
			action = autohand.ChangesDecisionParamsActionAcceptAll
		}
		res, err := c.agent.ChangesDecision(ctx, &autohand.ChangesDecisionParams{BatchID: p.BatchID, Action: action})
		if err != nil {
			return err
		}
		c.note("%s: %d applied, %d skipped", p.BatchID, res.AppliedCount, res.SkippedCount)
		for _, e := range res.Errors {
			c.note("%s: %s not applied: %s", p.BatchID, jsonrpc.Truncate(e.ChangeID), jsonrpc.Truncate(e.Error))
		}
		return nil
	})
	return nil
}

// StepEnd stops after the step when -stop-after-step is set.
func (c *client) StepEnd(_ context.Context, p *autohand.StepEndParams) error {
	c.later("step decision", func(ctx context.Context) error {
		_, err := c.agent.StepDecision(ctx, &autohand.StepDecisionParams{StepID: p.StepID, Stop: c.cfg.stepStop})
		return err
	})
	return nil
}

// McpInvokeRequest runs the -mcp-tool editor tool: it echoes its arguments.
func (c *client) McpInvokeRequest(_ context.Context, p *autohand.McpInvokeRequestParams) error {
	c.later("MCP tool response", func(ctx context.Context) error {
		res := &autohand.McpInvokeResponseParams{RequestID: p.RequestID}
		if p.ToolName == c.cfg.mcpTool {
			args, _ := json.Marshal(p.Args)
			res.Success, res.Result = true, string(bytes.TrimSpace(args))
		} else {
			res.Error = "no editor tool " + p.ToolName
		}
		_, err := c.agent.McpInvokeResponse(ctx, res)
		return err
	})
	return nil
}

// TurnEnd ends the run.
func (c *client) TurnEnd(_ context.Context, p *autohand.TurnEndParams) error {
	reason := autohand.TurnEndReasonCompleted
	if p.Reason != "" {
		reason = p.Reason
	}
	select {
	case c.turnEnd <- reason:
	default:
	}
	return nil
}

// AgentEnd ends the run early.
func (c *client) AgentEnd(context.Context, *autohand.AgentEndParams) error {
	c.endOnce.Do(func() { close(c.ended) })
	return nil
}
