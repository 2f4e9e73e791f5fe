package mcp_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

func TestTimeoutsMatchIDL(t *testing.T) {
	opts := mcp.Options()
	want := map[string]jsonrpc.Timeout{
		mcp.MethodInitialize:     {After: 30 * time.Second, Action: jsonrpc.TimeoutClose},
		mcp.MethodPing:           {After: 10 * time.Second, Action: jsonrpc.TimeoutClose},
		mcp.MethodCallTool:       {After: 2 * time.Minute, Cancel: true},
		mcp.MethodGetTaskPayload: {After: 10 * time.Minute, Cancel: true},
		mcp.MethodElicit:         {After: 10 * time.Minute, Cancel: true},
		mcp.MethodCreateMessage:  {After: 5 * time.Minute, Cancel: true},
	}
	for _, m := range []string{mcp.MethodListTools, mcp.MethodListResources, mcp.MethodListResourceTemplates,
		mcp.MethodReadResource, mcp.MethodSubscribe, mcp.MethodUnsubscribe, mcp.MethodListPrompts, mcp.MethodGetPrompt,
		mcp.MethodGetTask, mcp.MethodListTasks, mcp.MethodCancelTask, mcp.MethodSetLevel, mcp.MethodComplete, mcp.MethodListRoots} {
		want[m] = jsonrpc.Timeout{After: 30 * time.Second, Cancel: true}
	}
	for m, w := range want {
		if got := opts.Timeout(m); got != w {
			t.Errorf("Timeout(%s) = %+v; want %+v", m, got, w)
		}
	}
	if opts.Cancellation != jsonrpc.CancelMCP {
		t.Errorf("cancellation %v; want MCP's notifications/cancelled", opts.Cancellation)
	}
}

// scaled returns the protocol's timeouts with method's shortened to d,
// keeping its cancel flag and action.
func scaled(method string, d time.Duration) jsonrpc.Options {
	def := mcp.Options().Timeout
	return jsonrpc.Options{Timeout: func(m string) jsonrpc.Timeout {
		to := def(m)
		if m == method {
			to.After = d
		}
		return to
	}}
}

// A tools/call that times out fails with a timeout error, the server gets
// notifications/cancelled and stops the tool, and the session carries on.
func TestCallTimeoutCancels(t *testing.T) {
	s := spawn(t, scaled(mcp.MethodCallTool, 300*time.Millisecond))
	if _, err := s.srv.Initialize(bounded(t), &mcp.InitializeRequestParams{ProtocolVersion: "2025-11-25",
		ClientInfo: mcp.Implementation{Name: "e2e", Version: "1"}}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	_, err := s.callErr(t.Context(), "slow", map[string]any{"steps": 1000, "delayMs": 10}, nil)
	var te *jsonrpc.TimeoutError
	// The error names the timeout that fired: the scaled one, whatever
	// the time the machine took to get there.
	if !errors.Is(err, jsonrpc.ErrTimeout) || !errors.As(err, &te) || te.Method != mcp.MethodCallTool || te.Timeout != 300*time.Millisecond {
		t.Fatalf("slow call: err = %v; want the 300ms tools/call timeout", err)
	}
	for {
		if strings.HasPrefix(logText(t, recv(t, s.c.logs, "the cancellation log")), "slow: cancelled after") {
			break
		}
	}
	if _, err := s.srv.Ping(bounded(t), &mcp.RequestParams{}); err != nil {
		t.Fatalf("the connection did not survive the timeout: %v", err)
	}
}

// An initialize that times out is not cancelled: the connection is closed.
func TestInitializeTimeoutCloses(t *testing.T) {
	s := spawn(t, scaled(mcp.MethodInitialize, 200*time.Millisecond), "-slow-start", "20s")
	_, err := s.srv.Initialize(t.Context(), &mcp.InitializeRequestParams{ProtocolVersion: "2025-11-25",
		ClientInfo: mcp.Implementation{Name: "e2e", Version: "1"}})
	if !errors.Is(err, jsonrpc.ErrTimeout) {
		t.Fatalf("initialize: err = %v; want a timeout", err)
	}
	select {
	case <-s.conn.Done():
	case <-time.After(wait):
		t.Fatal("the connection stayed open after initialize timed out")
	}
	if _, err := s.srv.Ping(bounded(t), &mcp.RequestParams{}); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("ping after the close: err = %v; want ErrClosed", err)
	}
}
