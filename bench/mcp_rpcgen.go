package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/streamhttp"
)

// rpcgen's side of the MCP rows: the generated mcp package, on
// jsonrpc.Conn over the pipes, or on runtime/streamhttp. Over HTTP the
// client opens no GET stream (ClientOptions.NoGETStream), as the SDK's
// client (DisableStandaloneSSE) and mcp-go's (its default) do not: no
// operation needs a message outside a request, and progress comes on the
// call's own event stream.

// mcpGenTools converts the catalogue to the generated types.
func mcpGenTools() ([]mcp.Tool, error) {
	var tools []mcp.Tool
	for _, d := range mcpCatalog() {
		props := make(map[string]mcp.PropertySchema, len(d.Props))
		for _, p := range d.Props {
			var ps mcp.PropertySchema
			for _, kv := range []struct {
				name  string
				value any
			}{{"type", p.Type}, {"description", p.Description}, {"enum", p.Enum}} {
				if kv.name == "enum" && p.Enum == nil {
					continue
				}
				raw, err := json.Marshal(kv.value)
				if err != nil {
					return nil, fmt.Errorf("tool %s: %w", d.Name, err)
				}
				ps.Extra = append(ps.Extra, jsonrpc.Member[json.RawMessage]{Name: kv.name, Value: raw})
			}
			props[p.Name] = ps
		}
		tools = append(tools, mcp.Tool{Name: d.Name, Description: d.Description,
			InputSchema: mcp.ToolSchema{Type: "object", Properties: props, Required: d.Required}})
	}
	return tools, nil
}

// mcpGenServer implements the generated mcp.Server: initialize and the
// catalogue's tools.
type mcpGenServer struct {
	mcp.UnimplementedServer
	tools []mcp.Tool
}

func (s *mcpGenServer) Initialize(context.Context, *mcp.InitializeRequestParams) (*mcp.InitializeResult, error) {
	return &mcp.InitializeResult{ProtocolVersion: mcpVersion, Capabilities: mcp.ServerCapabilities{Tools: &mcp.ListChangedCapability{}},
		ServerInfo: mcp.Implementation{Name: "bench", Version: "1.0.0"}}, nil
}

func (s *mcpGenServer) Initialized(context.Context, *mcp.NotificationParams) error { return nil }

func (s *mcpGenServer) ListTools(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	return &mcp.ListToolsResult{Tools: s.tools}, nil
}

func (s *mcpGenServer) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResponse, error) {
	var (
		r   mcp.CallToolResult
		err error
	)
	switch p.Name {
	case mcpToolSearch:
		r, err = mcpGenSearch(p)
	case mcpToolProgress:
		r, err = mcpGenProgress(ctx, p)
	default:
		r = mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.NewContentBlock(mcp.TextContent{Text: "not measured"})}}
	}
	if err != nil {
		return nil, err
	}
	resp := mcp.NewCallToolResponse(r)
	return &resp, nil
}

// mcpGenSearch answers search with structured content and its JSON text.
// The arguments and the structured content are raw JSON objects in the
// generated types: the arguments decode straight into mcpSearchArgs, and
// the result is encoded for the text and again for the structured
// content, as the SDK rows do.
func mcpGenSearch(p *mcp.CallToolRequestParams) (mcp.CallToolResult, error) {
	var a mcpSearchArgs
	if err := p.DecodeArguments(&a); err != nil {
		return mcp.CallToolResult{}, err
	}
	if a.Limit < 1 || a.Limit > 20 {
		return mcp.CallToolResult{}, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "search needs a query and a limit from 1 to 20", nil)
	}
	res := mcpSearch(a)
	text, err := json.Marshal(res)
	if err != nil {
		return mcp.CallToolResult{}, fmt.Errorf("encoding the result: %w", err)
	}
	r := mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.NewContentBlock(mcp.TextContent{Text: string(text)})}}
	if err := r.SetStructuredContent(res); err != nil {
		return mcp.CallToolResult{}, err
	}
	return r, nil
}

// mcpGenProgress sends steps notifications/progress to the caller, then
// answers.
func mcpGenProgress(ctx context.Context, p *mcp.CallToolRequestParams) (mcp.CallToolResult, error) {
	var args struct {
		Steps int `json:"steps"`
	}
	if err := p.DecodeArguments(&args); err != nil {
		return mcp.CallToolResult{}, err
	}
	steps := args.Steps
	if p.Meta != nil && (p.Meta.ProgressToken.String != nil || p.Meta.ProgressToken.Integer != nil) {
		client := mcp.NewClientRemote(jsonrpc.ConnFromContext(ctx))
		total := float64(steps)
		for i := 1; i <= steps; i++ {
			if err := client.Progress(ctx, &mcp.ProgressNotificationParams{ProgressToken: p.Meta.ProgressToken, Progress: float64(i), Total: &total}); err != nil {
				return mcp.CallToolResult{}, fmt.Errorf("sending progress: %w", err)
			}
		}
	}
	return mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.NewContentBlock(mcp.TextContent{Text: "done"})}}, nil
}

// mcpGenClient implements the generated mcp.Client: it counts progress.
type mcpGenClient struct {
	mcp.UnimplementedClient
	slot mcpWaiterSlot
}

func (c *mcpGenClient) Progress(_ context.Context, p *mcp.ProgressNotificationParams) error {
	var token int64 = -1
	if p.ProgressToken.Integer != nil {
		token = *p.ProgressToken.Integer
	}
	c.slot.tick(token, p.Progress)
	return nil
}

// mcpGenEndpoint is rpcgen's server over stdio or HTTP.
type mcpGenEndpoint struct {
	server *mcpGenServer
	// HTTP only.
	srv      *httptest.Server
	handler  *streamhttp.Handler
	client   *http.Client
	tr       *http.Transport
	sessions sync.WaitGroup
}

func serveMCPRPCGen(_ context.Context, transport string) (mcpEndpoint, error) {
	tools, err := mcpGenTools()
	if err != nil {
		return nil, err
	}
	e := &mcpGenEndpoint{server: &mcpGenServer{tools: tools}}
	if transport == "stdio" {
		return e, nil
	}
	e.handler = streamhttp.NewHandler(mcp.HTTP, func(sess *streamhttp.Session) {
		conn, _ := mcp.ConnectServer(sess, e.server, jsonrpc.Options{})
		e.sessions.Go(func() { _ = conn.Wait() })
	}, streamhttp.ServerOptions{})
	mux := http.NewServeMux()
	mux.Handle(mcp.HTTP.Path, e.handler)
	e.srv = httptest.NewServer(mux)
	e.client, e.tr = newHTTPClient()
	return e, nil
}

func (e *mcpGenEndpoint) Connect(ctx context.Context) (mcpClientSession, error) {
	s := &mcpGenSession{handler: &mcpGenClient{}}
	var stream io.ReadWriteCloser
	if e.srv == nil {
		client, server, err := osPipes()
		if err != nil {
			return nil, err
		}
		s.serverConn, _ = mcp.ConnectServer(server, e.server, jsonrpc.Options{})
		stream = client
	} else {
		cs, err := streamhttp.Dial(ctx, e.srv.URL+mcp.HTTP.Path, mcp.HTTP, streamhttp.ClientOptions{HTTPClient: e.client, NoGETStream: true})
		if err != nil {
			return nil, fmt.Errorf("dialing: %w", err)
		}
		stream = cs
	}
	s.conn, s.remote = mcp.ConnectClient(stream, s.handler, jsonrpc.Options{})
	if _, err := s.remote.Initialize(ctx, &mcp.InitializeRequestParams{ProtocolVersion: mcpVersion,
		ClientInfo: mcp.Implementation{Name: "bench", Version: "1.0.0"}}); err != nil {
		return nil, errors.Join(fmt.Errorf("initialize: %w", err), s.Close())
	}
	if err := s.remote.Initialized(ctx, &mcp.NotificationParams{}); err != nil {
		return nil, errors.Join(fmt.Errorf("notifications/initialized: %w", err), s.Close())
	}
	return s, nil
}

func (e *mcpGenEndpoint) Close() error {
	if e.srv == nil {
		return nil
	}
	err := e.handler.Close()
	e.srv.CloseClientConnections()
	e.srv.Close()
	e.tr.CloseIdleConnections()
	e.sessions.Wait()
	return err
}

// mcpGenSession is rpcgen's client session.
type mcpGenSession struct {
	conn       *jsonrpc.Conn
	serverConn *jsonrpc.Conn // stdio only
	remote     mcp.Server
	handler    *mcpGenClient
}

// mcpGenToolList is the generated tools/list result.
type mcpGenToolList struct{ r *mcp.ListToolsResult }

func (l mcpGenToolList) Len() int { return len(l.r.Tools) }

func (l mcpGenToolList) Canon() ([]mcpCanonTool, error) {
	return mcpCanonOf(l.r.Tools, func(t mcp.Tool) (string, string, any) { return t.Name, t.Description, t.InputSchema })
}

func (s *mcpGenSession) ListTools(ctx context.Context) (mcpToolList, error) {
	r, err := s.remote.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	return mcpGenToolList{r}, nil
}

func (s *mcpGenSession) Search(ctx context.Context, a mcpSearchArgs) (mcpSearchAnswer, error) {
	p := &mcp.CallToolRequestParams{Name: mcpToolSearch}
	if err := p.SetArguments(a); err != nil {
		return mcpSearchAnswer{}, err
	}
	resp, err := s.remote.CallTool(ctx, p)
	if err != nil {
		return mcpSearchAnswer{}, err
	}
	r := resp.CallToolResult
	if r == nil || r.IsError || len(r.Content) != 1 || r.Content[0].Text == nil {
		return mcpSearchAnswer{}, fmt.Errorf("search: %w: %+v", errMCPBadAnswer, resp)
	}
	var ans mcpSearchAnswer
	if err := r.DecodeStructuredContent(&ans.Result); err != nil {
		return mcpSearchAnswer{}, fmt.Errorf("decoding the structured content: %w", err)
	}
	ans.Text = r.Content[0].Text.Text
	return ans, nil
}

func (s *mcpGenSession) Progress(ctx context.Context, w *mcpProgressWaiter) error {
	s.handler.slot.p.Store(w)
	p := &mcp.CallToolRequestParams{Name: mcpToolProgress, Meta: &mcp.RequestMeta{ProgressToken: mcp.NewProgressToken(w.token)}}
	if err := p.SetArguments(struct {
		Steps int `json:"steps"`
	}{w.steps}); err != nil {
		return err
	}
	resp, err := s.remote.CallTool(ctx, p)
	if err != nil {
		return err
	}
	if r := resp.CallToolResult; r == nil || len(r.Content) != 1 || r.Content[0].Text == nil || r.Content[0].Text.Text != "done" {
		return fmt.Errorf("progress: %w: %+v", errMCPBadAnswer, resp)
	}
	return w.wait(ctx)
}

func (s *mcpGenSession) Close() error {
	err := s.conn.Close()
	if s.serverConn != nil {
		err = errors.Join(err, ignoreClosed(s.serverConn.Wait()))
	}
	return err
}

// ignoreClosed drops the errors that say a connection ended as asked.
func ignoreClosed(err error) error {
	if errors.Is(err, jsonrpc.ErrPeerClosed) || errors.Is(err, jsonrpc.ErrClosed) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}
