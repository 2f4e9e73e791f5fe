package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/streamhttp"
)

// The MCP rows: a tools/call round trip over Streamable HTTP, on a loopback
// httptest server, with a server and a client of the same implementation:
// rpcgen's generated mcp package on runtime/streamhttp, and the official
// MCP Go SDK (github.com/modelcontextprotocol/go-sdk) on its
// StreamableHTTPHandler and StreamableClientTransport. Both use their
// server defaults, speak revision 2025-11-25, and call the tool add
// {a, b}, which answers with one text block holding the sum. Neither
// client opens the standalone GET stream (rpcgen's NoGETStream, the SDK's
// DisableStandaloneSSE): no call needs a message outside a request. Both
// clients use an http.Transport keeping up to 64 idle connections, so
// that 64 callers do not open a connection per call.

// mcpSession is an MCP client connected to an MCP server of the same
// implementation over HTTP. Its methods are safe for concurrent use.
type mcpSession interface {
	// Add calls the tool add with a and b and returns the sum it reports.
	Add(ctx context.Context, a, b int64) (int64, error)
	// Close ends the session and the server and waits for their
	// goroutines.
	Close() error
}

// mcpImpl is one MCP implementation under test.
type mcpImpl struct {
	name  string
	start func(ctx context.Context) (mcpSession, error)
}

// mcpImpls are the MCP implementations, in benchmark order.
var mcpImpls = []mcpImpl{
	{name: "rpcgen", start: startMCPRPCGen},
	{name: "gosdk", start: startMCPGoSDK},
}

// mcpVersion is the revision both sides speak.
const mcpVersion = "2025-11-25"

// newHTTPClient returns a client whose transport keeps enough idle
// connections for every caller.
func newHTTPClient() (*http.Client, *http.Transport) {
	tr := &http.Transport{MaxIdleConns: 128, MaxIdleConnsPerHost: 64}
	return &http.Client{Transport: tr}, tr
}

// sumText parses the text of a tool result holding a sum.
func sumText(text string) (int64, error) {
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("the tool answered %q: %w", text, err)
	}
	return n, nil
}

// mcpAddArgs are the arguments of the add tool.
type mcpAddArgs struct {
	A int64 `json:"a"`
	B int64 `json:"b"`
}

// mcpRPCGenServer implements the generated mcp.Server: initialize and the
// add tool.
type mcpRPCGenServer struct {
	mcp.UnimplementedServer
}

func (mcpRPCGenServer) Initialize(_ context.Context, p *mcp.InitializeRequestParams) (*mcp.InitializeResult, error) {
	return &mcp.InitializeResult{ProtocolVersion: mcpVersion, Capabilities: mcp.ServerCapabilities{Tools: &mcp.ListChangedCapability{}},
		ServerInfo: mcp.Implementation{Name: "bench", Version: "1.0.0"}}, nil
}

func (mcpRPCGenServer) Initialized(context.Context, *mcp.NotificationParams) error { return nil }

func (mcpRPCGenServer) CallTool(_ context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResponse, error) {
	if p.Name != "add" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unknown tool: "+jsonrpc.Truncate(p.Name), nil)
	}
	var args struct{ A, B *int64 }
	if err := p.DecodeArguments(&args); err != nil || args.A == nil || args.B == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "add needs integers a and b", nil)
	}
	text := strconv.FormatInt(*args.A+*args.B, 10)
	resp := mcp.NewCallToolResponse(mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.NewContentBlock(mcp.TextContent{Text: text})}})
	return &resp, nil
}

// mcpRPCGen is rpcgen's client and server over one HTTP session.
type mcpRPCGen struct {
	srv      *httptest.Server
	handler  *streamhttp.Handler
	tr       *http.Transport
	conn     *jsonrpc.Conn
	remote   mcp.Server
	sessions sync.WaitGroup
}

func startMCPRPCGen(ctx context.Context) (mcpSession, error) {
	s := &mcpRPCGen{}
	s.handler = streamhttp.NewHandler(mcp.HTTP, func(sess *streamhttp.Session) {
		conn, _ := mcp.ConnectServer(sess, mcpRPCGenServer{}, jsonrpc.Options{})
		s.sessions.Go(func() { _ = conn.Wait() })
	}, streamhttp.ServerOptions{})
	mux := http.NewServeMux()
	mux.Handle(mcp.HTTP.Path, s.handler)
	s.srv = httptest.NewServer(mux)
	client, tr := newHTTPClient()
	s.tr = tr
	stream, err := streamhttp.Dial(ctx, s.srv.URL+mcp.HTTP.Path, mcp.HTTP, streamhttp.ClientOptions{HTTPClient: client, NoGETStream: true})
	if err != nil {
		s.shutdown()
		return nil, fmt.Errorf("dialing: %w", err)
	}
	s.conn, s.remote = mcp.ConnectClient(stream, mcp.UnimplementedClient{}, jsonrpc.Options{})
	if _, err := s.remote.Initialize(ctx, &mcp.InitializeRequestParams{ProtocolVersion: mcpVersion,
		ClientInfo: mcp.Implementation{Name: "bench", Version: "1.0.0"}}); err != nil {
		return nil, errors.Join(fmt.Errorf("initialize: %w", err), s.Close())
	}
	if err := s.remote.Initialized(ctx, &mcp.NotificationParams{}); err != nil {
		return nil, errors.Join(fmt.Errorf("notifications/initialized: %w", err), s.Close())
	}
	return s, nil
}

func (s *mcpRPCGen) Add(ctx context.Context, a, b int64) (int64, error) {
	args := strconv.AppendInt(append(strconv.AppendInt([]byte(`{"a":`), a, 10), `,"b":`...), b, 10)
	resp, err := s.remote.CallTool(ctx, &mcp.CallToolRequestParams{Name: "add", Arguments: append(args, '}')})
	if err != nil {
		return 0, err
	}
	if r := resp.CallToolResult; r != nil && len(r.Content) == 1 && r.Content[0].Text != nil {
		return sumText(r.Content[0].Text.Text)
	}
	return 0, fmt.Errorf("unexpected tools/call answer %+v", resp)
}

func (s *mcpRPCGen) Close() error {
	err := s.conn.Close()
	return errors.Join(err, s.shutdown())
}

// shutdown stops the server side and waits for its sessions.
func (s *mcpRPCGen) shutdown() error {
	err := s.handler.Close()
	s.srv.CloseClientConnections()
	s.srv.Close()
	s.tr.CloseIdleConnections()
	s.sessions.Wait()
	return err
}

// mcpGoSDK is the official Go SDK's client and server over one HTTP
// session.
type mcpGoSDK struct {
	srv     *httptest.Server
	tr      *http.Transport
	session *sdk.ClientSession
}

func startMCPGoSDK(ctx context.Context) (mcpSession, error) {
	server := sdk.NewServer(&sdk.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	server.AddTool(&sdk.Tool{Name: "add", InputSchema: map[string]any{"type": "object",
		"properties": map[string]any{"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": "integer"}}}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in mcpAddArgs
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strconv.FormatInt(in.A+in.B, 10)}}}, nil
		})
	s := &mcpGoSDK{}
	mux := http.NewServeMux()
	mux.Handle("/mcp", sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	s.srv = httptest.NewServer(mux)
	client, tr := newHTTPClient()
	s.tr = tr
	c := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	session, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.srv.URL + "/mcp", HTTPClient: client, DisableStandaloneSSE: true},
		&sdk.ClientSessionOptions{ProtocolVersion: mcpVersion})
	if err != nil {
		s.shutdown()
		return nil, fmt.Errorf("connecting: %w", err)
	}
	s.session = session
	return s, nil
}

func (s *mcpGoSDK) Add(ctx context.Context, a, b int64) (int64, error) {
	res, err := s.session.CallTool(ctx, &sdk.CallToolParams{Name: "add", Arguments: mcpAddArgs{A: a, B: b}})
	if err != nil {
		return 0, err
	}
	if len(res.Content) == 1 {
		if t, ok := res.Content[0].(*sdk.TextContent); ok && !res.IsError {
			return sumText(t.Text)
		}
	}
	return 0, fmt.Errorf("unexpected tools/call answer %+v", res)
}

func (s *mcpGoSDK) Close() error {
	err := s.session.Close()
	s.shutdown()
	return err
}

// shutdown stops the server.
func (s *mcpGoSDK) shutdown() {
	s.srv.CloseClientConnections()
	s.srv.Close()
	s.tr.CloseIdleConnections()
}
