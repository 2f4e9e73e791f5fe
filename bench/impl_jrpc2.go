package bench

import (
	"context"
	"fmt"
	"io"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"github.com/creachadair/jrpc2/handler"
)

// jrpc2 is github.com/creachadair/jrpc2. Its channel.Header("") framing is
// Content-Length without a Content-Type header (channel.LSP adds one), and
// channel.Line is NDJSON. Handlers decode with Request.UnmarshalParams, the
// library's direct path (handler.New adds reflection on top).
func init() {
	register(impl{name: "jrpc2", peer: true, start: startJRPC2})
}

// jrpc2Session is a jrpc2 client and server over one connection.
type jrpc2Session struct {
	client *jrpc2.Client
	server *jrpc2.Server
}

type (
	jrpc2AddParams struct {
		A int64 `json:"a"`
		B int64 `json:"b"`
	}
	jrpc2AddResult struct {
		Sum int64 `json:"sum"`
	}
	jrpc2Text struct {
		Text string `json:"text"`
	}
	jrpc2TickParams struct {
		Seq int64 `json:"seq"`
	}
)

func startJRPC2(client, server io.ReadWriteCloser, f framingKind, on sink) (session, error) {
	var frame channel.Framing
	switch f {
	case contentLength:
		frame = channel.Header("")
	case ndjson:
		frame = channel.Line
	default:
		return nil, fmt.Errorf("jrpc2: unknown framing %q", f)
	}
	methods := handler.Map{
		"add": func(_ context.Context, req *jrpc2.Request) (any, error) {
			var p jrpc2AddParams
			if err := req.UnmarshalParams(&p); err != nil {
				return nil, err
			}
			return jrpc2AddResult{Sum: p.A + p.B}, nil
		},
		"echo": func(_ context.Context, req *jrpc2.Request) (any, error) {
			var p jrpc2Text
			if err := req.UnmarshalParams(&p); err != nil {
				return nil, err
			}
			return p, nil
		},
		"tick": func(_ context.Context, req *jrpc2.Request) (any, error) {
			var p jrpc2TickParams
			if err := req.UnmarshalParams(&p); err != nil {
				return nil, err
			}
			on.tick(p.Seq)
			return nil, nil
		},
		methodDidOpen: func(_ context.Context, req *jrpc2.Request) (any, error) {
			var p didOpenParams
			if err := req.UnmarshalParams(&p); err != nil {
				return nil, err
			}
			on.didOpen(p.doc())
			return nil, nil
		},
	}
	srv := jrpc2.NewServer(methods, nil).Start(frame(server, server))
	cli := jrpc2.NewClient(frame(client, client), nil)
	return &jrpc2Session{client: cli, server: srv}, nil
}

func (s *jrpc2Session) Add(ctx context.Context, a, b int64) (int64, error) {
	var res jrpc2AddResult
	if err := s.client.CallResult(ctx, "add", jrpc2AddParams{A: a, B: b}, &res); err != nil {
		return 0, fmt.Errorf("jrpc2 add: %w", err)
	}
	return res.Sum, nil
}

func (s *jrpc2Session) Echo(ctx context.Context, text string) (string, error) {
	var res jrpc2Text
	if err := s.client.CallResult(ctx, "echo", jrpc2Text{Text: text}, &res); err != nil {
		return "", fmt.Errorf("jrpc2 echo: %w", err)
	}
	return res.Text, nil
}

func (s *jrpc2Session) Tick(ctx context.Context, seq int64) error {
	if err := s.client.Notify(ctx, "tick", jrpc2TickParams{Seq: seq}); err != nil {
		return fmt.Errorf("jrpc2 tick: %w", err)
	}
	return nil
}

func (s *jrpc2Session) DidOpen(ctx context.Context, doc document) error {
	if err := s.client.Notify(ctx, methodDidOpen, newDidOpenParams(doc)); err != nil {
		return fmt.Errorf("jrpc2 didOpen: %w", err)
	}
	return nil
}

// Close closes the client, then stops the server and waits for it.
func (s *jrpc2Session) Close() error {
	err := s.client.Close()
	s.server.Stop()
	s.server.Wait()
	return err
}
