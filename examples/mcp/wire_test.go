package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"testing"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// peer is the far end of a connection run by the generated MCP package: the
// test writes raw JSON-RPC messages to it and reads what the package answers.
type peer struct {
	conn net.Conn
	r    *bufio.Reader
}

// wireConn connects a peer to connect, which runs one role of the generated
// package on the other end of a pipe, and closes both when the test ends.
func wireConn(t *testing.T, connect func(net.Conn) *jsonrpc.Conn) *peer {
	t.Helper()
	ours, theirs := net.Pipe()
	c := connect(ours)
	t.Cleanup(func() {
		_ = theirs.Close()
		_ = c.Close()
	})
	return &peer{conn: theirs, r: bufio.NewReader(theirs)}
}

// send writes one message.
func (p *peer) send(t *testing.T, msg string) {
	t.Helper()
	if _, err := p.conn.Write([]byte(msg + "\n")); err != nil {
		t.Fatalf("writing %s: %v", msg, err)
	}
}

// message is the part of a JSON-RPC message these tests look at.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
}

// receive reads one message.
func (p *peer) receive(t *testing.T) message {
	t.Helper()
	line, err := p.r.ReadBytes('\n')
	if err != nil {
		t.Fatalf("reading a message: %v", err)
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("decoding %s: %v", line, err)
	}
	return m
}

// elicitRecorder answers elicitation/create by declining, keeping the params
// and their JSON re-encoding.
type elicitRecorder struct {
	mcp.UnimplementedClient
	got    chan []byte
	params *mcp.ElicitRequestParams
}

func (e *elicitRecorder) Elicit(_ context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResponse, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	e.params = p
	e.got <- b
	return ptr.To(mcp.NewElicitResponse(mcp.ElicitResult{Action: mcp.ElicitActionDecline})), nil
}

// TestElicitationParamsOnTheWire replays elicitation/create requests through
// the generated client: params the official schema accepts decode into the
// union and re-encode to the same JSON; params it rejects are answered with
// -32602 and never reach the handler.
func TestElicitationParamsOnTheWire(t *testing.T) {
	rec := &elicitRecorder{got: make(chan []byte, 1)}
	p := wireConn(t, func(c net.Conn) *jsonrpc.Conn {
		conn, _ := mcp.ConnectClient(c, rec, jsonrpc.Options{})
		return conn
	})
	form := func(props string) string {
		return `{"mode":"form","message":"Your details?","requestedSchema":{"type":"object","properties":` + props + `}}`
	}
	valid := []string{
		form(`{"age":{"type":"integer","minimum":0,"default":30},"colour":{"type":"string","oneOf":[{"const":"r","title":"Red"}],"default":"r"},` +
			`"name":{"type":"string","title":"Name","maxLength":20,"format":"email"},"ok":{"type":"boolean","default":true},` +
			`"size":{"type":"string","enum":["s","m"]},"sizes":{"type":"array","maxItems":2,"items":{"type":"string","enum":["s","m"]},"default":["s"]},` +
			`"tags":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]}},"tier":{"type":"string","enum":["f","p"],"enumNames":["Free","Paid"]}}`),
		`{"message":"Anything?","requestedSchema":{"type":"object","properties":{}}}`,
		`{"mode":"url","message":"Sign in","elicitationId":"e1","url":"https://example.com/login"}`,
	}
	for i, params := range valid {
		p.send(t, `{"jsonrpc":"2.0","id":`+string(rune('1'+i))+`,"method":"elicitation/create","params":`+params+`}`)
		if m := p.receive(t); m.Error != nil {
			t.Fatalf("params %s: answered %v", params, m.Error)
		}
		if got := string(<-rec.got); got != params {
			t.Errorf("params re-encoded as\n%s\nwant\n%s", got, params)
		}
		if i == 0 && rec.params.ElicitRequestFormParams == nil {
			t.Errorf("form params decoded as %+v", rec.params)
		} else if i == 0 {
			checkVariants(t, rec.params.ElicitRequestFormParams.RequestedSchema.Properties)
		}
	}
	if rec.params.ElicitRequestURLParams == nil || rec.params.ElicitRequestURLParams.URL != "https://example.com/login" {
		t.Errorf("URL-mode params decoded as %+v", rec.params)
	}

	// A form that carries url beside requestedSchema is a form: the official
	// schema, like the decoder, lets an object carry members it does not declare.
	p.send(t, `{"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":`+
		`{"mode":"form","message":"Your details?","requestedSchema":{"type":"object","properties":{}},"url":"https://example.com"}}`)
	if m := p.receive(t); m.Error != nil || string(<-rec.got) != form(`{}`) || rec.params.ElicitRequestFormParams == nil {
		t.Errorf("a form carrying url: answered %v, decoded as %+v", m.Error, rec.params)
	}

	// A property may carry members its variant does not declare, as the
	// official schema allows: its type picks the variant, even when another
	// variant would explain more of its members.
	p.send(t, `{"jsonrpc":"2.0","id":10,"method":"elicitation/create","params":`+
		form(`{"b":{"type":"boolean","maximum":3},"n":{"type":"integer","minLength":2},"s":{"type":"string","minimum":1,"maximum":9}}`)+`}`)
	if m := p.receive(t); m.Error != nil {
		t.Fatalf("properties with undeclared members: answered %v", m.Error)
	}
	if got, want := string(<-rec.got), form(`{"b":{"type":"boolean"},"n":{"type":"integer"},"s":{"type":"string"}}`); got != want {
		t.Errorf("properties with undeclared members re-encoded as\n%s\nwant\n%s", got, want)
	}
	if f := rec.params.ElicitRequestFormParams; f == nil {
		t.Errorf("form params decoded as %+v", rec.params)
	} else if props := f.RequestedSchema.Properties; props["b"].BooleanSchema == nil || props["n"].NumberSchema == nil || props["s"].StringSchema == nil {
		t.Errorf("properties decoded as %+v", props)
	}

	const noVariant = `{"reason":"object matches no variant of ElicitRequestParams; an object needs every required member of one variant: ` +
		`ElicitRequestURLParams (\"mode\": \"url\", \"message\", \"elicitationId\", \"url\") or ElicitRequestFormParams (\"message\", \"requestedSchema\")"}`
	invalid := []struct{ params, data string }{
		{form(`{"x":{"type":"array"}}`), `{"field":"requestedSchema.properties.x","reason":"object matches no variant of PrimitiveSchemaDefinition; ` +
			`an object needs every required member of one variant: StringSchema (\"type\": \"string\"), NumberSchema (\"type\": \"number\" or \"integer\"), ` +
			`BooleanSchema (\"type\": \"boolean\"), UntitledSingleSelectEnumSchema (\"type\": \"string\", \"enum\"), ` +
			`TitledSingleSelectEnumSchema (\"type\": \"string\", \"oneOf\"), MultiSelectEnumSchema (\"type\": \"array\", \"items\") ` +
			`or LegacyTitledEnumSchema (\"type\": \"string\", \"enum\")"}`},
		{form(`{"x":{"type":"array","items":{"type":"string"}}}`), `{"field":"requestedSchema.properties.x.items",` +
			`"reason":"object matches no variant of MultiSelectEnumItems; an object needs every required member of one variant: ` +
			`UntitledEnumItems (\"type\": \"string\", \"enum\") or TitledEnumItems (\"anyOf\")"}`},
		{`{"mode":"form","message":"Sign in","elicitationId":"e1","url":"https://example.com/login"}`, noVariant},
		{`{"mode":"url","message":"Sign in","elicitationId":"e1"}`, noVariant},
	}
	for _, c := range invalid {
		p.send(t, `{"jsonrpc":"2.0","id":"bad","method":"elicitation/create","params":`+c.params+`}`)
		m := p.receive(t)
		if m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidParams || string(m.Error.Data) != c.data {
			t.Errorf("params %s: answered %s %v, want -32602 with data %s", c.params, m.Result, m.Error, c.data)
		}
	}
	select {
	case b := <-rec.got:
		t.Errorf("the handler got rejected params %s", b)
	default:
	}
}

// checkVariants checks which variant of PrimitiveSchemaDefinition each
// property of the first valid form was decoded into.
func checkVariants(t *testing.T, props map[string]mcp.PrimitiveSchemaDefinition) {
	t.Helper()
	enum := func(name string) mcp.EnumSchema {
		if e := props[name].EnumSchema; e != nil {
			return *e
		}
		return mcp.EnumSchema{}
	}
	for name, ok := range map[string]bool{
		"age":    props["age"].NumberSchema != nil,
		"name":   props["name"].StringSchema != nil,
		"ok":     props["ok"].BooleanSchema != nil,
		"colour": enum("colour").TitledSingleSelectEnumSchema != nil,
		"size":   enum("size").UntitledSingleSelectEnumSchema != nil,
		"tier":   enum("tier").LegacyTitledEnumSchema != nil,
		"sizes":  enum("sizes").MultiSelectEnumSchema != nil && enum("sizes").MultiSelectEnumSchema.Items.UntitledEnumItems != nil,
		"tags":   enum("tags").MultiSelectEnumSchema != nil && enum("tags").MultiSelectEnumSchema.Items.TitledEnumItems != nil,
	} {
		if !ok {
			b, _ := json.Marshal(props[name])
			t.Errorf("property %s %s decoded as %+v", name, b, props[name])
		}
	}
}

// initRecorder answers initialize with a fixed result, keeping the client's
// capabilities re-encoded as JSON.
type initRecorder struct {
	mcp.UnimplementedServer
	caps chan []byte
}

func (r *initRecorder) Initialize(_ context.Context, p *mcp.InitializeRequestParams) (*mcp.InitializeResult, error) {
	b, err := json.Marshal(p.Capabilities)
	if err != nil {
		return nil, err
	}
	r.caps <- b
	return &mcp.InitializeResult{ProtocolVersion: "2025-11-25", ServerInfo: mcp.Implementation{Name: "s", Version: "1"}}, nil
}

// TestExtraMembersOnTheWire shows that the members a peer adds to a result
// or to its capabilities, which MCP allows, reach the application and are
// written back as received, in the order received, after the declared ones.
func TestExtraMembersOnTheWire(t *testing.T) {
	const clientCaps = `{"roots":{"listChanged":true},"sampling":{},"zeta":{"on":true},"alpha":[1,2],"mid":null}`
	rec := &initRecorder{caps: make(chan []byte, 1)}
	sp := wireConn(t, func(c net.Conn) *jsonrpc.Conn {
		conn, _ := mcp.ConnectServer(c, rec, jsonrpc.Options{})
		return conn
	})
	sp.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+clientCaps+
		`,"clientInfo":{"name":"c","version":"1"}}}`)
	if m := sp.receive(t); m.Error != nil {
		t.Fatalf("initialize answered %v", m.Error)
	}
	if got := string(<-rec.caps); got != clientCaps {
		t.Errorf("client capabilities re-encoded as\n%s\nwant\n%s", got, clientCaps)
	}

	var server mcp.Server
	cp := wireConn(t, func(c net.Conn) *jsonrpc.Conn {
		conn, s := mcp.ConnectClient(c, nil, jsonrpc.Options{})
		server = s
		return conn
	})
	results := []struct {
		result string
		call   func(context.Context) (any, error)
	}{{
		`{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true},"zeta":{"on":true},"alpha":1},` +
			`"serverInfo":{"name":"s","version":"1"},"zz":"last","aa":{"x":[true]}}`,
		func(ctx context.Context) (any, error) {
			return server.Initialize(ctx, &mcp.InitializeRequestParams{ProtocolVersion: "2025-11-25"})
		},
	}, {
		`{"nextCursor":"2","tools":[],"zz":1,"aa":2}`,
		func(ctx context.Context) (any, error) { return server.ListTools(ctx, &mcp.PaginatedRequestParams{}) },
	}}
	for _, r := range results {
		done := make(chan []byte, 1)
		go func() {
			res, err := r.call(context.Background())
			if err != nil {
				t.Errorf("call: %v", err)
				done <- nil
				return
			}
			b, err := json.Marshal(res)
			if err != nil {
				t.Errorf("re-encoding %+v: %v", res, err)
			}
			done <- b
		}()
		req := cp.receive(t)
		cp.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+r.result+`}`)
		if got := string(<-done); got != r.result {
			t.Errorf("%s result re-encoded as\n%s\nwant\n%s", req.Method, got, r.result)
		}
	}
}

// TestBatchRefused: MCP allows JSON-RPC batches only once revision
// 2025-03-26 has been negotiated, so a server built on the generated
// package answers a batch sent before initialize with one -32600 and
// handles none of its elements (TestBatchesByRevision covers the rest).
func TestBatchRefused(t *testing.T) {
	rec := &initRecorder{caps: make(chan []byte, 1)}
	sp := wireConn(t, func(c net.Conn) *jsonrpc.Conn {
		conn, _ := mcp.ConnectServer(c, rec, jsonrpc.Options{})
		return conn
	})
	sp.send(t, `[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}},{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	m := sp.receive(t)
	if m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidRequest || string(m.ID) != "null" {
		t.Fatalf("a batch was answered %+v, want one -32600 with id null", m)
	}
	select {
	case <-rec.caps:
		t.Fatal("initialize inside the refused batch was handled")
	default:
	}
	// The connection carries on with single messages (initRecorder
	// answers initialize only).
	sp.send(t, `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if m := sp.receive(t); m.Error != nil || string(m.ID) != "3" {
		t.Fatalf("initialize after the batch answered %+v", m)
	}
}
