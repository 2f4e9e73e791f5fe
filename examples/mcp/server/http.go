package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/streamhttp"
)

// shutdownGrace bounds how long the HTTP server waits for requests under
// way once told to stop.
const shutdownGrace = 5 * time.Second

// serveHTTP serves MCP over Streamable HTTP at mcp.HTTP.Path on addr, a
// new server value (with its own state and bounds) per session, until ctx
// ends. It writes the endpoint's URL to announce once it listens.
func serveHTTP(ctx context.Context, addr string, announce io.Writer, logger *slog.Logger, newSession func() *server) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	var sessions sync.WaitGroup
	h := streamhttp.NewHandler(mcp.HTTP, func(sess *streamhttp.Session) {
		s := newSession()
		log := logger.With("session", sess.ID())
		conn, _ := mcp.ConnectServer(sess, s, jsonrpc.Options{Logger: log})
		sessions.Go(func() {
			err := conn.Wait()
			s.tasks.Close()
			if err != nil && !isClosed(err) {
				log.Warn("session ended", "error", err)
				return
			}
			log.Info("session ended")
		})
	}, streamhttp.ServerOptions{Versions: supportedVersions, Logger: logger})
	mux := http.NewServeMux()
	mux.Handle(mcp.HTTP.Path, h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	fmt.Fprintf(announce, "listening on %s\n", streamhttp.LocalURL(ln.Addr(), mcp.HTTP.Path))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err = <-served:
	case <-ctx.Done():
	}
	// End the sessions first: their event streams would hold Shutdown.
	closeErr := h.Close()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	shutErr := srv.Shutdown(sctx)
	if err == nil {
		err = <-served
	}
	sessions.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return errors.Join(err, closeErr, shutErr)
}
