// Command runtime is a Supex runtime for tests and demos: it serves the
// Supex bridge protocol over TCP like the SketchUp extension does, against
// an in-memory stand-in for the SketchUp model. The introspection, file
// and export tools work on that model (screenshots are wireframe PNGs,
// .skp files are JSON snapshots); eval_ruby and eval_ruby_file answer
// -32000, since there is no Ruby here.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/rpcgen/rpcgen/generated/supex"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

const usage = `usage: runtime [flags]

Serves the Supex bridge protocol (newline-delimited JSON-RPC over TCP)
against an in-memory model. It logs to stderr and to <dir>/sketchup_console.log,
and prints "listening on <address>" once it accepts connections.

Environment:
  SUPEX_AUTH_TOKEN      token hello must carry (unset: no authentication)
  SUPEX_ALLOW_REMOTE    1 allows a non-loopback -addr
  SUPEX_ALLOWED_ROOTS   colon-separated directories file tools may use; * for any
  SUPEX_RESPONSE_DELAY  seconds to wait before answering requests after hello
  SUPEX_VERBOSE         1 logs debug messages

Flags:
`

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "runtime:", err)
		os.Exit(1)
	}
}

func run() error {
	fs := flag.NewFlagSet("runtime", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), usage); fs.PrintDefaults() }
	addr := fs.String("addr", "127.0.0.1:9876", "`address` to listen on (port 0 picks a free one)")
	dir := fs.String("dir", ".tmp", "`directory` for default outputs; always an allowed root")
	idle := fs.Duration("idle-timeout", 300*time.Second, "close connections silent this long; 300 s is how long the Supex driver keeps an unused connection (SUPEX_IDLE_TIMEOUT) (negative: never)")
	maxConns := fs.Int("max-conns", transport.DefaultMaxConns, "most connections served at once; a new connection then evicts the oldest that has not completed hello (negative: no limit)")
	msgTimeout := fs.Duration("message-timeout", transport.DefaultMessageTimeout, "close a connection whose message takes longer than this to arrive, so slow senders cannot hold the -max-conns slots (negative: no limit)")
	closeAfter := fs.Bool("close-after-request", false, "close the connection after answering any request but hello, as upstream's runtime does")
	handshake := fs.Duration("handshake-timeout", transport.DefaultHandshakeTimeout, "close a connection that has not completed hello this long after connecting (negative: no limit)")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		os.Exit(2)
	}
	tmp, err := filepath.Abs(*dir)
	if err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	consoleLog := filepath.Join(tmp, "sketchup_console.log")
	logFile, err := os.OpenFile(consoleLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("console log: %w", err)
	}
	defer logFile.Close()
	level := slog.LevelInfo
	if os.Getenv("SUPEX_VERBOSE") == "1" {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(io.MultiWriter(os.Stderr, logFile), &slog.HandlerOptions{Level: level}))

	st := &state{
		model:      newModel(),
		token:      os.Getenv("SUPEX_AUTH_TOKEN"),
		policy:     newPathPolicy(os.Getenv("SUPEX_ALLOWED_ROOTS"), tmp),
		tmpDir:     tmp,
		consoleLog: consoleLog,
		closeAfter: *closeAfter,
		log:        log,
	}
	if d := os.Getenv("SUPEX_RESPONSE_DELAY"); d != "" {
		secs, err := strconv.ParseFloat(d, 64)
		if err != nil || secs < 0 {
			return fmt.Errorf("SUPEX_RESPONSE_DELAY=%q: want a number of seconds", d)
		}
		st.delay = time.Duration(secs * float64(time.Second))
	}

	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return fmt.Errorf("-addr %q: %w", *addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		if os.Getenv("SUPEX_ALLOW_REMOTE") != "1" {
			return fmt.Errorf("-addr %s is not a loopback address; set SUPEX_ALLOW_REMOTE=1 to allow it", *addr)
		}
		if st.token == "" {
			log.Warn("listening on a non-loopback address without SUPEX_AUTH_TOKEN: anyone who can reach it can run tools")
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listening: %w", err)
	}
	srv := &transport.Server{
		Start:            func(ctx context.Context, c net.Conn) { startConn(ctx, st, c) },
		IdleTimeout:      *idle,
		MaxConns:         *maxConns,
		MessageTimeout:   *msgTimeout,
		HandshakeTimeout: *handshake,
		Logger:           log,
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdown); err != nil {
			log.Warn("shutdown", "error", err)
		}
	}()
	log.Info("listening on " + ln.Addr().String())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, transport.ErrServerClosed) {
		return fmt.Errorf("serving: %w", err)
	}
	log.Info("stopped")
	return nil
}

// startConn starts one client's session. No goroutine waits for it: ctx
// ends when the session ends or the server stops, and then the session is
// closed.
func startConn(ctx context.Context, st *state, c net.Conn) {
	s := newSession(st)
	st.log.Debug("client connected", "remote", c.RemoteAddr().String())
	conn := supex.ConnectRuntime(c, s, jsonrpc.Options{
		Middleware: []jsonrpc.Middleware{s.gate},
		Logger:     st.log,
	})
	context.AfterFunc(ctx, func() {
		conn.Close()
		st.log.Debug("client closed", "remote", c.RemoteAddr().String(), "reason", conn.Err())
	})
}
