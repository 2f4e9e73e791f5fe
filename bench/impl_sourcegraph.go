package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/sourcegraph/jsonrpc2"
)

// sourcegraph is github.com/sourcegraph/jsonrpc2. VSCodeObjectCodec is the
// Content-Length framing; NewPlainObjectStream writes each message with a
// json.Encoder, which ends it with a newline, so it is NDJSON. Handlers run
// in the connection's read loop, the library's default (AsyncHandler would
// start a goroutine per message).
func init() {
	register(impl{name: "sourcegraph", peer: true, start: startSourcegraph})
}

// sourcegraphSession is a sourcegraph/jsonrpc2 client and server over one
// connection.
type sourcegraphSession struct {
	client, server *jsonrpc2.Conn
}

type (
	sgAddParams struct {
		A int64 `json:"a"`
		B int64 `json:"b"`
	}
	sgAddResult struct {
		Sum int64 `json:"sum"`
	}
	sgText struct {
		Text string `json:"text"`
	}
	sgTickParams struct {
		Seq int64 `json:"seq"`
	}
)

// sgNoHandler answers the client's (absent) incoming requests.
type sgNoHandler struct{}

func (sgNoHandler) Handle(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) {}

// errNoParams answers a request without params.
var errNoParams = errors.New("missing params")

func startSourcegraph(client, server io.ReadWriteCloser, f framingKind, on sink) (session, error) {
	var cliStream, srvStream jsonrpc2.ObjectStream
	switch f {
	case contentLength:
		cliStream = jsonrpc2.NewBufferedStream(client, jsonrpc2.VSCodeObjectCodec{})
		srvStream = jsonrpc2.NewBufferedStream(server, jsonrpc2.VSCodeObjectCodec{})
	case ndjson:
		cliStream = jsonrpc2.NewPlainObjectStream(client)
		srvStream = jsonrpc2.NewPlainObjectStream(server)
	default:
		return nil, fmt.Errorf("sourcegraph: unknown framing %q", f)
	}
	h := jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
		if req.Params == nil {
			return nil, errNoParams
		}
		switch req.Method {
		case "add":
			var p sgAddParams
			if err := json.Unmarshal(*req.Params, &p); err != nil {
				return nil, fmt.Errorf("add params: %w", err)
			}
			return sgAddResult{Sum: p.A + p.B}, nil
		case "echo":
			var p sgText
			if err := json.Unmarshal(*req.Params, &p); err != nil {
				return nil, fmt.Errorf("echo params: %w", err)
			}
			return p, nil
		case "tick":
			var p sgTickParams
			if err := json.Unmarshal(*req.Params, &p); err != nil {
				return nil, fmt.Errorf("tick params: %w", err)
			}
			on.tick(p.Seq)
			return nil, nil
		case methodDidOpen:
			var p didOpenParams
			if err := json.Unmarshal(*req.Params, &p); err != nil {
				return nil, fmt.Errorf("didOpen params: %w", err)
			}
			on.didOpen(p.doc())
			return nil, nil
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "Method not found"}
	})
	ctx := context.Background()
	srv := jsonrpc2.NewConn(ctx, srvStream, h)
	cli := jsonrpc2.NewConn(ctx, cliStream, sgNoHandler{})
	return &sourcegraphSession{client: cli, server: srv}, nil
}

func (s *sourcegraphSession) Add(ctx context.Context, a, b int64) (int64, error) {
	var res sgAddResult
	if err := s.client.Call(ctx, "add", sgAddParams{A: a, B: b}, &res); err != nil {
		return 0, fmt.Errorf("sourcegraph add: %w", err)
	}
	return res.Sum, nil
}

func (s *sourcegraphSession) Echo(ctx context.Context, text string) (string, error) {
	var res sgText
	if err := s.client.Call(ctx, "echo", sgText{Text: text}, &res); err != nil {
		return "", fmt.Errorf("sourcegraph echo: %w", err)
	}
	return res.Text, nil
}

func (s *sourcegraphSession) Tick(ctx context.Context, seq int64) error {
	if err := s.client.Notify(ctx, "tick", sgTickParams{Seq: seq}); err != nil {
		return fmt.Errorf("sourcegraph tick: %w", err)
	}
	return nil
}

func (s *sourcegraphSession) DidOpen(ctx context.Context, doc document) error {
	if err := s.client.Notify(ctx, methodDidOpen, newDidOpenParams(doc)); err != nil {
		return fmt.Errorf("sourcegraph didOpen: %w", err)
	}
	return nil
}

// Close closes both connections and waits until their read loops end.
func (s *sourcegraphSession) Close() error {
	err := s.client.Close()
	if err2 := s.server.Close(); err == nil {
		err = err2
	}
	<-s.client.DisconnectNotify()
	<-s.server.DisconnectNotify()
	if errors.Is(err, jsonrpc2.ErrClosed) {
		err = nil
	}
	return err
}
