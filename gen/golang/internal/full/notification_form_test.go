package full_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/gen/golang/internal/full"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// job/status is a request from the editor and, the other way, a
// notification from the agent with params of its own.

func (n notes) JobStatus(context.Context) (*full.JobStatusResult, error) {
	n.forms <- "job/status request"
	return &full.JobStatusResult{State: full.StateIdle}, nil
}

func (n notes) JobStatusNotification(_ context.Context, p *full.JobStatusNotificationParams) error {
	n.forms <- p
	return nil
}

func TestNotificationForm(t *testing.T) {
	var edLog, agLog syncBuffer
	s := connectForms(t, jsonrpc.Options{Logger: slog.New(slog.NewTextHandler(&edLog, nil))}, jsonrpc.Options{Logger: slog.New(slog.NewTextHandler(&agLog, nil))})
	// The request goes from the editor to the agent's JobStatus.
	res, err := s.agentRemote.JobStatus(s.ctx)
	if err != nil || res.State != full.StateIdle {
		t.Fatalf("job/status = %+v, %v", res, err)
	}
	if got := <-s.ag.forms; got != "job/status request" {
		t.Errorf("agent got %v", got)
	}
	// The notification goes from the agent to the editor's
	// JobStatusNotification, decoded into its own params.
	if err := s.editorRemote.JobStatusNotification(s.ctx, &full.JobStatusNotificationParams{State: full.StateProcessing, Done: true}); err != nil {
		t.Fatal(err)
	}
	if p := (<-s.ed.forms).(*full.JobStatusNotificationParams); p.State != full.StateProcessing || !p.Done {
		t.Errorf("editor got %+v", p)
	}

	// Each side receives one form of the name: a request sent to the
	// editor, which only receives the notification, is a method it does
	// not have.
	var rpcErr *jsonrpc.Error
	if err := s.agConn.Call(s.ctx, full.MethodJobStatus, map[string]any{"state": "idle"}, nil); !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("job/status request to the editor: %v, want -32601", err)
	}
	// A notification sent to the agent, which only answers the request,
	// reaches no method of the agent and is logged as not found; a
	// notification to the editor whose params do not fit is logged with
	// the value at fault.
	if err := s.edConn.Notify(s.ctx, full.MethodJobStatus, map[string]any{"state": "idle"}); err != nil {
		t.Fatal(err)
	}
	if err := s.agConn.Notify(s.ctx, full.MethodJobStatus, map[string]any{"state": "lost"}); err != nil {
		t.Fatal(err)
	}
	// Notifications are handled in order: once the next ones are, the
	// ones before were.
	if err := s.agentRemote.BlocksShow(s.ctx, &full.BlocksShowParams{Blocks: []full.Block{}}); err != nil {
		t.Fatal(err)
	}
	<-s.ag.blocks
	if err := s.editorRemote.JobStatusNotification(s.ctx, &full.JobStatusNotificationParams{State: full.StateIdle}); err != nil {
		t.Fatal(err)
	}
	if p := (<-s.ed.forms).(*full.JobStatusNotificationParams); p.State != full.StateIdle || p.Done {
		t.Errorf("editor got %+v", p)
	}
	select {
	case got := <-s.ag.forms:
		t.Errorf("the agent handled a job/status notification: %v", got)
	case got := <-s.ed.forms:
		t.Errorf("the editor handled a job/status notification it could not decode: %v", got)
	default:
	}
	if text := agLog.String(); !strings.Contains(text, "method="+full.MethodJobStatus) || !strings.Contains(text, "Method not found") {
		t.Errorf("the agent did not log the job/status notification as not found:\n%s", text)
	}
	if text := edLog.String(); !strings.Contains(text, "method="+full.MethodJobStatus) || !strings.Contains(text, "lost") {
		t.Errorf("the editor did not log the bad state:\n%s", text)
	}
}
