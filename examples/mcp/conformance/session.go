package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// supportedVersions are the revisions this server speaks, newest first.
var supportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// logLevels are the MCP logging levels, least severe first.
var logLevels = []mcp.LoggingLevel{
	mcp.LoggingLevelDebug, mcp.LoggingLevelInfo, mcp.LoggingLevelNotice, mcp.LoggingLevelWarning,
	mcp.LoggingLevelError, mcp.LoggingLevelCritical, mcp.LoggingLevelAlert, mcp.LoggingLevelEmergency,
}

// maxSubscriptions bounds the resources one session may subscribe to.
const maxSubscriptions = 64

// session is the server of one MCP session: the state a client builds up
// (its capabilities, the log level it set, its subscriptions) lives here,
// and a new session starts from scratch.
type session struct {
	mcp.UnimplementedServer
	log *slog.Logger

	mu         sync.Mutex
	clientCaps mcp.ClientCapabilities
	level      mcp.LoggingLevel // "" until logging/setLevel: send every level
	subs       map[string]bool
}

func newSession(logger *slog.Logger) *session {
	return &session{log: logger, subs: map[string]bool{}}
}

// client returns the client at the other end of the connection serving ctx.
func client(ctx context.Context) mcp.Client {
	return mcp.NewClientRemote(jsonrpc.ConnFromContext(ctx))
}

// Initialize answers with the client's revision when this server speaks
// it, else with the newest it speaks, and keeps the client's capabilities.
func (s *session) Initialize(_ context.Context, p *mcp.InitializeRequestParams) (*mcp.InitializeResult, error) {
	version := supportedVersions[0]
	if slices.Contains(supportedVersions, p.ProtocolVersion) {
		version = p.ProtocolVersion
	}
	s.mu.Lock()
	s.clientCaps = p.Capabilities
	s.mu.Unlock()
	s.log.Info("initialize", "client", jsonrpc.Truncate(p.ClientInfo.Name), "requested", jsonrpc.Truncate(p.ProtocolVersion), "answered", version)
	yes := true
	return &mcp.InitializeResult{
		ProtocolVersion: version,
		Capabilities: mcp.ServerCapabilities{
			Logging:     &mcp.Capability{},
			Completions: &mcp.Capability{},
			Prompts:     &mcp.ListChangedCapability{ListChanged: yes},
			Resources:   &mcp.ResourcesCapability{Subscribe: yes, ListChanged: yes},
			Tools:       &mcp.ListChangedCapability{ListChanged: yes},
		},
		ServerInfo: mcp.Implementation{Name: "rpcgen-mcp-conformance", Title: "rpcgen MCP conformance server", Version: "1.0.0"},
	}, nil
}

func (s *session) Initialized(context.Context, *mcp.NotificationParams) error {
	return nil
}

func (s *session) Ping(context.Context, *mcp.RequestParams) (*mcp.EmptyResult, error) {
	return &mcp.EmptyResult{}, nil
}

func (s *session) SetLevel(_ context.Context, p *mcp.SetLevelRequestParams) (*mcp.EmptyResult, error) {
	if !slices.Contains(logLevels, p.Level) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unknown logging level: "+jsonrpc.Truncate(string(p.Level)), nil)
	}
	s.mu.Lock()
	s.level = p.Level
	s.mu.Unlock()
	return &mcp.EmptyResult{}, nil
}

// caps returns the capabilities the client announced.
func (s *session) caps() mcp.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientCaps
}

// logf sends msg as a notifications/message at level, unless the client
// asked for more severe messages only.
func (s *session) logf(ctx context.Context, c mcp.Client, level mcp.LoggingLevel, msg string) error {
	s.mu.Lock()
	min := s.level
	s.mu.Unlock()
	if min != "" && slices.Index(logLevels, level) < slices.Index(logLevels, min) {
		return nil
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	logger := "conformance"
	return c.LoggingMessage(ctx, &mcp.LoggingMessageNotificationParams{Level: level, Logger: logger, Data: data})
}
