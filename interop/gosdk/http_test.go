//lint:file-ignore SA1019 Sampling is deprecated from revision 2026-07-28 only; these tests speak 2025-11-25, where it is current.

package gosdk_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/streamhttp"
)

// Both directions again over Streamable HTTP, on loopback httptest
// servers: the SDK's StreamableClientTransport against our generated
// server behind streamhttp.NewHandler, and our generated client on
// streamhttp.Dial against the SDK's StreamableHTTPHandler.

// record appends one line of the transcript.
func (tr *transcript) record(label, line string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	fmt.Fprintf(&tr.buf, "%s %s\n", label, strings.TrimRight(line, "\n"))
}

// recordingTransport is an http.RoundTripper that writes every request
// body (as sent by client) and every JSON answer or event's data (as sent
// by server) to the transcript, and a "http" line per exchange.
type recordingTransport struct {
	tr             *transcript
	client, server string // transcript labels
	base           *http.Transport
}

func (rt *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("reading the request body: %w", err)
		}
		if len(b) > 0 {
			rt.tr.record(rt.client, string(b))
		}
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	resp, err := rt.base.RoundTrip(req)
	if err != nil {
		rt.tr.record("http", fmt.Sprintf("%s %s session=%q: %v", req.Method, req.URL.Path, req.Header.Get("Mcp-Session-Id"), err))
		return nil, err
	}
	rt.tr.record("http", fmt.Sprintf("%s %s session=%q -> %d %s", req.Method, req.URL.Path, req.Header.Get("Mcp-Session-Id"), resp.StatusCode, resp.Header.Get("Content-Type")))
	pr, pw := io.Pipe()
	body := resp.Body
	sse := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	go func() {
		sc := bufio.NewScanner(io.TeeReader(body, pw))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if data, ok := strings.CutPrefix(line, "data:"); sse && ok {
				rt.tr.record(rt.server, strings.TrimPrefix(data, " "))
			} else if !sse && line != "" {
				rt.tr.record(rt.server, line)
			}
		}
		_, err := io.Copy(pw, body)
		pw.CloseWithError(err)
		body.Close()
	}()
	resp.Body = pr
	return resp, nil
}

// loopback serves h at mcp.HTTP.Path on an httptest server and returns the
// endpoint's URL; the server closes at cleanup.
func loopback(t *testing.T, h http.Handler) string {
	mux := http.NewServeMux()
	mux.Handle(mcp.HTTP.Path, h)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	return ts.URL + mcp.HTTP.Path
}

// deletes returns the transcript's DELETE lines answered with 2xx.
func deletes(tr *transcript) []string {
	var out []string
	for _, line := range strings.Split(tr.String(), "\n") {
		if strings.HasPrefix(line, "http DELETE ") && strings.Contains(line, " -> 2") {
			out = append(out, line)
		}
	}
	return out
}

// TestSDKClientOverHTTPAgainstOurServer: the SDK client, over its
// StreamableClientTransport, initializes with our server, lists the tools,
// calls one with progress and one during which our server asks the SDK
// client for sampling, and closes the session with DELETE, which ends our
// server's connection.
func TestSDKClientOverHTTPAgainstOurServer(t *testing.T) {
	tr := exchange(t, "MCP Go SDK StreamableClientTransport (github.com/modelcontextprotocol/go-sdk "+sdkVersion+") -> streamhttp.NewHandler")
	srv := newOurServer()
	ended := make(chan error, 1)
	h := streamhttp.NewHandler(mcp.HTTP, func(s *streamhttp.Session) {
		conn, _ := mcp.ConnectServer(s, srv, jsonrpc.Options{})
		go func() { ended <- conn.Wait() }()
	}, streamhttp.ServerOptions{})
	url := loopback(t, h)
	t.Cleanup(func() { _ = h.Close() })
	rt := &recordingTransport{tr: tr, client: fromSDK, server: fromOurs, base: &http.Transport{}}
	t.Cleanup(rt.base.CloseIdleConnections)
	c, client := newSDKClient()
	ctx := bounded(t)

	tr.setStep("connect (initialize over HTTP)")
	session, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: rt}}, nil)
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = session.Close()
		}
	})
	if v := session.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Errorf("step %q: negotiated %q, want 2025-11-25", tr.current(), v)
	}
	receive(t, tr, srv.initialized, "notifications/initialized at our server")
	// SDK 1.8 first probes with server/discover, which carries no session
	// id: our handler answers 400, as MCP says for a request other than
	// initialize without one, and the SDK falls back to initialize.
	if !strings.Contains(tr.sent(fromSDK), `"method":"server/discover"`) || !strings.Contains(tr.String(), `http POST /mcp session="" -> 400`) {
		t.Errorf("step %q: expected server/discover answered with 400 before initialize", tr.current())
	}

	tr.setStep("tools/list")
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if !strings.Contains(strings.Join(names, ","), "slow") || !strings.Contains(strings.Join(names, ","), "sample") {
		t.Errorf("step %q: tools %v", tr.current(), names)
	}

	tr.setStep("tools/call slow with progress")
	params := &sdk.CallToolParams{Name: "slow", Arguments: map[string]any{"steps": 3}}
	params.SetProgressToken("over-http")
	res, err := session.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if got := textOf(t, tr, res); got != "done after 3 steps" {
		t.Errorf("step %q: %q", tr.current(), got)
	}
	for i := 1; i <= 3; i++ {
		p := receive(t, tr, c.progress, fmt.Sprintf("progress %d", i))
		if p.ProgressToken != "over-http" || p.Progress != float64(i) || p.Total != 3 {
			t.Errorf("step %q: progress %d is %+v", tr.current(), i, p)
		}
	}

	tr.setStep("tools/call sample (our server asks the SDK client)")
	res, err = session.CallTool(ctx, &sdk.CallToolParams{Name: "sample", Arguments: map[string]any{"prompt": "salut"}})
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if got := textOf(t, tr, res); got != "stub-model said bonjour ☀" {
		t.Errorf("step %q: %q", tr.current(), got)
	}
	if p := receive(t, tr, c.sampled, "sampling/createMessage at the SDK client"); p.MaxTokens != 50 {
		t.Errorf("step %q: sampling params %+v", tr.current(), p)
	}

	tr.setStep("close (DELETE)")
	closed = true
	if err := session.Close(); err != nil {
		t.Errorf("step %q: %v", tr.current(), err)
	}
	if err := receive(t, tr, ended, "the end of our server's connection"); err != nil &&
		!errors.Is(err, jsonrpc.ErrPeerClosed) && !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("step %q: our server's connection ended with %v", tr.current(), err)
	}
	if d := deletes(tr); len(d) != 1 {
		t.Errorf("step %q: DELETEs answered with 2xx: %v, want one", tr.current(), d)
	}
}

// TestOurClientOverHTTPAgainstSDKServer: our client, on streamhttp.Dial,
// initializes with the SDK's StreamableHTTPHandler, lists the tools, calls
// one with progress and one during which the SDK server asks our client
// for sampling, and closes with DELETE, which ends the SDK's session.
func TestOurClientOverHTTPAgainstSDKServer(t *testing.T) {
	tr := exchange(t, "MCP Go SDK StreamableHTTPHandler (github.com/modelcontextprotocol/go-sdk "+sdkVersion+") <- streamhttp.Dial")
	s := newSDKServer(0)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.server }, nil)
	url := loopback(t, h)
	rt := &recordingTransport{tr: tr, client: fromOurs, server: fromSDK, base: &http.Transport{}}
	t.Cleanup(rt.base.CloseIdleConnections)
	ctx := bounded(t)

	tr.setStep("dial")
	stream, err := streamhttp.Dial(ctx, url, mcp.HTTP, streamhttp.ClientOptions{HTTPClient: &http.Client{Transport: rt}})
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	impl := newOurClient()
	conn, remote := mcp.ConnectClient(stream, impl, jsonrpc.Options{})
	closed := false
	t.Cleanup(func() {
		if !closed {
			conn.Close()
		}
	})

	tr.setStep("initialize")
	init, err := remote.Initialize(ctx, initParams("2025-11-25"))
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	if init.ProtocolVersion != "2025-11-25" || init.ServerInfo.Name != "go-sdk-server" {
		t.Errorf("step %q: %+v", tr.current(), init)
	}
	if err := remote.Initialized(ctx, &mcp.NotificationParams{}); err != nil {
		t.Fatalf("step %q: notifications/initialized: %v", tr.current(), err)
	}
	receive(t, tr, s.initialized, "notifications/initialized at the SDK server")

	tr.setStep("tools/list")
	tools, err := remote.ListTools(ctx, &mcp.PaginatedRequestParams{})
	if err != nil {
		t.Fatalf("step %q: %v", tr.current(), err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"echo", "slow", "sample"} {
		if !strings.Contains(","+strings.Join(names, ",")+",", ","+want+",") {
			t.Errorf("step %q: %s missing from %v", tr.current(), want, names)
		}
	}

	tr.setStep("tools/call slow with progress")
	token := mcp.NewProgressToken("over-http")
	resp, err := remote.CallTool(ctx, &mcp.CallToolRequestParams{Name: "slow", Arguments: json.RawMessage(`{"steps":3}`),
		Meta: &mcp.RequestMeta{ProgressToken: token}})
	if err != nil || resp.CallToolResult == nil || resp.CallToolResult.IsError {
		t.Fatalf("step %q: %+v, %v", tr.current(), resp, err)
	}
	for i := 1; i <= 3; i++ {
		p := receive(t, tr, impl.progress, fmt.Sprintf("progress %d", i))
		if p.ProgressToken.String == nil || *p.ProgressToken.String != "over-http" || p.Progress != float64(i) {
			t.Errorf("step %q: progress %d is %+v", tr.current(), i, p)
		}
	}

	tr.setStep("tools/call sample (the SDK server asks our client)")
	resp, err = remote.CallTool(ctx, &mcp.CallToolRequestParams{Name: "sample", Arguments: json.RawMessage(`{"prompt":"hola"}`)})
	if err != nil || resp.CallToolResult == nil || len(resp.CallToolResult.Content) != 1 || resp.CallToolResult.Content[0].Text == nil {
		t.Fatalf("step %q: %+v, %v", tr.current(), resp, err)
	}
	if got := resp.CallToolResult.Content[0].Text.Text; !strings.Contains(got, "¡hola!") {
		t.Errorf("step %q: %q", tr.current(), got)
	}
	receive(t, tr, impl.sampled, "sampling/createMessage at our client")

	tr.setStep("close (DELETE)")
	closed = true
	// Close returns once the stream's DELETE is answered.
	if err := conn.Close(); err != nil {
		t.Errorf("step %q: %v", tr.current(), err)
	}
	if d := deletes(tr); len(d) != 1 {
		t.Errorf("step %q: DELETEs answered with 2xx: %v, want one", tr.current(), d)
	}
}
