package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/streamhttp"
)

// protocolVersion is the revision the client asks for.
const protocolVersion = "2025-11-25"

// steps is what a scenario does once the session is open.
type steps func(ctx context.Context, srv mcp.Server, log *slog.Logger) error

// scenarios maps the suite's scenario names to their steps. Every auth/
// scenario not listed runs authSteps.
var scenarios = map[string]steps{
	"initialize":                          listTools,
	"tools_call":                          all(listTools, callTool("add_numbers", map[string]any{"a": 5, "b": 3})),
	"elicitation-sep1034-client-defaults": all(listTools, callTool("test_client_elicitation_defaults", nil)),
	"sse-retry":                           all(listTools, callTool("test_reconnection", nil)),
}

// authSteps is what the auth scenarios' servers expect: list the tools and
// call the one they offer.
var authSteps = all(listTools, callTool("test-tool", nil))

// lookup returns the steps of scenario name.
func lookup(name string) (steps, error) {
	if s, ok := scenarios[name]; ok {
		return s, nil
	}
	if strings.HasPrefix(name, "auth/") {
		return authSteps, nil
	}
	return nil, fmt.Errorf("unknown scenario %q", name)
}

// scenarioNames lists the scenarios for the usage message.
func scenarioNames() []string {
	var names []string
	for n := range scenarios {
		names = append(names, n)
	}
	slices.Sort(names)
	return append(names, "auth/... (every authorization scenario)")
}

// run opens a session with the server at url and runs scenario name.
// rawContext is the scenario's data from the suite, if any.
func run(ctx context.Context, name, url, rawContext string, log *slog.Logger) error {
	do, err := lookup(name)
	if err != nil {
		return err
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	defer base.CloseIdleConnections()
	rt, err := authorizer(name, rawContext, base)
	if err != nil {
		return err
	}
	stream, err := streamhttp.Dial(ctx, url, mcp.HTTP, streamhttp.ClientOptions{
		HTTPClient: &http.Client{Transport: rt},
		Logger:     log,
	})
	if err != nil {
		return err
	}
	conn, srv := mcp.ConnectClient(stream, &handler{log: log}, jsonrpc.Options{Logger: log})
	defer conn.Close()
	res, err := srv.Initialize(ctx, &mcp.InitializeRequestParams{
		ProtocolVersion: protocolVersion,
		Capabilities: mcp.ClientCapabilities{
			Elicitation: &mcp.ElicitationCapability{Form: &mcp.Capability{}},
		},
		ClientInfo: mcp.Implementation{Name: "rpcgen-conformance-client", Version: "1.0.0"},
	})
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	log.Debug("initialized", "server", res.ServerInfo.Name, "version", res.ProtocolVersion)
	if err := srv.Initialized(ctx, &mcp.NotificationParams{}); err != nil {
		return fmt.Errorf("notifications/initialized: %w", err)
	}
	return do(ctx, srv, log)
}

// all runs each of ss in turn.
func all(ss ...steps) steps {
	return func(ctx context.Context, srv mcp.Server, log *slog.Logger) error {
		for _, s := range ss {
			if err := s(ctx, srv, log); err != nil {
				return err
			}
		}
		return nil
	}
}

// listTools lists the server's tools.
func listTools(ctx context.Context, srv mcp.Server, log *slog.Logger) error {
	res, err := srv.ListTools(ctx, &mcp.PaginatedRequestParams{})
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	for _, t := range res.Tools {
		log.Debug("tool", "name", t.Name)
	}
	return nil
}

// callTool returns steps that call tool name with args and require a
// result that is not an error.
func callTool(name string, args map[string]any) steps {
	return func(ctx context.Context, srv mcp.Server, log *slog.Logger) error {
		params := &mcp.CallToolRequestParams{Name: name}
		if err := params.SetArguments(args); err != nil {
			return fmt.Errorf("tools/call %s: %w", name, err)
		}
		res, err := srv.CallTool(ctx, params)
		if err != nil {
			return fmt.Errorf("tools/call %s: %w", name, err)
		}
		out, err := json.Marshal(res)
		if err != nil {
			return fmt.Errorf("tools/call %s: encoding the result: %w", name, err)
		}
		log.Debug("tool result", "tool", name, "result", jsonrpc.Truncate(string(out)))
		if r := res.CallToolResult; r != nil && r.IsError {
			return errors.New("tools/call " + name + ": the tool reported an error: " + jsonrpc.Truncate(string(out)))
		}
		return nil
	}
}
