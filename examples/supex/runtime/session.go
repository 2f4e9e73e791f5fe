package main

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/generated/supex"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// version is the runtime's version, reported by hello and ping.
const version = "0.2.0"

// state is what every connection shares: the model and the settings.
type state struct {
	mu    sync.Mutex // serialises tools, as SketchUp runs one at a time
	model *model

	token      string        // SUPEX_AUTH_TOKEN; empty: no authentication
	policy     pathPolicy    // allowed roots before any workspace
	tmpDir     string        // default output directory
	delay      time.Duration // SUPEX_RESPONSE_DELAY
	consoleLog string        // where the log is captured, or ""
	closeAfter bool          // close after answering any request but hello
	log        *slog.Logger
}

// session serves one connection: it answers hello, and everything else
// only once hello has succeeded.
type session struct {
	supex.UnimplementedRuntime
	st *state

	mu     sync.Mutex
	client *supex.HelloParams // nil until a hello succeeds
	policy pathPolicy         // st.policy plus the hello's workspace
	outDir string             // default output directory of this client
}

func newSession(st *state) *session {
	return &session{st: st, policy: st.policy, outDir: st.tmpDir}
}

// tokenMatches compares the tokens in constant time; hashing first hides
// their lengths too.
func tokenMatches(got, want string) bool {
	g, w := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}

// Hello identifies the client and, when the runtime has a token,
// authenticates it.
func (s *session) Hello(_ context.Context, p *supex.HelloParams) (*supex.HelloResult, error) {
	if s.st.token != "" && (p.Token == "" || !tokenMatches(p.Token, s.st.token)) {
		s.st.log.Warn("authentication failed", "name", jsonrpc.Truncate(p.Name), "agent", jsonrpc.Truncate(p.Agent), "pid", p.Pid)
		s.mu.Lock()
		s.client = nil // a failed hello leaves the connection unidentified
		s.mu.Unlock()
		return nil, jsonrpc.NewError(supex.CodeAuthenticationFailed,
			"Authentication failed: invalid or missing token", &supex.ErrorData{})
	}
	policy, outDir := s.st.policy, s.st.tmpDir
	if p.Workspace != "" && filepath.IsAbs(p.Workspace) {
		if wsPolicy, ok := policy.withWorkspace(p.Workspace); ok {
			policy, outDir = wsPolicy, filepath.Join(p.Workspace, ".tmp")
		} else {
			s.st.log.Warn("workspace outside SUPEX_ALLOWED_ROOTS ignored", "workspace", jsonrpc.Truncate(p.Workspace))
		}
	}
	s.mu.Lock()
	s.client = p
	s.policy, s.outDir = policy, outDir
	s.mu.Unlock()
	s.st.log.Info("client identified", "name", jsonrpc.Truncate(p.Name), "version", jsonrpc.Truncate(p.Version),
		"agent", jsonrpc.Truncate(p.Agent), "pid", p.Pid)
	return &supex.HelloResult{
		Success: true,
		Message: "Client identified",
		Server:  supex.ServerInfo{Name: "supex-runtime", Version: version},
	}, nil
}

// gate answers every request but hello with -32600 until a hello has
// succeeded, and delays answers by SUPEX_RESPONSE_DELAY. With
// -close-after-request it closes the connection after answering any
// request but hello, refused or not, as upstream's runtime does.
func (s *session) gate(next jsonrpc.Handler) jsonrpc.Handler {
	return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == supex.MethodHello {
			return next.Handle(ctx, req)
		}
		if s.st.closeAfter && !req.IsNotification() {
			jsonrpc.CloseAfterReply(ctx)
		}
		s.mu.Lock()
		ok := s.client != nil
		s.mu.Unlock()
		if !ok {
			hint := "Send hello method with params: name, version, agent, pid"
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
				"Client must identify with 'hello' method first", &supex.ErrorData{Hint: hint})
		}
		if s.st.delay > 0 {
			t := time.NewTimer(s.st.delay)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return next.Handle(ctx, req)
	})
}

// Ping reports that the runtime is up.
func (s *session) Ping(context.Context) (*supex.PingResult, error) {
	return pingResult, nil
}

// pingResult is every ping's answer, made once: the connection only
// encodes a result, so one value serves all calls without an allocation
// each.
var pingResult = &supex.PingResult{Status: "ok", Version: version, Message: "Supex server is running"}

// ResourcesList lists the top-level entities with their bounds.
func (s *session) ResourcesList(context.Context) (*supex.ResourcesListResult, error) {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	res := &supex.ResourcesListResult{Success: true, Resources: []supex.Resource{}}
	for _, e := range s.st.model.Entities {
		center := make(supex.Vector3, 3)
		for i := range 3 {
			center[i] = (e.Min[i] + e.Max[i]) / 2
		}
		res.Resources = append(res.Resources, supex.Resource{
			ID:     e.ID,
			Type:   strings.ToLower(e.Type),
			Bounds: &supex.Bounds{Min: e.Min, Max: e.Max, Center: center},
		})
	}
	return res, nil
}

// ToolsCall runs one tool against the model.
func (s *session) ToolsCall(_ context.Context, p *supex.ToolsCallParams) (*supex.ToolResult, error) {
	args, err := json.Marshal(p.Arguments)
	if err != nil {
		return nil, fmt.Errorf("encoding arguments: %w", err)
	}
	s.mu.Lock()
	t := tools{st: s.st, policy: s.policy, outDir: s.outDir}
	s.mu.Unlock()
	s.st.log.Info("tool call", "tool", jsonrpc.Truncate(string(p.Name)))
	s.st.mu.Lock()
	out, err := t.run(p.Name, args)
	s.st.mu.Unlock()
	if err != nil {
		s.st.log.Info("tool failed", "tool", jsonrpc.Truncate(string(p.Name)), "error", jsonrpc.Truncate(err.Error()))
		return nil, err
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encoding result of %s: %w", p.Name, err)
	}
	var res supex.ToolResult
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("result of %s: %w", p.Name, err)
	}
	return &res, nil
}

// rubyError is the -32000 error for a tool or Ruby failure.
func rubyError(format string, args ...any) error {
	return jsonrpc.NewError(supex.CodeRuby, fmt.Sprintf(format, args...), &supex.ErrorData{})
}

// pathDenied is the -32002 error for a path outside the allowed roots.
func pathDenied(operation, path string) error {
	return jsonrpc.NewError(supex.CodePathAccessDenied,
		fmt.Sprintf("Path access denied for %s: %s", operation, jsonrpc.Truncate(path)), &supex.ErrorData{})
}
