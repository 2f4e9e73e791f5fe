package mcpts_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// wait bounds every wait of these tests, only to turn a hang into a
// failure: on a loaded machine Node alone takes 10 s to start
// server-everything, so the bound is generous.
const wait = 30 * time.Second

// stepLine is one line sdk-client.mjs prints.
type stepLine struct {
	Step   string          `json:"step"`
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  string          `json:"error"`
	Code   *int            `json:"code"`
}

// TestSDKClientAgainstOurServer runs the official TypeScript SDK's Client
// (StdioClientTransport) against examples/mcp/server through the recording
// proxy and checks every step it reports.
func TestSDKClientAgainstOurServer(t *testing.T) {
	needNode(t)
	logPath := filepath.Join(t.TempDir(), "traffic.log")
	const peer = "MCP TypeScript SDK Client -> examples/mcp/server"
	checkSDKClient(t, peer, logPath, runSDKClient(t, peer, logPath, proxyCommand(t, logPath, serverBin)...), func(t *testing.T, _ stepLine) {
		traffic, _ := readTraffic(logPath)
		if !strings.Contains(traffic, "proxy: the server exited: status 0") {
			t.Errorf("%s, step close: our server did not exit with status 0 once the SDK closed its stdin", peer)
		}
	})
}

// runSDKClient runs sdk-client.mjs with args and returns its steps in the
// order reported. On failure it logs the traffic recorded in logPath.
func runSDKClient(t *testing.T, peer, logPath string, args ...string) []stepLine {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*wait)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{"sdk-client.mjs"}, args...)...)
	cmd.WaitDelay = wait
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	t.Cleanup(func() {
		if t.Failed() {
			traffic, _ := readTraffic(logPath)
			t.Logf("peer: %s\n--- bytes exchanged (-> to our server, <- to the SDK client) ---\n%s"+
				"--- sdk-client.mjs stdout ---\n%s--- stderr (script and server) ---\n%s",
				peer, traffic, stdout.String(), stderr.String())
		}
	})
	if runErr != nil {
		t.Fatalf("%s: node sdk-client.mjs failed: %v", peer, runErr)
	}
	var steps []stepLine
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s stepLine
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("%s: sdk-client.mjs printed a line that is not a step: %q", peer, sc.Text())
		}
		steps = append(steps, s)
	}
	return steps
}

// checkSDKClient checks the steps sdk-client.mjs reported and the traffic
// recorded in logPath; checkClose checks how the session ended, given the
// close step.
func checkSDKClient(t *testing.T, peer, logPath string, lines []stepLine, checkClose func(*testing.T, stepLine)) {
	steps := map[string]stepLine{}
	var order []string
	for _, s := range lines {
		steps[s.Step] = s
		order = append(order, s.Step)
	}

	// ok decodes the result of a step that must have succeeded.
	ok := func(t *testing.T, name string, v any) {
		t.Helper()
		s, found := steps[name]
		if !found {
			t.Fatalf("%s, step %q: not reported (steps seen: %v)", peer, name, order)
		}
		if !s.OK {
			t.Fatalf("%s, step %q failed: %s", peer, name, s.Error)
		}
		if v != nil {
			if err := json.Unmarshal(s.Result, v); err != nil {
				t.Fatalf("%s, step %q: result %s: %v", peer, name, s.Result, err)
			}
		}
	}
	// fails checks that a step failed with an MCP error code.
	fails := func(t *testing.T, name string, code int) {
		t.Helper()
		s, found := steps[name]
		switch {
		case !found:
			t.Fatalf("%s, step %q: not reported", peer, name)
		case s.OK:
			t.Fatalf("%s, step %q succeeded with %s, want error %d", peer, name, s.Result, code)
		case s.Code == nil || *s.Code != code:
			t.Fatalf("%s, step %q: error %q, want code %d", peer, name, s.Error, code)
		}
	}
	texts := func(t *testing.T, name string) string {
		t.Helper()
		var s string
		ok(t, name, &s)
		return s
	}

	t.Run("initialize", func(t *testing.T) {
		var r struct {
			ProtocolVersion string
			ServerInfo      struct{ Name, Version string }
			Capabilities    map[string]json.RawMessage
			Instructions    string
		}
		ok(t, "initialize", &r)
		if r.ProtocolVersion != "2025-11-25" || r.ServerInfo.Name != "rpcgen-mcp-example" || r.Instructions == "" {
			t.Errorf("%s, step initialize: negotiated %q with %+v, instructions %q", peer, r.ProtocolVersion, r.ServerInfo, r.Instructions)
		}
		for _, c := range []string{"tools", "resources", "prompts", "logging", "completions"} {
			if _, has := r.Capabilities[c]; !has {
				t.Errorf("%s, step initialize: capability %s missing from %v", peer, c, r.Capabilities)
			}
		}
	})
	t.Run("ping", func(t *testing.T) {
		ok(t, "ping", nil)
		ok(t, "ping after cancellation", nil)
	})
	t.Run("tools", func(t *testing.T) {
		var names []string
		ok(t, "tools/list", &names)
		for _, n := range []string{"echo", "add", "slow", "roots", "sample", "ask", "ping_client"} {
			if !slices.Contains(names, n) {
				t.Errorf("%s, step tools/list: %s missing from %v", peer, n, names)
			}
		}
		if got := texts(t, "tools/call echo"); got != "héllo, 世界 🌍" {
			t.Errorf("%s, step tools/call echo: %q", peer, got)
		}
		var add struct {
			Text              string
			StructuredContent map[string]float64
		}
		ok(t, "tools/call add", &add)
		if add.Text != "5.5" || add.StructuredContent["sum"] != 5.5 {
			t.Errorf("%s, step tools/call add: %+v", peer, add)
		}
		fails(t, "tools/call unknown", -32602)
	})
	t.Run("progress", func(t *testing.T) {
		var r struct {
			Text     string
			Progress []struct {
				Progress, Total float64
				Message         string
			}
		}
		ok(t, "tools/call slow with progress", &r)
		if r.Text != "done after 3 steps" {
			t.Errorf("%s, step tools/call slow: %q", peer, r.Text)
		}
		// The SDK drops progress that it handles after the response (see
		// README): steps 1 and 2 must be there, step 3 may be missing.
		if len(r.Progress) < 2 {
			t.Fatalf("%s, step tools/call slow: progress %+v, want at least steps 1 and 2", peer, r.Progress)
		}
		for i, p := range r.Progress {
			if p.Progress != float64(i+1) || p.Total != 3 {
				t.Errorf("%s, step tools/call slow: progress %d is %+v", peer, i, p)
			}
		}
	})
	t.Run("cancellation", func(t *testing.T) {
		var r struct {
			Outcome string
			Log     struct{ Level, Logger, Data string }
		}
		ok(t, "tools/call slow cancelled", &r)
		if !strings.HasPrefix(r.Outcome, "rejected") {
			t.Errorf("%s, step tools/call slow cancelled: the call %s", peer, r.Outcome)
		}
		// The SDK aborts on the second progress notification; the server
		// may have finished a step or two more by the time it hears of it.
		var done int
		if _, err := fmt.Sscanf(r.Log.Data, "slow: cancelled after %d of 200 steps", &done); err != nil || done < 2 || done > 20 {
			t.Errorf("%s, step tools/call slow cancelled: the server logged %+v", peer, r.Log)
		}
		// On the wire: notifications/cancelled names the slow call, and our
		// server sends no response to it (the spec's SHOULD NOT).
		_, msgs := readTraffic(logPath)
		var callID json.RawMessage
		for _, m := range msgs {
			if m.dir == toServer && m.msg.Method == "tools/call" && strings.Contains(m.raw, `"steps":200`) {
				callID = m.msg.ID
			}
		}
		var cancelled []string
		for _, m := range msgs {
			var p struct{ RequestID json.RawMessage }
			if m.dir == toServer && m.msg.Method == "notifications/cancelled" && json.Unmarshal(m.msg.Params, &p) == nil {
				cancelled = append(cancelled, string(p.RequestID))
			}
			if callID != nil && m.dir == toClient && m.msg.Method == "" && bytes.Equal(m.msg.ID, callID) {
				t.Errorf("%s, step tools/call slow cancelled: our server answered the cancelled call: %s", peer, m.raw)
			}
		}
		if callID == nil || !slices.Contains(cancelled, string(callID)) {
			t.Errorf("%s, step tools/call slow cancelled: the slow call has id %s, notifications/cancelled named %v", peer, callID, cancelled)
		}
	})
	t.Run("resources", func(t *testing.T) {
		var list []struct{ URI, Name string }
		ok(t, "resources/list", &list)
		if len(list) < 3 || list[0].URI != "example://readme" || list[1].URI != "example://logo.png" {
			t.Errorf("%s, step resources/list: %+v", peer, list)
		}
		var templates []struct{ URITemplate string }
		ok(t, "resources/templates/list", &templates)
		if len(templates) != 1 || templates[0].URITemplate != "greeting://{name}" {
			t.Errorf("%s, step resources/templates/list: %+v", peer, templates)
		}
		var text, blob []struct{ URI, MimeType, Text, Blob string }
		ok(t, "resources/read text", &text)
		if len(text) != 1 || !strings.HasPrefix(text[0].Text, "# rpcgen MCP example") {
			t.Errorf("%s, step resources/read text: %+v", peer, text)
		}
		ok(t, "resources/read blob", &blob)
		if len(blob) != 1 || blob[0].MimeType != "image/png" || !strings.HasPrefix(blob[0].Blob, "iVBORw0KGgo") {
			t.Errorf("%s, step resources/read blob: %+v", peer, blob)
		}
		fails(t, "resources/read unknown", -32002)
		var sub struct {
			Text    string
			Updated struct{ URI string }
			Notes   []struct{ Text string }
		}
		ok(t, "resources/subscribe and update", &sub)
		if sub.Updated.URI != "notes://all" || len(sub.Notes) != 1 || sub.Notes[0].Text != "from the SDK" {
			t.Errorf("%s, step resources/subscribe and update: %+v", peer, sub)
		}
	})
	t.Run("prompts", func(t *testing.T) {
		var list []struct{ Name string }
		ok(t, "prompts/list", &list)
		if len(list) != 1 || list[0].Name != "review" {
			t.Errorf("%s, step prompts/list: %+v", peer, list)
		}
		var msgs []struct {
			Role    string
			Content struct{ Type, Text, URI string }
		}
		ok(t, "prompts/get", &msgs)
		if len(msgs) != 2 || msgs[0].Content.Text != "Please review this go:\n\nx := 1" ||
			msgs[1].Content.Type != "resource_link" || msgs[1].Content.URI != "example://readme" {
			t.Errorf("%s, step prompts/get: %+v", peer, msgs)
		}
		var c struct{ Values []string }
		ok(t, "completion/complete", &c)
		if !reflect.DeepEqual(c.Values, []string{"java", "javascript"}) {
			t.Errorf("%s, step completion/complete: %+v", peer, c)
		}
		ok(t, "logging/setLevel", nil)
	})
	t.Run("server-to-client requests", func(t *testing.T) {
		if got := texts(t, "server asks roots/list"); got != "1 roots\nfile:///tmp/mcpts-root mcpts-root" {
			t.Errorf("%s, step server asks roots/list: %q", peer, got)
		}
		if got := texts(t, "server asks sampling/createMessage"); got != "sdk says: say hi [model sdk-model]" {
			t.Errorf("%s, step server asks sampling/createMessage: %q", peer, got)
		}
		if got := texts(t, "server asks elicitation/create"); got != `answer: "nö", confident: false` {
			t.Errorf("%s, step server asks elicitation/create: %q", peer, got)
		}
		if got := texts(t, "server sends ping"); !strings.HasPrefix(got, "pong in ") {
			t.Errorf("%s, step server sends ping: %q", peer, got)
		}
		var changed struct{ RootsRequestsBefore, RootsRequestsAfter int }
		ok(t, "roots list_changed makes the server ask again", &changed)
		if changed.RootsRequestsAfter != changed.RootsRequestsBefore+1 {
			t.Errorf("%s, step roots list_changed: %+v", peer, changed)
		}
		var tools []string
		ok(t, "tools list_changed", &tools)
		if !slices.Contains(tools, "shout") {
			t.Errorf("%s, step tools list_changed: shout missing from %v", peer, tools)
		}
		var asked []string
		ok(t, "server requests answered", &asked)
		want := []string{"roots/list", "sampling/createMessage", "elicitation/create", "roots/list"}
		if !reflect.DeepEqual(asked, want) {
			t.Errorf("%s, step server requests answered: %v, want %v", peer, asked, want)
		}
		// Every request our server sent got exactly one response.
		_, msgs := readTraffic(logPath)
		for _, req := range msgs {
			if req.dir != toClient || req.msg.Method == "" || len(req.msg.ID) == 0 {
				continue
			}
			n := 0
			for _, resp := range msgs {
				if resp.dir == toServer && resp.msg.Method == "" && bytes.Equal(resp.msg.ID, req.msg.ID) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%s: our server's request %s got %d responses", peer, req.raw, n)
			}
		}
	})
	t.Run("task input_required", func(t *testing.T) {
		var r struct {
			Statuses []string
			Text     string
			Requests []string
		}
		ok(t, "task input_required", &r)
		if len(r.Statuses) == 0 || r.Statuses[len(r.Statuses)-1] != "input_required" ||
			r.Text != `answer: "nö", confident: false` || !reflect.DeepEqual(r.Requests, []string{"elicitation/create"}) {
			t.Errorf("%s, step task input_required: %+v", peer, r)
		}
	})
	t.Run("close", func(t *testing.T) {
		ok(t, "close", nil)
		checkClose(t, steps["close"])
	})
}
