package bench

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/rpcgen/rpcgen/bench/benchproto"
	"github.com/rpcgen/rpcgen/runtime/framing"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// rpcgen runs the package rpcgen generated from bench.yaml: typed stubs on
// the client, the generated dispatcher on the server.
func init() {
	register(impl{name: "rpcgen", start: startRPCGen})
}

// rpcgenServer implements the generated Server interface.
type rpcgenServer struct {
	benchproto.UnimplementedServer
	on sink
}

func (rpcgenServer) Add(_ context.Context, p *benchproto.AddParams) (*benchproto.AddResult, error) {
	return &benchproto.AddResult{Sum: p.A + p.B}, nil
}

func (rpcgenServer) Echo(_ context.Context, p *benchproto.EchoParams) (*benchproto.EchoResult, error) {
	return &benchproto.EchoResult{Text: p.Text}, nil
}

func (s rpcgenServer) Tick(_ context.Context, p *benchproto.TickParams) error {
	s.on.tick(p.Seq)
	return nil
}

func (s rpcgenServer) TextDocumentDidOpen(_ context.Context, p *benchproto.DidOpenTextDocumentParams) error {
	s.on.didOpen(document(p.TextDocument))
	return nil
}

// neverBlocks names the methods whose handlers above never block, so
// that the server runs them on its reader (jsonrpc.Options.Inline).
func neverBlocks(method string) bool {
	switch method {
	case benchproto.MethodAdd, benchproto.MethodEcho, benchproto.MethodTick, benchproto.MethodTextDocumentDidOpen:
		return true
	}
	return false
}

// rpcgenSession is a generated client and server over one connection.
type rpcgenSession struct {
	clientConn *jsonrpc.Conn
	serverConn *jsonrpc.Conn
	server     benchproto.Server
}

func startRPCGen(client, server io.ReadWriteCloser, f framingKind, on sink) (session, error) {
	var opts jsonrpc.Options
	switch f {
	case contentLength:
		opts.Framing = framing.ContentLength
	case ndjson:
		opts.Framing = framing.NDJSON
	default:
		return nil, fmt.Errorf("rpcgen: unknown framing %q", f)
	}
	serverOpts := opts
	serverOpts.Inline = neverBlocks
	serverConn := benchproto.ConnectServer(server, rpcgenServer{on: on}, serverOpts)
	clientConn, remote := benchproto.ConnectClient(client, opts)
	return &rpcgenSession{clientConn: clientConn, serverConn: serverConn, server: remote}, nil
}

func (s *rpcgenSession) Add(ctx context.Context, a, b int64) (int64, error) {
	res, err := s.server.Add(ctx, &benchproto.AddParams{A: a, B: b})
	if err != nil {
		return 0, fmt.Errorf("rpcgen add: %w", err)
	}
	return res.Sum, nil
}

func (s *rpcgenSession) Echo(ctx context.Context, text string) (string, error) {
	res, err := s.server.Echo(ctx, &benchproto.EchoParams{Text: text})
	if err != nil {
		return "", fmt.Errorf("rpcgen echo: %w", err)
	}
	return res.Text, nil
}

func (s *rpcgenSession) Tick(ctx context.Context, seq int64) error {
	if err := s.server.Tick(ctx, &benchproto.TickParams{Seq: seq}); err != nil {
		return fmt.Errorf("rpcgen tick: %w", err)
	}
	return nil
}

func (s *rpcgenSession) DidOpen(ctx context.Context, doc document) error {
	if err := s.server.TextDocumentDidOpen(ctx, &benchproto.DidOpenTextDocumentParams{TextDocument: benchproto.TextDocumentItem(doc)}); err != nil {
		return fmt.Errorf("rpcgen didOpen: %w", err)
	}
	return nil
}

// Close closes the client, then the server, and waits for both.
func (s *rpcgenSession) Close() error {
	err := s.clientConn.Close()
	if err2 := s.serverConn.Close(); err == nil {
		err = err2
	}
	if errors.Is(err, jsonrpc.ErrClosed) {
		err = nil
	}
	return err
}
