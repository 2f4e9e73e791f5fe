package vscode_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// Hermes and Reginald declare "cancellation: none", so $/cancelRequest is
// tested at the runtime level: a jsonrpc.Conn with Content-Length framing
// and CancelLSP against a bare vscode-jsonrpc peer (peers/lsp-peer.js).

// lspPeer is a running peers/lsp-peer.js and our connection to it.
type lspPeer struct {
	run     *peerRun
	conn    *jsonrpc.Conn
	notes   chan *jsonrpc.Request // notifications from the peer
	cancels chan *jsonrpc.Request // $/cancelRequest, should the runtime pass it on

	goSlowStarted chan struct{}
	goSlowEnded   chan error // the ctx error our handler saw
}

func startLSPPeer(t *testing.T) *lspPeer {
	t.Helper()
	p := &lspPeer{
		run:           newRun(t, "vscode-jsonrpc peer (peers/lsp-peer.js) against a runtime jsonrpc.Conn with CancelLSP"),
		notes:         make(chan *jsonrpc.Request, 16),
		cancels:       make(chan *jsonrpc.Request, 16),
		goSlowStarted: make(chan struct{}, 1),
		goSlowEnded:   make(chan error, 1),
	}
	cmd := exec.Command("node", node("lsp-peer.js"))
	cmd.Env = append(os.Environ(), "VSCODE_TRAFFIC="+p.run.traffic)
	proc, err := transport.Spawn(cmd, transport.SpawnOptions{Grace: 2 * time.Second})
	if err != nil {
		t.Fatalf("%s: %v", p.run.peer, err)
	}
	handler := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.IsNotification() {
			// The runtime consumes $/cancelRequest, cancelling the request
			// it names: it must never get here.
			if req.Method == jsonrpc.CancelLSP.Method() {
				p.cancels <- req
			} else {
				p.notes <- req
			}
			return nil, nil
		}
		switch req.Method {
		case "goSlow":
			p.goSlowStarted <- struct{}{}
			t := time.NewTimer(wait)
			defer t.Stop()
			select {
			case <-ctx.Done():
				p.goSlowEnded <- ctx.Err()
				return nil, ctx.Err()
			case <-t.C:
				p.goSlowEnded <- nil
				return "not cancelled", nil
			}
		case "echo":
			return json.RawMessage(req.Params), nil
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found", nil)
	})
	p.conn = jsonrpc.NewConn(proc, jsonrpc.Options{
		Framing:      framing.ContentLength,
		Cancellation: jsonrpc.CancelLSP,
		Handler:      handler,
	})
	t.Cleanup(func() {
		_ = p.conn.Close()
		select {
		case <-proc.Done():
		case <-time.After(wait):
			_ = proc.Kill()
			t.Errorf("%s: node did not exit once its stdin closed", p.run.peer)
		}
		_ = proc.Close()
	})
	return p
}

// note waits for the peer's next notification, which must be method.
func (p *lspPeer) note(t *testing.T, method string) *jsonrpc.Request {
	t.Helper()
	select {
	case n := <-p.notes:
		if n.Method != method {
			t.Fatalf("%s: got notification %s %s, want %s", p.run.peer, n.Method, n.Params, method)
		}
		return n
	case <-time.After(wait):
		t.Fatalf("%s: no %s notification within %v", p.run.peer, method, wait)
	}
	return nil
}

func callCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return ctx
}

// A Go call whose context is cancelled sends $/cancelRequest, which
// cancels the CancellationToken of the vscode-jsonrpc handler.
func TestCancelGoCallReachesVSCodeToken(t *testing.T) {
	p := startLSPPeer(t)
	ctx, cancel := context.WithCancel(callCtx(t))
	done := make(chan error, 1)
	go func() { done <- p.conn.Call(ctx, "slow", map[string]string{"who": nonASCII}, nil) }()
	started := p.note(t, "slow/started")
	if !strings.Contains(string(started.Params), nonASCII) {
		t.Errorf("%s: slow/started params %s", p.run.peer, started.Params)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: cancelled call returned %v, want context.Canceled", p.run.peer, err)
		}
	case <-time.After(wait):
		t.Fatalf("%s: the cancelled call did not return", p.run.peer)
	}
	p.note(t, "slow/cancelled")
	// The peer still answers the cancelled request (-32800); a later call
	// shows that our side dropped that answer and carries on.
	if err := p.conn.Call(callCtx(t), "frobnicate", nil, nil); !errors.Is(err, jsonrpc.ErrMethodNotFound) {
		t.Errorf("%s: unknown method after cancellation: %v, want -32601 from vscode-jsonrpc", p.run.peer, err)
	}
	_, in, _, err := p.run.chunks()
	if err != nil || !strings.Contains(string(in), `"method":"$/cancelRequest","params":{"id":1}`) {
		t.Errorf("%s: no $/cancelRequest for id 1 reached the peer (%v)", p.run.peer, err)
	}
}

// A vscode-jsonrpc call cancelled through its CancellationTokenSource sends
// $/cancelRequest, which cancels our handler's context and goes no further;
// our side answers -32800.
func TestCancelVSCodeCallReachesGoContext(t *testing.T) {
	p := startLSPPeer(t)
	if err := p.conn.Call(callCtx(t), "callGo", map[string]any{"method": "goSlow", "params": map[string]string{"who": nonASCII}}, nil); err != nil {
		t.Fatalf("%s: callGo: %v", p.run.peer, err)
	}
	select {
	case <-p.goSlowStarted:
	case <-time.After(wait):
		t.Fatalf("%s: goSlow never reached our handler", p.run.peer)
	}
	if err := p.conn.Notify(callCtx(t), "cancelGo", nil); err != nil {
		t.Fatalf("%s: cancelGo: %v", p.run.peer, err)
	}
	select {
	case err := <-p.goSlowEnded:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: our handler's context ended with %v, want context.Canceled", p.run.peer, err)
		}
	case <-time.After(wait):
		t.Fatalf("%s: $/cancelRequest did not cancel our handler's context", p.run.peer)
	}
	n := p.note(t, "callGo/done")
	select {
	case c := <-p.cancels:
		t.Errorf("%s: $/cancelRequest %s reached our handler", p.run.peer, c.Params)
	default:
	}
	// vscode-jsonrpc numbers its requests from 0.
	if _, _, out, err := p.run.chunks(); err != nil || !strings.Contains(string(out), `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":0}}`) {
		t.Errorf("%s: vscode-jsonrpc sent no $/cancelRequest for id 0 (%v)", p.run.peer, err)
	}
	var outcome struct {
		Code int64 `json:"code"`
	}
	if err := json.Unmarshal(n.Params, &outcome); err != nil || outcome.Code != jsonrpc.CodeRequestCancelled {
		t.Errorf("%s: the cancelled call ended with %s, want code -32800", p.run.peer, n.Params)
	}
}

// Unknown methods get -32601 both ways between the runtime and
// vscode-jsonrpc; a non-ASCII echo crosses both ways.
func TestUnknownMethodsBothWays(t *testing.T) {
	p := startLSPPeer(t)
	err := p.conn.Call(callCtx(t), "frobnicate", map[string]bool{"really": true}, nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("%s: unknown method on vscode-jsonrpc: %v, want -32601", p.run.peer, err)
	}
	if err := p.conn.Call(callCtx(t), "callGo", map[string]any{"method": "frobnicate"}, nil); err != nil {
		t.Fatalf("%s: callGo: %v", p.run.peer, err)
	}
	n := p.note(t, "callGo/done")
	var outcome struct {
		Code int64 `json:"code"`
	}
	if err := json.Unmarshal(n.Params, &outcome); err != nil || outcome.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("%s: unknown method on our side ended with %s, want code -32601", p.run.peer, n.Params)
	}
	if err := p.conn.Call(callCtx(t), "callGo", map[string]any{"method": "echo", "params": map[string]string{"who": nonASCII}}, nil); err != nil {
		t.Fatalf("%s: callGo: %v", p.run.peer, err)
	}
	n = p.note(t, "callGo/done")
	if want := `{"result":{"who":"` + nonASCII + `"}}`; string(n.Params) != want {
		t.Errorf("%s: echo through vscode-jsonrpc: %s, want %s", p.run.peer, n.Params, want)
	}
	p.run.checkFraming(t, nonASCII, nonASCII)
}

// 50 concurrent calls from the runtime's Conn, answered by vscode-jsonrpc
// out of order, each matched to its own result.
func TestConcurrentCallsToVSCode(t *testing.T) {
	p := startLSPPeer(t)
	const n = 50
	errs := make(chan error, n)
	for i := range n {
		go func() {
			want := map[string]any{"i": float64(i), "who": nonASCII}
			var got map[string]any
			err := p.conn.Call(callCtx(t), "echo", want, &got)
			if err == nil && (got["i"] != want["i"] || got["who"] != want["who"]) {
				err = fmt.Errorf("call %d got %v", i, got)
			}
			errs <- err
		}()
	}
	for range n {
		select {
		case err := <-errs:
			if err != nil {
				t.Errorf("%s: %v", p.run.peer, err)
			}
		case <-time.After(wait):
			t.Fatalf("%s: not all %d calls returned", p.run.peer, n)
		}
	}
	p.run.checkFraming(t, nonASCII, nonASCII)
}
