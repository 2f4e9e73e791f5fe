package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/streamhttp"
)

// reconnectRetry is the reconnection delay test_reconnection announces
// when it ends its stream.
const reconnectRetry = 250 * time.Millisecond

// newHandler returns the handler of the endpoint: each session gets a
// session value of its own. Every request is answered with an event
// stream at once (AnswerWait -1): by default an answer ready within
// AnswerWait goes as application/json, and which ones are depends on
// timing, so the suite's checks of event streams would run or not from
// one run to the next.
func newHandler(logger *slog.Logger) *streamhttp.Handler {
	return streamhttp.NewHandler(mcp.HTTP, func(s *streamhttp.Session) {
		log := logger.With("session", s.ID())
		mcp.ConnectServer(s, newSession(log), jsonrpc.Options{Logger: log})
	}, streamhttp.ServerOptions{Versions: supportedVersions, Logger: logger, AnswerWait: -1})
}

// serveHTTP serves MCP sessions over Streamable HTTP at addr, endpoint
// mcp.HTTP.Path, until ctx ends; then it ends every session and returns.
// Once it accepts connections it writes "listening on URL" to stderr.
func serveHTTP(ctx context.Context, addr string, logger *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening: %w", err)
	}
	h := newHandler(logger)
	mux := http.NewServeMux()
	mux.Handle(mcp.HTTP.Path, h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(os.Stderr, "listening on %s\n", streamhttp.LocalURL(ln.Addr(), mcp.HTTP.Path))
	select {
	case err := <-served:
		h.Close()
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	h.Close()
	stop, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(stop); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutting down: %w", err)
	}
	return nil
}

// reconnection ends the event stream of its request before answering, so
// that the client gets the answer on the stream it resumes with
// Last-Event-ID (SEP-1699).
func reconnection(ctx context.Context, _ *session, _ call) (*mcp.CallToolResult, error) {
	if err := streamhttp.CloseStream(ctx, reconnectRetry); err != nil {
		return toolError("could not end the event stream: %s", jsonrpc.Truncate(err.Error())), nil
	}
	return result(textBlock("Reconnection test completed: this answer came after the stream was closed.")), nil
}
