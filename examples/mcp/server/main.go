// Command server is a reference Model Context Protocol server speaking
// revision 2025-11-25 (and the older revisions the SDKs accept) over stdio,
// or, with -http ADDR, over Streamable HTTP at /mcp (one server state per
// session).
//
// It offers tools (echo, add, a slow one that reports progress, honours
// cancellation and may run as a task, and tools that call back into the
// client: roots, sample, ask, connect, ping_client), text and binary
// resources with a template and subscriptions, prompts, completion and
// logging. Logs go to stderr; stdout carries the protocol.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/rpcgen/rpcgen/examples/mcp/internal/tasks"
	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// supportedVersions are the revisions this server speaks, newest first.
var supportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"}

// logLevels are the MCP logging levels, least severe first.
var logLevels = []mcp.LoggingLevel{
	mcp.LoggingLevelDebug, mcp.LoggingLevelInfo, mcp.LoggingLevelNotice, mcp.LoggingLevelWarning,
	mcp.LoggingLevelError, mcp.LoggingLevelCritical, mcp.LoggingLevelAlert, mcp.LoggingLevelEmergency,
}

func main() {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s [flags]\n\n"+
			"A Model Context Protocol server on stdin and stdout (newline-delimited JSON-RPC),\n"+
			"or with -http ADDR on Streamable HTTP at http://ADDR/mcp, until SIGINT or SIGTERM.\n"+
			"Start it from an MCP client, or point a client at the URL it prints; it logs to\n"+
			"stderr.\n\nFlags:\n", os.Args[0])
		fs.PrintDefaults()
	}
	slowStart := fs.Duration("slow-start", 0, "wait this long before answering initialize (to test client timeouts)")
	pageSize := fs.Int("page-size", 50, "items per page of the list requests")
	verbose := fs.Bool("v", false, "log debug details to stderr")
	httpAddr := fs.String("http", "", "serve Streamable HTTP on this address (host:port; port 0 picks one) instead of stdio")
	lim := limits{}
	fs.IntVar(&lim.maxNotes, "max-notes", defaultMaxNotes, "most notes add_note keeps")
	fs.IntVar(&lim.maxNoteBytes, "max-note-bytes", defaultMaxNoteBytes, "most bytes of one note's text")
	fs.IntVar(&lim.tasks.MaxTasks, "max-tasks", tasks.DefaultMaxTasks, "most tasks kept for the client at once, working or final until their TTL ends")
	fs.DurationVar(&lim.tasks.MaxTTL, "max-task-ttl", tasks.DefaultMaxTTL, "longest TTL granted to a task; a longer one asked for is shortened")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if err == flag.ErrHelp {
			os.Exit(0)
		}
		os.Exit(2)
	}
	if fs.NArg() > 0 || *pageSize < 1 || lim.maxNotes < 1 || lim.maxNoteBytes < 1 || lim.tasks.MaxTasks < 1 || lim.tasks.MaxTTL <= 0 {
		fs.Usage()
		os.Exit(2)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	if *httpAddr != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		err := serveHTTP(ctx, *httpAddr, os.Stderr, logger, func() *server { return newServer(logger, *slowStart, *pageSize, lim) })
		if err != nil {
			logger.Error("serving HTTP", "error", err)
			os.Exit(1)
		}
		logger.Info("stopped")
		return
	}
	s := newServer(logger, *slowStart, *pageSize, lim)
	conn, _ := mcp.ConnectServer(transport.Stdio(), s, jsonrpc.Options{Logger: logger})
	err := conn.Wait()
	s.tasks.Close()
	if err != nil && !isClosed(err) {
		logger.Error("session ended", "error", err)
		os.Exit(1)
	}
	logger.Info("session ended")
}

// isClosed reports whether err says the session ended normally: the client
// closed our stdin.
func isClosed(err error) bool {
	return err == nil || errors.Is(err, jsonrpc.ErrPeerClosed) || errors.Is(err, jsonrpc.ErrClosed)
}

// server implements mcp.Server.
type server struct {
	mcp.UnimplementedServer
	log       *slog.Logger
	slowStart time.Duration
	pageSize  int
	limits    limits
	tasks     *tasks.Store

	mu         sync.Mutex
	level      mcp.LoggingLevel // "" until logging/setLevel: send everything
	clientCaps mcp.ClientCapabilities
	version    string // the negotiated revision
	subs       map[string]bool
	notes      []string
	rootsWatch rootsWatch
	extras     bool             // the shout tool and prompt are on
	connected  bool             // the connect elicitation completed
	relays     map[string]relay // progress of our requests to the client, by token
	nextToken  int
}

// relay forwards the client's progress on one of our requests to the
// caller of the tool that made it.
type relay struct {
	token  mcp.ProgressToken
	client mcp.Client
}

func newServer(logger *slog.Logger, slowStart time.Duration, pageSize int, lim limits) *server {
	return &server{
		log: logger, slowStart: slowStart, pageSize: pageSize, limits: lim, tasks: tasks.NewStore(lim.tasks),
		subs: map[string]bool{}, relays: map[string]relay{},
	}
}

// client returns the client at the other end of the connection serving ctx.
func client(ctx context.Context) mcp.Client {
	return mcp.NewClientRemote(jsonrpc.ConnFromContext(ctx))
}

// Initialize negotiates the revision: the client's when this server speaks
// it, else the newest this server speaks.
func (s *server) Initialize(ctx context.Context, p *mcp.InitializeRequestParams) (*mcp.InitializeResult, error) {
	if s.slowStart > 0 {
		select {
		case <-time.After(s.slowStart):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	version := supportedVersions[0]
	if slices.Contains(supportedVersions, p.ProtocolVersion) {
		version = p.ProtocolVersion
	}
	s.mu.Lock()
	s.clientCaps = p.Capabilities
	s.version = version
	s.mu.Unlock()
	s.log.Info("initialize", "client", jsonrpc.Truncate(p.ClientInfo.Name), "clientVersion", jsonrpc.Truncate(p.ClientInfo.Version),
		"requested", jsonrpc.Truncate(p.ProtocolVersion), "answered", version)
	yes := true
	return &mcp.InitializeResult{
		ProtocolVersion: version,
		Capabilities: mcp.ServerCapabilities{
			Logging:     &mcp.Capability{},
			Completions: &mcp.Capability{},
			Prompts:     &mcp.ListChangedCapability{ListChanged: yes},
			Resources:   &mcp.ResourcesCapability{Subscribe: yes, ListChanged: yes},
			Tools:       &mcp.ListChangedCapability{ListChanged: yes},
			Tasks: &mcp.ServerTasksCapability{
				List: &mcp.Capability{}, Cancel: &mcp.Capability{},
				Requests: &mcp.ServerTaskRequests{Tools: &mcp.ServerTaskTools{Call: &mcp.Capability{}}},
			},
		},
		ServerInfo: mcp.Implementation{
			Name: "rpcgen-mcp-example", Title: "rpcgen MCP example server", Version: "1.0.0",
			Description: "The reference server of rpcgen's MCP package",
		},
		Instructions: "Call echo to test the connection; slow reports progress and may run as a task.",
	}, nil
}

func (s *server) Initialized(ctx context.Context, _ *mcp.NotificationParams) error {
	s.mu.Lock()
	version := s.version
	s.mu.Unlock()
	s.log.Info("client initialized")
	s.logf(ctx, client(ctx), mcp.LoggingLevelInfo, "session", "session initialized (revision %s)", version)
	return nil
}

func (s *server) Ping(context.Context, *mcp.RequestParams) (*mcp.EmptyResult, error) {
	return &mcp.EmptyResult{}, nil
}

// Progress relays the client's progress on a request of ours to whoever
// called the tool that made it.
func (s *server) Progress(ctx context.Context, p *mcp.ProgressNotificationParams) error {
	key, _ := json.Marshal(p.ProgressToken)
	s.mu.Lock()
	r, ok := s.relays[string(key)]
	s.mu.Unlock()
	if !ok {
		s.log.Debug("progress for an unknown token", "token", jsonrpc.Truncate(string(key)))
		return nil
	}
	return r.client.Progress(ctx, &mcp.ProgressNotificationParams{
		ProgressToken: r.token, Progress: p.Progress, Total: p.Total, Message: p.Message,
	})
}

func (s *server) TaskStatus(ctx context.Context, p *mcp.TaskStatusNotificationParams) error {
	id, status := jsonrpc.Truncate(p.TaskID), jsonrpc.Truncate(string(p.Status))
	s.log.Info("client task status", "task", id, "status", status)
	s.logf(ctx, client(ctx), mcp.LoggingLevelInfo, "tasks", "client task %s is %s", id, status)
	return nil
}

func (s *server) SetLevel(_ context.Context, p *mcp.SetLevelRequestParams) (*mcp.EmptyResult, error) {
	s.mu.Lock()
	s.level = p.Level
	s.mu.Unlock()
	return &mcp.EmptyResult{}, nil
}

// logf sends a notifications/message when level is at or above the level
// the client set.
func (s *server) logf(ctx context.Context, c mcp.Client, level mcp.LoggingLevel, logger, format string, args ...any) {
	s.mu.Lock()
	min := s.level
	s.mu.Unlock()
	if min != "" && slices.Index(logLevels, level) < slices.Index(logLevels, min) {
		return
	}
	data, _ := json.Marshal(fmt.Sprintf(format, args...))
	if err := c.LoggingMessage(ctx, &mcp.LoggingMessageNotificationParams{Level: level, Logger: logger, Data: data}); err != nil {
		s.log.Warn("sending a log message", "error", jsonrpc.Truncate(err.Error()))
	}
}
