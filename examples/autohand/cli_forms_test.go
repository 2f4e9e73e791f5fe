package autohand_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// The Autohand CLI sends six wire names both ways: the client's requests
// autohand.automode.{start,pause,resume,cancel} and
// autohand.autoresearch.{start,status}, and the agent's notifications of
// the same names with params of their own. These tests play the CLI's
// side byte for byte, as its RPC adapter writes it, and check that each
// notification reaches the generated client's typed handler.

// forms is a client role recording the notification forms it receives.
type forms struct {
	autohand.UnimplementedClient
	got chan any
}

func (f forms) AutomodeStartNotification(_ context.Context, p *autohand.AutomodeStartNotice) error {
	f.got <- p
	return nil
}

func (f forms) AutomodePauseNotification(_ context.Context, p *autohand.AutomodeProgressNotice) error {
	f.got <- fmt.Sprintf("pause %s %d %s", p.SessionID, p.Iteration, p.Timestamp)
	return nil
}

func (f forms) AutomodeResumeNotification(_ context.Context, p *autohand.AutomodeProgressNotice) error {
	f.got <- fmt.Sprintf("resume %s %d %s", p.SessionID, p.Iteration, p.Timestamp)
	return nil
}

func (f forms) AutomodeCancelNotification(_ context.Context, p *autohand.AutomodeCancelNotice) error {
	f.got <- p
	return nil
}

func (f forms) AutoresearchStartNotification(_ context.Context, p *autohand.AutoresearchLifecycle) error {
	f.got <- p
	return nil
}

func (f forms) AutoresearchStatusNotification(_ context.Context, p *autohand.AutoresearchLifecycle) error {
	f.got <- p
	return nil
}

// fakeCLI is the agent's end of a connection, written by hand.
type fakeCLI struct {
	t  *testing.T
	in *bufio.Reader
	c  net.Conn
}

// write sends one line as the CLI does: a JSON message and "\n".
func (c *fakeCLI) write(line string) {
	c.t.Helper()
	if _, err := c.c.Write([]byte(line + "\n")); err != nil {
		c.t.Fatal(err)
	}
}

// request reads the client's next request and returns its method and id.
func (c *fakeCLI) request() (string, json.RawMessage) {
	c.t.Helper()
	line, err := c.in.ReadBytes('\n')
	if err != nil {
		c.t.Fatal(err)
	}
	var req struct {
		Method string
		ID     json.RawMessage
	}
	if err := json.Unmarshal(line, &req); err != nil || req.ID == nil {
		c.t.Fatalf("not a request: %s (%v)", line, err)
	}
	return req.Method, req.ID
}

func connectCLI(t *testing.T) (*fakeCLI, autohand.Agent, chan any) {
	a, b := net.Pipe()
	f := forms{got: make(chan any, 8)}
	conn, agent := autohand.ConnectClient(a, f, jsonrpc.Options{})
	t.Cleanup(func() {
		conn.Close()
		b.Close()
	})
	return &fakeCLI{t: t, in: bufio.NewReader(b), c: b}, agent, f.got
}

// received waits for the next notification the client handled.
func received(t *testing.T, got chan any) any {
	t.Helper()
	select {
	case v := <-got:
		return v
	case <-time.After(wait):
		t.Fatal("no notification reached the client's handler")
		return nil
	}
}

func TestCLIAutoresearchNotificationForms(t *testing.T) {
	cli, agent, got := connectCLI(t)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()

	// autohand.autoresearch.status: the CLI announces the snapshot as a
	// notification, then answers the request.
	done := make(chan error, 1)
	var report *autohand.AutoresearchReport
	go func() {
		var err error
		report, err = agent.AutoresearchStatus(ctx)
		done <- err
	}()
	method, id := cli.request()
	if method != autohand.MethodAutoresearchStatus {
		t.Fatalf("client sent %s", method)
	}
	cli.write(`{"jsonrpc":"2.0","method":"autohand.autoresearch.status","params":{"active":true,"goal":"Faster builds","iteration":2,"maxIterations":8,"runsLogged":2,"statusText":"2 runs, best 41.2s","subcommand":"status","timestamp":"2026-03-01T10:00:00.000Z"}}`)
	cli.write(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"success":true,"active":true,"runsLogged":2,"statusText":"2 runs, best 41.2s"}}`)
	if err := <-done; err != nil || !report.Success || *report.RunsLogged != 2 {
		t.Fatalf("autoresearch.status = %+v, %v", report, err)
	}
	n := received(t, got).(*autohand.AutoresearchLifecycle)
	if n.Subcommand != autohand.AutoresearchLifecycleSubcommandStatus || !n.Active || n.Goal != "Faster builds" || *n.Iteration != 2 || *n.MaxIterations != 8 || n.RunsLogged != 2 || n.Message != "" || n.Timestamp != "2026-03-01T10:00:00.000Z" {
		t.Errorf("status notification = %+v", n)
	}

	// Nothing answered the notification: the next line the CLI reads is
	// the client's next request, not a -32601 response.
	go func() { _, _ = agent.GetState(ctx) }()
	if method, _ := cli.request(); method != autohand.MethodGetState {
		t.Fatalf("after the status notification the client sent %q, want %s", method, autohand.MethodGetState)
	}

	// autohand.autoresearch.start, sent by the CLI as the loop resumes;
	// message is left out when the CLI has none.
	cli.write(`{"jsonrpc":"2.0","method":"autohand.autoresearch.start","params":{"active":true,"iteration":0,"runsLogged":0,"statusText":"idle","subcommand":"resume","message":"Resumed.","timestamp":"2026-03-01T10:00:01.000Z"}}`)
	n = received(t, got).(*autohand.AutoresearchLifecycle)
	if n.Subcommand != autohand.AutoresearchLifecycleSubcommandResume || n.Goal != "" || n.Message != "Resumed." {
		t.Errorf("start notification = %+v", n)
	}
}

func TestCLIAutomodeNotificationForms(t *testing.T) {
	cli, _, got := connectCLI(t)
	cli.write(`{"jsonrpc":"2.0","method":"autohand.automode.start","params":{"sessionId":"am_1","prompt":"Port the tests","maxIterations":10,"timestamp":"2026-03-01T10:00:00.000Z"}}`)
	if s := received(t, got).(*autohand.AutomodeStartNotice); s.SessionID != "am_1" || s.Prompt != "Port the tests" || s.MaxIterations != 10 {
		t.Errorf("automode.start notification = %+v", s)
	}
	cli.write(`{"jsonrpc":"2.0","method":"autohand.automode.pause","params":{"sessionId":"am_1","iteration":3,"timestamp":"2026-03-01T10:00:02.000Z"}}`)
	cli.write(`{"jsonrpc":"2.0","method":"autohand.automode.resume","params":{"sessionId":"am_1","iteration":3,"timestamp":"2026-03-01T10:00:03.000Z"}}`)
	for _, want := range []string{"pause am_1 3 2026-03-01T10:00:02.000Z", "resume am_1 3 2026-03-01T10:00:03.000Z"} {
		if g := received(t, got); g != want {
			t.Errorf("got %v, want %s", g, want)
		}
	}
	cli.write(`{"jsonrpc":"2.0","method":"autohand.automode.cancel","params":{"sessionId":"am_1","reason":"rpc_cancel","iteration":4,"timestamp":"2026-03-01T10:00:04.000Z"}}`)
	if c := received(t, got).(*autohand.AutomodeCancelNotice); c.Reason != "rpc_cancel" || c.Iteration != 4 {
		t.Errorf("automode.cancel notification = %+v", c)
	}
}
