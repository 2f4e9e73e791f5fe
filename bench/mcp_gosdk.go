package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The official Go SDK's side of the MCP rows: one sdk.Server with the
// catalogue's tools registered through the raw Server.AddTool (no
// validation against the schemas, as rpcgen's server does none), served on
// an IOTransport per session over the pipes or behind its
// StreamableHTTPHandler; one sdk.Client connecting a session to it, over
// HTTP with no standalone GET stream (DisableStandaloneSSE), as rpcgen's
// and mcp-go's clients open none: no operation needs a message outside a
// request.

// mcpSDKServer returns the SDK server offering the catalogue.
func mcpSDKServer() *sdk.Server {
	server := sdk.NewServer(&sdk.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	for _, d := range mcpCatalog() {
		schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}, Required: d.Required}
		for _, p := range d.Props {
			ps := &jsonschema.Schema{Type: p.Type, Description: p.Description}
			for _, v := range p.Enum {
				ps.Enum = append(ps.Enum, v)
			}
			schema.Properties[p.Name] = ps
		}
		handler := mcpSDKOther
		switch d.Name {
		case mcpToolSearch:
			handler = mcpSDKSearch
		case mcpToolProgress:
			handler = mcpSDKProgress
		}
		server.AddTool(&sdk.Tool{Name: d.Name, Description: d.Description, InputSchema: schema}, handler)
	}
	return server
}

func mcpSDKOther(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "not measured"}}}, nil
}

// mcpSDKSearch answers search with structured content and its JSON text.
func mcpSDKSearch(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var a mcpSearchArgs
	if err := json.Unmarshal(req.Params.Arguments, &a); err != nil || a.Limit < 1 || a.Limit > 20 {
		return nil, fmt.Errorf("search needs a query and a limit from 1 to 20")
	}
	res := mcpSearch(a)
	text, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("encoding the result: %w", err)
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(text)}}, StructuredContent: res}, nil
}

// mcpSDKProgress sends steps notifications/progress to the caller, then
// answers.
func mcpSDKProgress(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var a struct {
		Steps int `json:"steps"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
		return nil, fmt.Errorf("progress needs an integer steps")
	}
	if token := req.Params.GetProgressToken(); token != nil {
		for i := 1; i <= a.Steps; i++ {
			if err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: float64(a.Steps)}); err != nil {
				return nil, fmt.Errorf("sending progress: %w", err)
			}
		}
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}}}, nil
}

// mcpSDKEndpoint is the SDK's server over stdio or HTTP, and the client
// that connects to it.
type mcpSDKEndpoint struct {
	server *sdk.Server
	client *sdk.Client
	slot   mcpWaiterSlot
	// HTTP only.
	srv *httptest.Server
	hc  *http.Client
	tr  *http.Transport
}

func serveMCPGoSDK(_ context.Context, transport string) (mcpEndpoint, error) {
	e := &mcpSDKEndpoint{server: mcpSDKServer()}
	e.client = sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1.0.0"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			e.slot.tick(mcpTokenOf(req.Params.ProgressToken), req.Params.Progress)
		}})
	if transport == "http" {
		mux := http.NewServeMux()
		mux.Handle("/mcp", sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return e.server }, nil))
		e.srv = httptest.NewServer(mux)
		e.hc, e.tr = newHTTPClient()
	}
	return e, nil
}

// mcpTokenOf returns a progress token decoded into an any as an integer,
// or -1.
func mcpTokenOf(token any) int64 {
	switch t := token.(type) {
	case float64:
		return int64(t)
	case int64:
		return t
	case int:
		return int64(t)
	case json.Number:
		n, _ := t.Int64()
		return n
	}
	return -1
}

func (e *mcpSDKEndpoint) Connect(ctx context.Context) (mcpClientSession, error) {
	s := &mcpSDKSession{endpoint: e}
	var t sdk.Transport
	if e.srv == nil {
		client, server, err := osPipes()
		if err != nil {
			return nil, err
		}
		sp, cp := server.(filePair), client.(filePair)
		if s.serverSession, err = e.server.Connect(ctx, &sdk.IOTransport{Reader: sp.r, Writer: sp.w}, nil); err != nil {
			closeAll(client, server)
			return nil, fmt.Errorf("serving: %w", err)
		}
		t = &sdk.IOTransport{Reader: cp.r, Writer: cp.w}
	} else {
		t = &sdk.StreamableClientTransport{Endpoint: e.srv.URL + "/mcp", HTTPClient: e.hc, DisableStandaloneSSE: true}
	}
	cs, err := e.client.Connect(ctx, t, &sdk.ClientSessionOptions{ProtocolVersion: mcpVersion})
	if err != nil {
		if s.serverSession != nil {
			err = errors.Join(err, s.serverSession.Close())
		}
		return nil, fmt.Errorf("connecting: %w", err)
	}
	s.session = cs
	return s, nil
}

func (e *mcpSDKEndpoint) Close() error {
	if e.srv != nil {
		e.srv.CloseClientConnections()
		e.srv.Close()
		e.tr.CloseIdleConnections()
	}
	return nil
}

// mcpSDKSession is the SDK's client session.
type mcpSDKSession struct {
	endpoint      *mcpSDKEndpoint
	session       *sdk.ClientSession
	serverSession *sdk.ServerSession // stdio only
}

// mcpSDKToolList is the SDK's tools/list result.
type mcpSDKToolList struct{ r *sdk.ListToolsResult }

func (l mcpSDKToolList) Len() int { return len(l.r.Tools) }

func (l mcpSDKToolList) Canon() ([]mcpCanonTool, error) {
	return mcpCanonOf(l.r.Tools, func(t *sdk.Tool) (string, string, any) { return t.Name, t.Description, t.InputSchema })
}

func (s *mcpSDKSession) ListTools(ctx context.Context) (mcpToolList, error) {
	r, err := s.session.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	return mcpSDKToolList{r}, nil
}

func (s *mcpSDKSession) Search(ctx context.Context, a mcpSearchArgs) (mcpSearchAnswer, error) {
	res, err := s.session.CallTool(ctx, &sdk.CallToolParams{Name: mcpToolSearch, Arguments: a})
	if err != nil {
		return mcpSearchAnswer{}, err
	}
	text, ok := (*sdk.TextContent)(nil), false
	if len(res.Content) == 1 {
		text, ok = res.Content[0].(*sdk.TextContent)
	}
	if !ok || res.IsError || res.StructuredContent == nil {
		return mcpSearchAnswer{}, fmt.Errorf("search: %w: %+v", errMCPBadAnswer, res)
	}
	// The client decodes structuredContent into an any; a typed value
	// takes one more round through JSON.
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return mcpSearchAnswer{}, fmt.Errorf("encoding the structured content: %w", err)
	}
	ans := mcpSearchAnswer{Text: text.Text}
	if err := json.Unmarshal(raw, &ans.Result); err != nil {
		return mcpSearchAnswer{}, fmt.Errorf("decoding the structured content: %w", err)
	}
	return ans, nil
}

func (s *mcpSDKSession) Progress(ctx context.Context, w *mcpProgressWaiter) error {
	s.endpoint.slot.p.Store(w)
	params := &sdk.CallToolParams{Name: mcpToolProgress, Arguments: map[string]int{"steps": w.steps}}
	params.SetProgressToken(w.token)
	res, err := s.session.CallTool(ctx, params)
	if err != nil {
		return err
	}
	if len(res.Content) != 1 || res.IsError {
		return fmt.Errorf("progress: %w: %+v", errMCPBadAnswer, res)
	}
	if t, ok := res.Content[0].(*sdk.TextContent); !ok || t.Text != "done" {
		return fmt.Errorf("progress: %w: %+v", errMCPBadAnswer, res)
	}
	return w.wait(ctx)
}

func (s *mcpSDKSession) Close() error {
	err := s.session.Close()
	if s.serverSession != nil {
		err = errors.Join(err, ignoreClosed(s.serverSession.Wait()))
	}
	return err
}
