package rpcotel_test

import (
	"context"
	"encoding/json"
	"net"
	"testing"

	"github.com/rpcgen/rpcgen/contrib/otel/rpcotel"
	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// toolServer is an MCP server whose only tool call sends the _meta it
// received, encoded, on metas.
type toolServer struct {
	mcp.UnimplementedServer
	metas chan string
}

func (s *toolServer) CallTool(_ context.Context, params *mcp.CallToolRequestParams) (*mcp.CallToolResponse, error) {
	meta, err := json.Marshal(params.Meta)
	if err != nil {
		return nil, err
	}
	s.metas <- string(meta)
	var res mcp.CallToolResponse
	err = json.Unmarshal([]byte(`{"content":[{"type":"text","text":"done"}]}`), &res)
	return &res, err
}

// An MCP tools/call whose _meta already carries a progress token keeps it
// and gains the trace context of the client's span, and the server's span
// continues that trace: the generated package needs nothing but the
// middleware in its Connect options.
func TestMCPToolCallMeta(t *testing.T) {
	tel := newTelemetry(t)
	a, b := net.Pipe()
	impl := &toolServer{metas: make(chan string, 1)}
	ids := make(chan string, 1)
	serverConn, _ := mcp.ConnectServer(b, impl, jsonrpc.Options{
		Middleware: []jsonrpc.Middleware{handled(ids), rpcotel.ServerMiddleware(tel.options()...)},
	})
	clientConn, server := mcp.ConnectClient(a, nil, jsonrpc.Options{
		Outgoing: []jsonrpc.OutgoingMiddleware{rpcotel.ClientMiddleware(tel.options()...)},
	})
	t.Cleanup(func() {
		_ = clientConn.Close()
		_ = serverConn.Close()
		_ = clientConn.Wait()
		_ = serverConn.Wait()
	})

	var params mcp.CallToolRequestParams
	if err := json.Unmarshal([]byte(`{"name":"echo","arguments":{"text":"hi"},"_meta":{"progressToken":"tok-1"}}`), &params); err != nil {
		t.Fatal(err)
	}
	if _, err := server.CallTool(bounded(t), &params); err != nil {
		t.Fatal(err)
	}
	meta := receive(t, impl.metas, "the tool call")
	wire := receive(t, ids, "the server's span")

	clientSpan, serverSpan := tel.span(t, "client", "tools/call"), tel.span(t, "server", "tools/call")
	if want := `{"progressToken":"tok-1","traceparent":"` + traceparent(clientSpan.SpanContext) + `"}`; meta != want {
		t.Errorf("the server received _meta\n%s, want\n%s", meta, want)
	}
	if params.Meta == nil {
		t.Fatal("the caller's params lost their _meta")
	}
	if own, _ := json.Marshal(params.Meta); string(own) != `{"progressToken":"tok-1"}` {
		t.Errorf("the caller's own params changed: _meta %s", own)
	}
	if serverSpan.Parent.SpanID() != clientSpan.SpanContext.SpanID() || serverSpan.SpanContext.TraceID() != clientSpan.SpanContext.TraceID() {
		t.Errorf("the server span's parent is %v, want the client span %v", serverSpan.Parent, clientSpan.SpanContext)
	}
	for _, s := range [][2]string{{"client", attrs(clientSpan.Attributes)["rpc.jsonrpc.request_id"].AsString()}, {"server", attrs(serverSpan.Attributes)["rpc.jsonrpc.request_id"].AsString()}} {
		if s[1] != wire {
			t.Errorf("%s span rpc.jsonrpc.request_id %q, want the wire id %s", s[0], s[1], wire)
		}
	}
}
