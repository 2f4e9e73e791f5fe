package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"runtime"

	mgclient "github.com/mark3labs/mcp-go/client"
	mgtransport "github.com/mark3labs/mcp-go/client/transport"
	mg "github.com/mark3labs/mcp-go/mcp"
	mgserver "github.com/mark3labs/mcp-go/server"
)

// mcp-go's side of the MCP rows: one MCPServer with the catalogue's tools
// (built with mcp.NewTool and its property options; input validation is
// off by default, as in rpcgen), served by a StdioServer per session over
// the pipes or behind its StreamableHTTPServer; a client per session on
// transport.NewIO or its streamable HTTP transport, which by default (no
// WithContinuousListening) opens no standalone GET stream, as the rpcgen
// and SDK clients are set up not to.
//
// mcp-go's stdio server keeps its one session in a package variable, so
// two stdio sessions must not overlap in a process: the rows and tests run
// them one after another.

// mcpGoServer returns the mcp-go server offering the catalogue.
func mcpGoServer() *mgserver.MCPServer {
	server := mgserver.NewMCPServer("bench", "1.0.0", mgserver.WithToolCapabilities(false))
	for _, d := range mcpCatalog() {
		opts := []mg.ToolOption{mg.WithDescription(d.Description)}
		for _, p := range d.Props {
			popts := []mg.PropertyOption{mg.Description(p.Description)}
			for _, r := range d.Required {
				if r == p.Name {
					popts = append(popts, mg.Required())
				}
			}
			if p.Enum != nil {
				popts = append(popts, mg.Enum(p.Enum...))
			}
			switch p.Type {
			case "string":
				opts = append(opts, mg.WithString(p.Name, popts...))
			case "integer":
				opts = append(opts, mg.WithInteger(p.Name, popts...))
			case "boolean":
				opts = append(opts, mg.WithBoolean(p.Name, popts...))
			}
		}
		handler := mcpGoOther
		switch d.Name {
		case mcpToolSearch:
			handler = mcpGoSearch
		case mcpToolProgress:
			handler = mcpGoProgress
		}
		server.AddTool(mg.NewTool(d.Name, opts...), handler)
	}
	return server
}

func mcpGoOther(context.Context, mg.CallToolRequest) (*mg.CallToolResult, error) {
	return mg.NewToolResultText("not measured"), nil
}

// mcpGoSearch answers search with structured content and its JSON text.
func mcpGoSearch(_ context.Context, req mg.CallToolRequest) (*mg.CallToolResult, error) {
	var a mcpSearchArgs
	if err := req.BindArguments(&a); err != nil || a.Limit < 1 || a.Limit > 20 {
		return nil, fmt.Errorf("search needs a query and a limit from 1 to 20")
	}
	res := mcpSearch(a)
	text, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("encoding the result: %w", err)
	}
	return mg.NewToolResultStructured(res, string(text)), nil
}

// mcpGoProgress sends steps notifications/progress to the caller, then
// answers. mcp-go does not wait for room in a session's notification
// queue (100 messages): a full queue fails the send with
// ErrNotificationChannelBlocked, so the tool yields and sends again.
func mcpGoProgress(ctx context.Context, req mg.CallToolRequest) (*mg.CallToolResult, error) {
	var a struct {
		Steps int `json:"steps"`
	}
	if err := req.BindArguments(&a); err != nil {
		return nil, fmt.Errorf("progress needs an integer steps")
	}
	if meta := req.Params.Meta; meta != nil && meta.ProgressToken != nil {
		server := mgserver.ServerFromContext(ctx)
		for i := 1; i <= a.Steps; i++ {
			params := map[string]any{"progressToken": meta.ProgressToken, "progress": i, "total": a.Steps}
			for {
				err := server.SendNotificationToClient(ctx, "notifications/progress", params)
				if err == nil {
					break
				}
				if !errors.Is(err, mgserver.ErrNotificationChannelBlocked) {
					return nil, fmt.Errorf("sending progress: %w", err)
				}
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				runtime.Gosched()
			}
		}
	}
	return mg.NewToolResultText("done"), nil
}

// mcpGoEndpoint is mcp-go's server over stdio or HTTP.
type mcpGoEndpoint struct {
	server *mgserver.MCPServer
	// HTTP only.
	srv *httptest.Server
	hc  *http.Client
	tr  *http.Transport
}

func serveMCPGo(_ context.Context, transport string) (mcpEndpoint, error) {
	e := &mcpGoEndpoint{server: mcpGoServer()}
	if transport == "http" {
		mux := http.NewServeMux()
		mux.Handle("/mcp", mgserver.NewStreamableHTTPServer(e.server))
		e.srv = httptest.NewServer(mux)
		e.hc, e.tr = newHTTPClient()
	}
	return e, nil
}

func (e *mcpGoEndpoint) Connect(ctx context.Context) (mcpClientSession, error) {
	s := &mcpGoSession{}
	var t mgtransport.Interface
	if e.srv == nil {
		client, server, err := osPipes()
		if err != nil {
			return nil, err
		}
		sp, cp := server.(filePair), client.(filePair)
		stdio := mgserver.NewStdioServer(e.server)
		stdio.SetErrorLogger(log.New(io.Discard, "", 0))
		s.served = make(chan error, 1)
		s.serverEnd, s.clientIn = sp, cp.r
		go func() { s.served <- stdio.Listen(context.Background(), sp.r, sp.w) }()
		t = mgtransport.NewIO(cp.r, cp.w, nil)
	} else {
		var err error
		if t, err = mgtransport.NewStreamableHTTP(e.srv.URL+"/mcp", mgtransport.WithHTTPBasicClient(e.hc)); err != nil {
			return nil, fmt.Errorf("connecting: %w", err)
		}
	}
	s.client = mgclient.NewClient(t)
	s.client.OnNotification(func(n mg.JSONRPCNotification) {
		if n.Method != "notifications/progress" {
			return
		}
		f := n.Params.AdditionalFields
		progress, _ := f["progress"].(float64)
		s.slot.tick(mcpTokenOf(f["progressToken"]), progress)
	})
	if err := s.client.Start(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("starting: %w", err), s.Close())
	}
	if _, err := s.client.Initialize(ctx, mg.InitializeRequest{Params: mg.InitializeParams{ProtocolVersion: mcpVersion,
		ClientInfo: mg.Implementation{Name: "bench", Version: "1.0.0"}}}); err != nil {
		return nil, errors.Join(fmt.Errorf("initialize: %w", err), s.Close())
	}
	return s, nil
}

func (e *mcpGoEndpoint) Close() error {
	if e.srv != nil {
		e.srv.CloseClientConnections()
		e.srv.Close()
		e.tr.CloseIdleConnections()
	}
	return nil
}

// mcpGoSession is mcp-go's client session.
type mcpGoSession struct {
	client *mgclient.Client
	slot   mcpWaiterSlot
	// stdio only.
	served    chan error
	serverEnd filePair
	clientIn  io.Closer // the pipe the client reads, which it leaves open
}

// mcpGoToolList is mcp-go's tools/list result.
type mcpGoToolList struct{ r *mg.ListToolsResult }

func (l mcpGoToolList) Len() int { return len(l.r.Tools) }

func (l mcpGoToolList) Canon() ([]mcpCanonTool, error) {
	return mcpCanonOf(l.r.Tools, func(t mg.Tool) (string, string, any) {
		if t.RawInputSchema != nil {
			return t.Name, t.Description, t.RawInputSchema
		}
		return t.Name, t.Description, t.InputSchema
	})
}

func (s *mcpGoSession) ListTools(ctx context.Context) (mcpToolList, error) {
	r, err := s.client.ListTools(ctx, mg.ListToolsRequest{})
	if err != nil {
		return nil, err
	}
	return mcpGoToolList{r}, nil
}

func (s *mcpGoSession) Search(ctx context.Context, a mcpSearchArgs) (mcpSearchAnswer, error) {
	req := mg.CallToolRequest{}
	req.Params.Name = mcpToolSearch
	req.Params.Arguments = a
	res, err := s.client.CallTool(ctx, req)
	if err != nil {
		return mcpSearchAnswer{}, err
	}
	var text *mg.TextContent
	if len(res.Content) == 1 {
		text, _ = mg.AsTextContent(res.Content[0])
	}
	if text == nil || res.IsError || res.StructuredContent == nil {
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

func (s *mcpGoSession) Progress(ctx context.Context, w *mcpProgressWaiter) error {
	s.slot.p.Store(w)
	req := mg.CallToolRequest{}
	req.Params.Name = mcpToolProgress
	req.Params.Arguments = map[string]int{"steps": w.steps}
	req.Params.Meta = &mg.Meta{ProgressToken: w.token}
	res, err := s.client.CallTool(ctx, req)
	if err != nil {
		return err
	}
	var text *mg.TextContent
	if len(res.Content) == 1 {
		text, _ = mg.AsTextContent(res.Content[0])
	}
	if text == nil || res.IsError || text.Text != "done" {
		return fmt.Errorf("progress: %w: %+v", errMCPBadAnswer, res)
	}
	return w.wait(ctx)
}

func (s *mcpGoSession) Close() error {
	err := s.client.Close()
	if s.served != nil {
		// Closing the client's pipe ends the server's input; once it has
		// stopped, its output is closed so the client's reader ends too.
		err = errors.Join(err, <-s.served, s.serverEnd.Close(), s.clientIn.Close())
	}
	return err
}
