package main

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/streamhttp"
)

// dialHTTP connects a client over Streamable HTTP to url and initializes
// the session.
func dialHTTP(t *testing.T, url string, c *testClient) mcp.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	stream, err := streamhttp.Dial(ctx, url, mcp.HTTP, streamhttp.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	conn, server := mcp.ConnectClient(stream, c, jsonrpc.Options{})
	t.Cleanup(func() {
		conn.Close()
		<-conn.Done()
	})
	if _, err := server.Initialize(ctx, &mcp.InitializeRequestParams{
		ProtocolVersion: "2025-11-25", Capabilities: bothCaps, ClientInfo: mcp.Implementation{Name: "test", Version: "1"},
	}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if err := server.Initialized(ctx, nil); err != nil {
		t.Fatalf("notifications/initialized: %v", err)
	}
	return server
}

// Over HTTP each session has its own state, the server calls back into the
// client, and test_reconnection's answer arrives on the resumed stream.
func TestHTTP(t *testing.T) {
	h := newHandler(slog.New(slog.NewTextHandler(io.Discard, nil)))
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		srv.Close()
	})
	quiet, loud := newTestClient(), newTestClient()
	quietServer := dialHTTP(t, srv.URL+mcp.HTTP.Path, quiet)
	loudServer := dialHTTP(t, srv.URL+mcp.HTTP.Path, loud)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, err := quietServer.SetLevel(ctx, &mcp.SetLevelRequestParams{Level: mcp.LoggingLevelEmergency}); err != nil {
		t.Fatal(err)
	}
	// The other session's level does not apply to this one.
	callTool(t, loudServer, "test_tool_with_logging", nil, nil)
	for range 3 {
		recv(t, loud.logs, "log message")
	}
	res := callTool(t, loudServer, "test_sampling", map[string]any{"prompt": "p"}, nil)
	if got := path(res, "content", 0, "text"); got != "LLM response: a sampled answer" {
		t.Errorf("test_sampling over HTTP: %v", res)
	}
	res = callTool(t, loudServer, "test_reconnection", nil, nil)
	if res["isError"] != nil {
		t.Errorf("test_reconnection: %v", res)
	}
}
