package mcp_test

import (
	"context"
	"encoding/json"
	"net"
	"testing"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// forecastArgs and forecast are a tool's own input and output types.
type forecastArgs struct {
	City string `json:"city"`
	Days int    `json:"days"`
}

type forecast struct {
	City  string `json:"city"`
	Highs []int  `json:"highs"`
}

// forecaster decodes its tool's arguments into forecastArgs and answers
// with a forecast as structured content.
type forecaster struct {
	mcp.UnimplementedServer
	calls chan forecastArgs
}

func (f *forecaster) Initialize(context.Context, *mcp.InitializeRequestParams) (*mcp.InitializeResult, error) {
	return &mcp.InitializeResult{ProtocolVersion: "2025-11-25", ServerInfo: mcp.Implementation{Name: "s", Version: "1"},
		Capabilities: mcp.ServerCapabilities{Tools: &mcp.ListChangedCapability{}}}, nil
}

func (f *forecaster) CallTool(_ context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResponse, error) {
	var a forecastArgs
	if err := p.DecodeArguments(&a); err != nil {
		return nil, err
	}
	f.calls <- a
	r := mcp.CallToolResult{Content: []mcp.ContentBlock{}}
	highs := make([]int, a.Days)
	for i := range highs {
		highs[i] = 20 + i
	}
	if err := r.SetStructuredContent(forecast{City: a.City, Highs: highs}); err != nil {
		return nil, err
	}
	resp := mcp.NewCallToolResponse(r)
	return &resp, nil
}

// TestRawArgumentsOnTheWire shows a tool's arguments decoded straight into
// the application's type and its structured content sent as that type
// encodes, and that wrong arguments get -32602 naming the member at fault:
// from the generated decoder when they are not an object, from
// DecodeArguments when a member does not fit.
func TestRawArgumentsOnTheWire(t *testing.T) {
	f := &forecaster{calls: make(chan forecastArgs, 1)}
	p := wireConn(t, func(c net.Conn) *jsonrpc.Conn {
		conn, _ := mcp.ConnectServer(c, f, jsonrpc.Options{})
		return conn
	})
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if m := p.receive(t); m.Error != nil {
		t.Fatalf("initialize answered %v", m.Error)
	}
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"forecast","arguments":{ "city" : "Lisbon", "days": 2 }}}`)
	m := p.receive(t)
	if m.Error != nil {
		t.Fatalf("tools/call answered %v", m.Error)
	}
	if got := <-f.calls; got != (forecastArgs{"Lisbon", 2}) {
		t.Errorf("the tool got %+v", got)
	}
	if want := `{"content":[],"structuredContent":{"city":"Lisbon","highs":[20,21]}}`; string(m.Result) != want {
		t.Errorf("result\n%s\nwant\n%s", m.Result, want)
	}

	p.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"forecast"}}`)
	if m := p.receive(t); m.Error != nil {
		t.Errorf("tools/call without arguments answered %v", m.Error)
	}
	if got := <-f.calls; got != (forecastArgs{}) {
		t.Errorf("without arguments the tool got %+v", got)
	}

	for _, tc := range []struct{ args, field, reason string }{
		{`{"city":"Oslo","days":"two"}`, "arguments.days", "expected integer, got JSON string"},
		{`5`, "arguments", "expected object, got JSON number"},
		{`["Oslo"]`, "arguments", "expected object, got JSON array"},
	} {
		p.send(t, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"forecast","arguments":`+tc.args+`}}`)
		m := p.receive(t)
		if m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("arguments %s: answered %s %v, want -32602", tc.args, m.Result, m.Error)
			continue
		}
		var data struct{ Field, Reason string }
		if err := json.Unmarshal(m.Error.Data, &data); err != nil || data.Field != tc.field || data.Reason != tc.reason {
			t.Errorf("arguments %s: error data %s, want field %q, reason %q", tc.args, m.Error.Data, tc.field, tc.reason)
		}
	}
	select {
	case a := <-f.calls:
		t.Errorf("the tool ran with wrong arguments: %+v", a)
	default:
	}
}

// TestRawArgumentsClientSide shows a client setting arguments from its own
// type and reading structured content into one, and that what cannot be an
// object is refused before anything is sent.
func TestRawArgumentsClientSide(t *testing.T) {
	var p mcp.CallToolRequestParams
	if err := p.SetArguments(forecastArgs{City: "Porto", Days: 1}); err != nil {
		t.Fatal(err)
	}
	if got, want := string(p.Arguments), `{"city":"Porto","days":1}`; got != want {
		t.Errorf("arguments %s, want %s", got, want)
	}
	if err := p.SetArguments([]string{"Porto"}); err == nil || err.Error() != "arguments: []string encodes as a JSON array, not an object" {
		t.Errorf("SetArguments of a list: %v", err)
	}
	if err := p.SetArguments(nil); err != nil || p.Arguments != nil {
		t.Errorf("SetArguments(nil) left %s (%v)", p.Arguments, err)
	}
	b, err := json.Marshal(p)
	if err != nil || string(b) != `{"name":""}` {
		t.Errorf("without arguments the params encode as %s (%v)", b, err)
	}

	var r mcp.CallToolResult
	if err := json.Unmarshal([]byte(`{"content":[],"structuredContent":{"city":"Porto","highs":[18]}}`), &r); err != nil {
		t.Fatal(err)
	}
	var got forecast
	if err := r.DecodeStructuredContent(&got); err != nil || got.City != "Porto" || len(got.Highs) != 1 || got.Highs[0] != 18 {
		t.Errorf("structured content decoded as %+v (%v)", got, err)
	}
}
