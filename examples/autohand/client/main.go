// Command client drives an Autohand RPC agent (`autohand --mode rpc`, or any
// command speaking the same protocol): it spawns the agent, sends one
// prompt, prints every notification as it arrives, answers the agent's
// permission, directory, change-batch and step requests as told, and exits
// when the turn ends.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

const usage = `usage: client [flags] [--] [AGENT-COMMAND [ARGS...]]

Spawns AGENT-COMMAND (default: autohand --mode rpc), sends -prompt, and prints the
agent's stream as it arrives: the assistant's text inline, every other
notification on a line of its own. Permission, directory-access and change
batch requests are answered as the flags say ("ask" asks on the terminal).
Exits when the turn ends and every change decision is answered; status 1 when
the turn failed or was aborted, or the agent reported an error and exited.

Flags:
`

type config struct {
	prompt     string
	files      []string
	permission string
	directory  string
	changes    string
	stepStop   bool
	abortAfter time.Duration
	mcpTool    string
	state      bool
	json       bool
	timeout    time.Duration
	verbose    bool
}

type listFlag struct{ vs *[]string }

func (l listFlag) String() string {
	if l.vs == nil {
		return ""
	}
	return strings.Join(*l.vs, ",")
}

func (l listFlag) Set(v string) error {
	*l.vs = append(*l.vs, v)
	return nil
}

func main() {
	var cfg config
	flag.StringVar(&cfg.prompt, "prompt", "", "the instruction to send (required)")
	flag.Var(listFlag{&cfg.files}, "file", "a file to mention in the prompt's context (repeatable)")
	flag.StringVar(&cfg.permission, "permission", "ask", "answer to permission requests: allow, deny, ignore or ask")
	flag.StringVar(&cfg.directory, "directory", "ask", "answer to directory access requests: grant, deny or ask")
	flag.StringVar(&cfg.changes, "changes", "ask", "decision on change batches: accept, reject or ask")
	flag.BoolVar(&cfg.stepStop, "stop-after-step", false, "ask the agent to stop after its first tool step")
	flag.DurationVar(&cfg.abortAfter, "abort-after", 0, "abort the turn after this long (0: never)")
	flag.StringVar(&cfg.mcpTool, "mcp-tool", "", "offer the agent an editor MCP tool of this name, which echoes its arguments")
	flag.BoolVar(&cfg.state, "state", false, "print the agent's state and history after the turn")
	flag.BoolVar(&cfg.json, "json", false, "print notifications as method and JSON params")
	flag.DurationVar(&cfg.timeout, "timeout", 30*time.Minute, "give up after this long")
	flag.BoolVar(&cfg.verbose, "v", false, "log protocol diagnostics and the agent's stderr")
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), usage)
		flag.PrintDefaults()
	}
	flag.Parse()
	if cfg.prompt == "" || !oneOf(cfg.permission, "allow", "deny", "ignore", "ask") ||
		!oneOf(cfg.directory, "grant", "deny", "ask") || !oneOf(cfg.changes, "accept", "reject", "ask") {
		flag.Usage()
		os.Exit(2)
	}
	command := flag.Args()
	if len(command) == 0 {
		command = autohand.DefaultCommand()
	}
	ok, err := run(cfg, command, os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", describe(err))
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

func oneOf(v string, set ...string) bool {
	for _, s := range set {
		if v == s {
			return true
		}
	}
	return false
}

// run drives one turn and reports whether it completed.
func run(cfg config, command []string, in io.Reader, out io.Writer) (bool, error) {
	level := slog.LevelWarn
	if cfg.verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()

	proc, err := transport.Spawn(exec.Command(command[0], command[1:]...), transport.SpawnOptions{Logger: logger})
	if err != nil {
		return false, fmt.Errorf("start %s: %w", command[0], err)
	}
	c := newClient(cfg, bufio.NewReader(in), out)
	conn, agent := autohand.ConnectClient(proc, c, jsonrpc.Options{
		Logger:     logger,
		Middleware: []jsonrpc.Middleware{c.print},
	})
	c.agent = agent
	close(c.ready)
	defer func() {
		_ = conn.Close()
		_ = proc.Shutdown(context.Background())
		c.wg.Wait()
	}()

	if cfg.mcpTool != "" {
		tool := autohand.McpSetVscodeToolsParamsToolsItem{Name: cfg.mcpTool, Description: "Echoes its arguments", ServerName: "vscode"}
		if _, err := agent.McpSetVscodeTools(ctx, &autohand.McpSetVscodeToolsParams{Tools: []autohand.McpSetVscodeToolsParamsToolsItem{tool}}); err != nil {
			return false, fmt.Errorf("offer editor tool: %w", err)
		}
	}
	p := &autohand.PromptParams{Message: cfg.prompt}
	if len(cfg.files) > 0 {
		p.Context = &autohand.PromptParamsContext{Files: cfg.files}
	}
	if cfg.stepStop {
		p.StopWhen = &autohand.PromptParamsStopWhen{}
	}
	res, err := agent.Prompt(ctx, p)
	if err != nil {
		return false, fmt.Errorf("prompt: %w", err)
	}
	if !res.Success {
		return false, errors.New("prompt: the agent did not accept it")
	}
	var abort <-chan time.Time
	if cfg.abortAfter > 0 {
		tm := time.NewTimer(cfg.abortAfter)
		defer tm.Stop()
		abort = tm.C
	}
	var reason autohand.TurnEndReason
wait:
	for {
		select {
		case reason = <-c.turnEnd:
			break wait
		case <-abort:
			if _, err := agent.Abort(ctx); err != nil {
				return false, fmt.Errorf("abort: %w", err)
			}
		case <-c.ended:
			return false, errors.New("the agent ended the session")
		case <-conn.Done():
			return false, fmt.Errorf("connection lost: %w", conn.Err())
		case <-ctx.Done():
			return false, fmt.Errorf("turn: %w", ctx.Err())
		}
	}
	if err := c.waitDecisions(ctx, conn); err != nil {
		return false, err
	}
	if cfg.state {
		if err := printState(ctx, agent, out); err != nil {
			return false, err
		}
	}
	return reason != autohand.TurnEndReasonAborted, nil
}

// waitDecisions waits until the agent has answered every changesDecision,
// so that closing its stdin cannot cost the user an accepted change.
func (c *client) waitDecisions(ctx context.Context, conn *jsonrpc.Conn) error {
	done := make(chan struct{})
	go func() {
		c.decisions.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-conn.Done():
		return fmt.Errorf("connection lost before the change decision was answered: %w", conn.Err())
	case <-ctx.Done():
		return fmt.Errorf("waiting for the change decision: %w", ctx.Err())
	}
}

// describe returns err, or, when err carries an error the agent reported on
// its own (a response with id null, as when it refuses to start), a
// message giving that error's code, message and data.kind.
func describe(err error) error {
	var pe *jsonrpc.PeerError
	if !errors.As(err, &pe) {
		return err
	}
	var data struct {
		Kind string `json:"kind"`
	}
	msg := fmt.Sprintf("the agent reported error %d: %s", pe.Err.Code, jsonrpc.Truncate(pe.Err.Message))
	if json.Unmarshal(pe.Err.Data, &data) == nil && data.Kind != "" {
		msg += " (" + jsonrpc.Truncate(data.Kind) + ")"
	}
	return errors.New(msg)
}

// printState prints getState and getMessages.
func printState(ctx context.Context, agent autohand.Agent, out io.Writer) error {
	st, err := agent.GetState(ctx)
	if err != nil {
		return fmt.Errorf("get state: %w", err)
	}
	fmt.Fprintf(out, "state: %s model=%s messages=%d context=%.2f%%\n", st.Status, st.Model, st.MessageCount, st.ContextPercent)
	msgs, err := agent.GetMessages(ctx, &autohand.GetMessagesParams{})
	if err != nil {
		return fmt.Errorf("get messages: %w", err)
	}
	for _, m := range msgs.Messages {
		fmt.Fprintf(out, "message %s %s: %s\n", m.ID, m.Role, m.Content)
	}
	return nil
}
