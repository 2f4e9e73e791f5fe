package mcpts_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The same peers over Streamable HTTP: examples/mcp/server with -http
// against the SDK's StreamableHTTPClientTransport, and examples/mcp/client
// with -url against the SDK's StreamableHTTPServerTransport
// (sdk-http-server.mjs), each behind the recording HTTP proxy.

// TestSDKClientOverHTTPAgainstOurServer runs every step of sdk-client.mjs
// over the SDK's StreamableHTTPClientTransport against our server on
// -http: the checks of the stdio run, then the session's end by DELETE.
func TestSDKClientOverHTTPAgainstOurServer(t *testing.T) {
	needNode(t)
	const peer = "MCP TypeScript SDK Client (StreamableHTTPClientTransport) -> examples/mcp/server -http"
	server := startHTTPPeer(t, "examples/mcp/server -http", serverBin, "-http", "127.0.0.1:0")
	logPath := filepath.Join(t.TempDir(), "traffic.log")
	url := recordingProxy(t, server.url, logPath)
	checkSDKClient(t, peer, logPath, runSDKClient(t, peer, logPath, "--url", url), func(t *testing.T, step stepLine) {
		var closed struct{ Session, After *string }
		if err := json.Unmarshal(step.Result, &closed); err != nil {
			t.Fatalf("%s, step close: result %s: %v", peer, step.Result, err)
		}
		if closed.Session == nil || *closed.Session == "" || closed.After != nil {
			t.Fatalf("%s, step close: session %v, after the DELETE %v", peer, closed.Session, closed.After)
		}
		traffic, _ := readTraffic(logPath)
		wantDelete := "proxy: DELETE /mcp session=" + jsonQuote(*closed.Session)
		if !strings.Contains(traffic, wantDelete) || len(deleted.FindAllString(traffic, -1)) != 1 {
			t.Errorf("%s, step close: no DELETE of session %s answered with 2xx on the wire", peer, *closed.Session)
		}
		// The DELETE ended the session's connection on our server.
		server.stderr.Wait(t, peer, `msg="session ended"`, 1, wait)
	})
}

// deleted matches the proxy's line for a successful DELETE.
var deleted = regexp.MustCompile(`proxy: DELETE answered 2\d\d`)

// jsonQuote quotes s as %q does, which the proxy's log lines use.
func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestOurClientOverHTTPAgainstSDKServer runs examples/mcp/client with -url
// against the TypeScript SDK's StreamableHTTPServerTransport: initialize
// and the lists, a tool call with progress, a tool call during which the
// SDK server sends sampling/createMessage on the call's event stream, a
// task that needs input (our client calls tasks/result once it is
// input_required), and the end of each session by DELETE.
func TestOurClientOverHTTPAgainstSDKServer(t *testing.T) {
	needNode(t)
	const peer = "examples/mcp/client -url -> MCP TypeScript SDK StreamableHTTPServerTransport"
	server := startHTTPPeer(t, "sdk-http-server.mjs", "node", "sdk-http-server.mjs")
	logPath := filepath.Join(t.TempDir(), "traffic.log")
	url := recordingProxy(t, server.url, logPath)
	t.Cleanup(func() {
		if t.Failed() {
			traffic, _ := readTraffic(logPath)
			t.Logf("peer: %s\n--- bytes exchanged (-> to the SDK server, <- to our client) ---\n%s", peer, traffic)
		}
	})
	run := func(t *testing.T, args ...string) map[string]json.RawMessage {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*wait)
		defer cancel()
		cmd := exec.CommandContext(ctx, clientBin, append([]string{"-url", url, "-timeout", wait.String()}, args...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: the client %v failed: %v\n%s", peer, args, err, stderr.String())
		}
		lines := map[string]json.RawMessage{}
		dec := json.NewDecoder(&stdout)
		for dec.More() {
			var line map[string]json.RawMessage
			if err := dec.Decode(&line); err != nil {
				t.Fatalf("%s: client output: %v", peer, err)
			}
			for k, v := range line {
				lines[k] = v
			}
		}
		return lines
	}
	callText := func(t *testing.T, lines map[string]json.RawMessage) string {
		t.Helper()
		var res struct {
			Content []struct{ Text string }
			IsError bool
		}
		if err := json.Unmarshal(lines["call"], &res); err != nil || len(res.Content) != 1 || res.IsError {
			t.Fatalf("%s: call result %s: %v", peer, lines["call"], err)
		}
		return res.Content[0].Text
	}

	out := run(t, "-call", "slow", "-args", `{"steps":3}`)
	var init struct {
		ProtocolVersion string
		ServerInfo      struct{ Name string }
	}
	if err := json.Unmarshal(out["initialize"], &init); err != nil || init.ProtocolVersion != "2025-11-25" || init.ServerInfo.Name != "mcpts-sdk-http-server" {
		t.Errorf("%s, initialize: %s (%v)", peer, out["initialize"], err)
	}
	var list struct{ Tools []struct{ Name string } }
	if err := json.Unmarshal(out["list"], &list); err != nil || len(list.Tools) != 4 {
		t.Errorf("%s, tools/list: %s (%v)", peer, out["list"], err)
	}
	if got := callText(t, out); got != "done after 3 steps" {
		t.Errorf("%s, tools/call slow: %q", peer, got)
	}
	_, msgs := readTraffic(logPath)
	progress := 0
	for _, m := range msgs {
		if m.dir == toClient && m.msg.Method == "notifications/progress" && strings.Contains(string(m.msg.Params), `"progressToken":"call"`) {
			progress++
		}
	}
	if progress != 3 {
		t.Errorf("%s, tools/call slow: %d progress notifications for our token on the wire, want 3", peer, progress)
	}

	out = run(t, "-list=false", "-call", "sample", "-args", `{"prompt":"hi"}`)
	if got := callText(t, out); got != "echo said echo: hi" {
		t.Errorf("%s, tools/call sample: %q", peer, got)
	}
	// On the wire: the SDK server's sampling request, and our one answer
	// to its id.
	_, msgs = readTraffic(logPath)
	var samplingID json.RawMessage
	for _, m := range msgs {
		if m.dir == toClient && m.msg.Method == "sampling/createMessage" {
			samplingID = m.msg.ID
		}
	}
	answers := 0
	for _, m := range msgs {
		if samplingID != nil && m.dir == toServer && m.msg.Method == "" && bytes.Equal(m.msg.ID, samplingID) && m.msg.Result != nil {
			answers++
		}
	}
	if samplingID == nil || answers != 1 {
		t.Errorf("%s, sampling: request id %s answered %d times on the wire, want once", peer, samplingID, answers)
	}

	// A task that needs input: the SDK server queues its elicitation, the
	// task goes input_required, and our client calls tasks/result at once,
	// on whose stream the elicitation arrives.
	out = run(t, "-list=false", "-task", "-elicit", "accept", "-call", "ask", "-args", `{"question":"ok?"}`)
	if got := callText(t, out); got != "the user said yes" {
		t.Errorf("%s, task input_required: %q", peer, got)
	}
	_, msgs = readTraffic(logPath)
	resultAt, elicitAt := -1, -1
	for i, m := range msgs {
		switch {
		case m.dir == toServer && m.msg.Method == "tasks/result" && resultAt < 0:
			resultAt = i
		case m.dir == toClient && m.msg.Method == "elicitation/create" && strings.Contains(string(m.msg.Params), "io.modelcontextprotocol/related-task"):
			elicitAt = i
		}
	}
	if resultAt < 0 || elicitAt < resultAt {
		t.Errorf("%s, task input_required: tasks/result at line %d, the task's elicitation at line %d; want the elicitation after tasks/result", peer, resultAt, elicitAt)
	}

	// Each run ended its session with DELETE, which closed it on the SDK
	// server.
	closed := server.stdout.Wait(t, peer, `"event":"closed"`, 3, wait)
	traffic, _ := readTraffic(logPath)
	if n := len(deleted.FindAllString(traffic, -1)); n != 3 {
		t.Errorf("%s: %d DELETEs answered with 2xx on the wire, want 3 (sessions closed: %v)", peer, n, closed)
	}
}
