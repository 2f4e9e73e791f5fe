package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/exp/jsonrpc2"
)

// x/exp is golang.org/x/exp/jsonrpc2, the package gopls's JSON-RPC layer
// grew into. Its HeaderFramer is the Content-Length framing; its RawFramer
// writes bare JSON values one after another (no newline) and reads any
// whitespace-separated sequence of values, so it stands in for NDJSON.
func init() {
	register(impl{name: "xexp", peer: true, start: startXExp})
}

// xexpSession is an x/exp/jsonrpc2 client and server over one connection.
type xexpSession struct {
	client, server *jsonrpc2.Connection
}

// streamDialer hands an existing stream to jsonrpc2.Dial.
type streamDialer struct{ rwc io.ReadWriteCloser }

func (d streamDialer) Dial(context.Context) (io.ReadWriteCloser, error) { return d.rwc, nil }

type (
	xexpAddParams struct {
		A int64 `json:"a"`
		B int64 `json:"b"`
	}
	xexpAddResult struct {
		Sum int64 `json:"sum"`
	}
	xexpText struct {
		Text string `json:"text"`
	}
	xexpTickParams struct {
		Seq int64 `json:"seq"`
	}
)

func startXExp(client, server io.ReadWriteCloser, f framingKind, on sink) (session, error) {
	var framer jsonrpc2.Framer
	switch f {
	case contentLength:
		framer = jsonrpc2.HeaderFramer()
	case ndjson:
		framer = jsonrpc2.RawFramer()
	default:
		return nil, fmt.Errorf("x/exp: unknown framing %q", f)
	}
	ctx := context.Background()
	handler := jsonrpc2.HandlerFunc(func(_ context.Context, req *jsonrpc2.Request) (any, error) {
		switch req.Method {
		case "add":
			var p xexpAddParams
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return nil, fmt.Errorf("add params: %w", err)
			}
			return xexpAddResult{Sum: p.A + p.B}, nil
		case "echo":
			var p xexpText
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return nil, fmt.Errorf("echo params: %w", err)
			}
			return p, nil
		case "tick":
			var p xexpTickParams
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return nil, fmt.Errorf("tick params: %w", err)
			}
			on.tick(p.Seq)
			return nil, nil
		case methodDidOpen:
			var p didOpenParams
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return nil, fmt.Errorf("didOpen params: %w", err)
			}
			on.didOpen(p.doc())
			return nil, nil
		}
		return nil, jsonrpc2.ErrNotHandled
	})
	srv, err := jsonrpc2.Dial(ctx, streamDialer{server}, jsonrpc2.ConnectionOptions{Framer: framer, Handler: handler})
	if err != nil {
		return nil, fmt.Errorf("x/exp server: %w", err)
	}
	cli, err := jsonrpc2.Dial(ctx, streamDialer{client}, jsonrpc2.ConnectionOptions{Framer: framer})
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("x/exp client: %w", err)
	}
	return &xexpSession{client: cli, server: srv}, nil
}

func (s *xexpSession) Add(ctx context.Context, a, b int64) (int64, error) {
	var res xexpAddResult
	if err := s.client.Call(ctx, "add", xexpAddParams{A: a, B: b}).Await(ctx, &res); err != nil {
		return 0, fmt.Errorf("x/exp add: %w", err)
	}
	return res.Sum, nil
}

func (s *xexpSession) Echo(ctx context.Context, text string) (string, error) {
	var res xexpText
	if err := s.client.Call(ctx, "echo", xexpText{Text: text}).Await(ctx, &res); err != nil {
		return "", fmt.Errorf("x/exp echo: %w", err)
	}
	return res.Text, nil
}

func (s *xexpSession) Tick(ctx context.Context, seq int64) error {
	if err := s.client.Notify(ctx, "tick", xexpTickParams{Seq: seq}); err != nil {
		return fmt.Errorf("x/exp tick: %w", err)
	}
	return nil
}

func (s *xexpSession) DidOpen(ctx context.Context, doc document) error {
	if err := s.client.Notify(ctx, methodDidOpen, newDidOpenParams(doc)); err != nil {
		return fmt.Errorf("x/exp didOpen: %w", err)
	}
	return nil
}

// Close closes the client, then the server; each waits for its goroutines.
// x/exp does not count an *os.File's "file already closed" as a normal end
// of the stream, so that error is dropped here.
func (s *xexpSession) Close() error {
	err := s.client.Close()
	if err2 := s.server.Close(); err == nil {
		err = err2
	}
	if errors.Is(err, os.ErrClosed) {
		err = nil
	}
	return err
}
