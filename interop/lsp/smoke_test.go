package lsp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/framing"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// rawClient is the client side of gopls on the runtime's own Conn, with
// untyped params: it answers the requests gopls makes of a client and
// keeps the notifications gopls sends.
type rawClient struct {
	t    *testing.T
	conn *jsonrpc.Conn
	logs *warnings

	mu       sync.Mutex
	requests []string // methods of the requests gopls made
	notes    []*jsonrpc.Request
	arrived  chan struct{} // signalled on each notification
}

func newRawClient(t *testing.T, g *goplsProcess) *rawClient {
	c := &rawClient{t: t, logs: &warnings{}, arrived: make(chan struct{}, 1)}
	c.conn = jsonrpc.NewConn(g.stream, jsonrpc.Options{
		Framing:      framing.ContentLength,
		Cancellation: jsonrpc.CancelLSP,
		Handler:      jsonrpc.HandlerFunc(c.handle),
		Logger:       slog.New(c.logs),
	})
	t.Cleanup(func() { _ = c.conn.Close() })
	return c
}

var null = json.RawMessage("null")

func (c *rawClient) handle(_ context.Context, req *jsonrpc.Request) (any, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if req.IsNotification() {
		c.notes = append(c.notes, req)
		select {
		case c.arrived <- struct{}{}:
		default:
		}
		return nil, nil
	}
	c.requests = append(c.requests, req.Method)
	switch req.Method {
	case "workspace/configuration":
		// One settings object per item asked for: gopls's defaults.
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil {
			c.t.Errorf("workspace/configuration params %s: %v", req.Params, err)
			return nil, jsonrpc.InvalidParams("items", err.Error())
		}
		return json.RawMessage("[" + strings.TrimSuffix(strings.Repeat("{},", len(p.Items)), ",") + "]"), nil
	case "window/workDoneProgress/create", "client/registerCapability", "client/unregisterCapability", "window/showMessageRequest":
		return null, nil
	}
	c.t.Errorf("gopls sent the request %s %s, which this client does not expect", req.Method, req.Params)
	return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found", nil)
}

// call sends a request with raw params and returns the raw result.
func (c *rawClient) call(t *testing.T, method string, params string) json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), goplsWait)
	defer cancel()
	var result json.RawMessage
	var p any
	if params != "" {
		p = json.RawMessage(params)
	}
	if err := c.conn.Call(ctx, method, p, &result); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return result
}

// notify sends a notification with raw params.
func (c *rawClient) notify(t *testing.T, method string, params string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), goplsWait)
	defer cancel()
	var p any
	if params != "" {
		p = json.RawMessage(params)
	}
	if err := c.conn.Notify(ctx, method, p); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// awaitNote waits for a notification that match accepts.
func (c *rawClient) awaitNote(t *testing.T, what string, match func(*jsonrpc.Request) bool) *jsonrpc.Request {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), goplsWait)
	defer cancel()
	for seen := 0; ; {
		c.mu.Lock()
		notes := c.notes[seen:]
		seen = len(c.notes)
		c.mu.Unlock()
		for _, n := range notes {
			if match(n) {
				return n
			}
		}
		select {
		case <-c.arrived:
		case <-ctx.Done():
			t.Fatalf("no %s from gopls within %v", what, goplsWait)
		}
	}
}

// asked returns the methods of the requests gopls made so far.
func (c *rawClient) asked() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.requests)
}

// rawInitialize is initialize's params: a client that lets gopls ask for
// its configuration, create progress and register capabilities.
func rawInitialize(ws *goplsWorkspace) string {
	return fmt.Sprintf(`{"processId":%d,"clientInfo":{"name":"rpcgen-interop-lsp"},"locale":"en",
"rootUri":%q,"workspaceFolders":[{"uri":%[2]q,"name":"notes"}],
"capabilities":{
 "general":{"positionEncodings":["utf-16"]},
 "window":{"workDoneProgress":true},
 "workspace":{"configuration":true,"workspaceFolders":true,"didChangeConfiguration":{"dynamicRegistration":true},"didChangeWatchedFiles":{"dynamicRegistration":true}},
 "textDocument":{"synchronization":{"dynamicRegistration":false},"publishDiagnostics":{"versionSupport":true},"hover":{"contentFormat":["markdown","plaintext"]}}}}`,
		os.Getpid(), fileURI(ws.dir))
}

// gopls answers the runtime's Conn with raw JSON through a whole session:
// initialize, initialized, didOpen (the deliberate type error comes back
// as a diagnostic), shutdown with a null result, exit with status 0;
// every message it sent is well framed, and our side logs no warning.
func TestGoplsRawSession(t *testing.T) {
	ws := newGoplsWorkspace(t)
	g := startGopls(t, ws)
	c := newRawClient(t, g)

	var init struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
		ServerInfo   struct{ Name string }      `json:"serverInfo"`
	}
	res := c.call(t, "initialize", rawInitialize(ws))
	if err := json.Unmarshal(res, &init); err != nil || init.ServerInfo.Name != "gopls" || init.Capabilities["hoverProvider"] == nil {
		t.Fatalf("initialize result %s (%v): want gopls's serverInfo and a hoverProvider", res, err)
	}
	c.notify(t, "initialized", `{}`)

	c.notify(t, "textDocument/didOpen", fmt.Sprintf(`{"textDocument":{"uri":%q,"languageId":"go","version":1,"text":%q}}`, ws.mainURI, mainGo))
	line, char := position(t, `"three"`, 0)
	diag := c.awaitNote(t, "diagnostic of the type error in main.go", func(n *jsonrpc.Request) bool {
		var p struct {
			URI         string `json:"uri"`
			Diagnostics []struct {
				Range struct {
					Start struct{ Line, Character int }
				}
				Message string
			}
		}
		if n.Method != "textDocument/publishDiagnostics" || json.Unmarshal(n.Params, &p) != nil || p.URI != ws.mainURI {
			return false
		}
		for _, d := range p.Diagnostics {
			if d.Range.Start.Line == line && d.Range.Start.Character == char && strings.Contains(d.Message, `"three"`) {
				return true
			}
		}
		return false
	})
	t.Logf("diagnostic: %s", diag.Params)
	asked := c.asked()
	t.Logf("gopls's requests: %v", asked)
	if !slices.Contains(asked, "workspace/configuration") {
		t.Errorf("gopls asked %v, never workspace/configuration", asked)
	}

	if res := c.call(t, "shutdown", ""); !bytes.Equal(res, null) {
		t.Errorf("shutdown result %s, want null", res)
	}
	c.notify(t, "exit", "")
	g.waitExit(t)
	<-c.conn.Done()

	// The response itself has "result":null (Call cannot tell null from a
	// missing result).
	g.checkReceived(t)
	if got := responseTo(t, g.stream, "shutdown"); string(got["result"]) != "null" {
		t.Errorf("gopls answered shutdown with %v, want a result member that is null", got)
	}
	c.logs.check(t)
}

// responseTo returns the members of the response gopls sent to our
// request for method (the first such request).
func responseTo(t *testing.T, r *recorder, method string) map[string]json.RawMessage {
	t.Helper()
	sent, err := r.sent()
	if err != nil {
		t.Fatalf("our output: %v", err)
	}
	var id json.RawMessage
	for _, b := range sent {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(b, &m) == nil && m.Method == method && m.ID != nil {
			id = m.ID
			break
		}
	}
	if id == nil {
		t.Fatalf("we sent no %s request", method)
	}
	received, _ := r.received()
	for _, b := range received {
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) == nil && m["method"] == nil && bytes.Equal(m["id"], id) {
			return m
		}
	}
	t.Fatalf("gopls did not answer our %s request (id %s)", method, id)
	return nil
}
