package mcpts_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// everything is the entry point of @modelcontextprotocol/server-everything
// (its package.json "bin"), relative to node_modules.
const everything = "@modelcontextprotocol/server-everything/dist/index.js"

// clientRun is one run of examples/mcp/client against server-everything.
type clientRun struct {
	peer    string
	lines   map[string]json.RawMessage // its stdout, by the key of each line
	traffic string
	msgs    []wireMessage
	stderr  string
}

// runClient runs examples/mcp/client with flags against server-everything
// over stdio, behind the recording proxy, and reads what it printed.
func runClient(t *testing.T, step string, flags ...string) *clientRun {
	t.Helper()
	modules := needNode(t)
	logPath := filepath.Join(t.TempDir(), "traffic.log")
	ctx, cancel := context.WithTimeout(context.Background(), 2*wait)
	defer cancel()
	args := append(slices.Clone(flags), "-timeout", wait.String(), "--")
	args = append(args, proxyCommand(t, logPath, "node", filepath.Join(modules, everything), "stdio")...)
	cmd := exec.CommandContext(ctx, clientBin, args...)
	cmd.WaitDelay = wait
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	r := &clientRun{peer: "examples/mcp/client -> server-everything, step " + step, lines: map[string]json.RawMessage{}, stderr: stderr.String()}
	r.traffic, r.msgs = readTraffic(logPath)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("peer: %s\ncommand: client %s\n--- bytes exchanged (-> to server-everything, <- to our client) ---\n%s"+
				"--- client stdout ---\n%s--- client stderr (with the server's) ---\n%s",
				r.peer, strings.Join(args, " "), r.traffic, stdout.String(), r.stderr)
		}
	})
	if runErr != nil {
		t.Fatalf("%s: the client failed: %v", r.peer, runErr)
	}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("%s: the client printed a line that is not a JSON object: %q", r.peer, sc.Text())
		}
		for k, v := range line {
			r.lines[k] = v
		}
	}
	return r
}

// get decodes the client's output line named key.
func (r *clientRun) get(t *testing.T, key string, v any) {
	t.Helper()
	raw, ok := r.lines[key]
	if !ok {
		t.Fatalf("%s: the client printed no %q line", r.peer, key)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: the %q line %s: %v", r.peer, key, raw, err)
	}
}

// callText returns the text of the client's tools/call result.
func (r *clientRun) callText(t *testing.T) string {
	t.Helper()
	var res struct {
		Content []struct{ Type, Text string }
		IsError bool
	}
	r.get(t, "call", &res)
	if res.IsError {
		t.Errorf("%s: the tool reported an error: %+v", r.peer, res.Content)
	}
	var sb strings.Builder
	for _, c := range res.Content {
		sb.WriteString(c.Text)
	}
	return sb.String()
}

// answered checks that server-everything sent method to our client and got
// exactly one successful response with the same id, and returns the
// request and the response as sent.
func (r *clientRun) answered(t *testing.T, method string) (req, resp wireMessage) {
	t.Helper()
	for _, m := range r.msgs {
		if m.dir == toClient && m.msg.Method == method {
			req = m
			break
		}
	}
	if req.raw == "" {
		t.Fatalf("%s: server-everything sent no %s request", r.peer, method)
	}
	n := 0
	for _, m := range r.msgs {
		if m.dir == toServer && m.msg.Method == "" && bytes.Equal(m.msg.ID, req.msg.ID) {
			resp = m
			n++
		}
	}
	if n != 1 || len(resp.msg.Result) == 0 || len(resp.msg.Error) != 0 {
		t.Fatalf("%s: server-everything's %s (id %s) got %d responses, the last %s", r.peer, method, req.msg.ID, n, resp.raw)
	}
	return req, resp
}

// TestOurClientAgainstServerEverything runs examples/mcp/client against
// the official reference server, three times at once (each session spends
// the client's grace period on a server that outlives its stdin).
func TestOurClientAgainstServerEverything(t *testing.T) {
	needNode(t)
	t.Run("negotiation, lists, read, prompt, echo", func(t *testing.T) {
		t.Parallel()
		r := runClient(t, "negotiation, lists, read, prompt, echo",
			"-read", "demo://resource/static/document/architecture.md",
			"-prompt", "simple-prompt",
			"-call", "echo", "-args", `{"message":"héllo, 世界 🌍"}`)
		var init struct {
			ProtocolVersion string
			ServerInfo      struct{ Name string }
			Capabilities    map[string]json.RawMessage
		}
		r.get(t, "initialize", &init)
		if init.ProtocolVersion != "2025-11-25" || init.ServerInfo.Name != "mcp-servers/everything" {
			t.Errorf("%s: initialize: revision %q, server %+v", r.peer, init.ProtocolVersion, init.ServerInfo)
		}
		for _, c := range []string{"tools", "resources", "prompts", "logging"} {
			if _, ok := init.Capabilities[c]; !ok {
				t.Errorf("%s: initialize: capability %s missing from %v", r.peer, c, init.Capabilities)
			}
		}
		var lists struct {
			Tools, Resources, Prompts []struct{ Name, URI string }
			ResourceTemplates         []struct{ URITemplate string }
		}
		r.get(t, "list", &lists)
		names := func(items []struct{ Name, URI string }, uri bool) []string {
			var out []string
			for _, i := range items {
				if uri {
					out = append(out, i.URI)
				} else {
					out = append(out, i.Name)
				}
			}
			return out
		}
		tools := names(lists.Tools, false)
		// The conditional tools are there because our client offered roots
		// and sampling: server-everything adds them on initialized.
		for _, want := range []string{"echo", "get-sum", "get-roots-list", "trigger-sampling-request"} {
			if !slices.Contains(tools, want) {
				t.Errorf("%s: tools/list: %s missing from %v", r.peer, want, tools)
			}
		}
		if !slices.Contains(names(lists.Resources, true), "demo://resource/static/document/architecture.md") {
			t.Errorf("%s: resources/list: %v", r.peer, names(lists.Resources, true))
		}
		if len(lists.ResourceTemplates) == 0 {
			t.Errorf("%s: resources/templates/list is empty", r.peer)
		}
		if !slices.Contains(names(lists.Prompts, false), "simple-prompt") {
			t.Errorf("%s: prompts/list: %v", r.peer, names(lists.Prompts, false))
		}
		var read struct {
			Contents []struct{ URI, MimeType, Text string }
		}
		r.get(t, "read", &read)
		if len(read.Contents) != 1 || read.Contents[0].MimeType != "text/markdown" || !strings.Contains(read.Contents[0].Text, "Architecture") {
			t.Errorf("%s: resources/read: %+v", r.peer, read)
		}
		var prompt struct {
			Messages []struct {
				Role    string
				Content struct{ Type, Text string }
			}
		}
		r.get(t, "prompt", &prompt)
		if len(prompt.Messages) != 1 || prompt.Messages[0].Content.Text != "This is a simple prompt without arguments." {
			t.Errorf("%s: prompts/get: %+v", r.peer, prompt)
		}
		if got := r.callText(t); got != "Echo: héllo, 世界 🌍" {
			t.Errorf("%s: tools/call echo: %q", r.peer, got)
		}
	})
	t.Run("sampling/createMessage", func(t *testing.T) {
		t.Parallel()
		r := runClient(t, "sampling/createMessage (revision 2025-06-18)", "-list=false", "-protocol-version", "2025-06-18",
			"-call", "trigger-sampling-request", "-args", `{"prompt":"say hi","maxTokens":50}`)
		var init struct{ ProtocolVersion string }
		r.get(t, "initialize", &init)
		if init.ProtocolVersion != "2025-06-18" {
			t.Errorf("%s: asked for revision 2025-06-18, server-everything answered %q", r.peer, init.ProtocolVersion)
		}
		req, resp := r.answered(t, "sampling/createMessage")
		if !strings.Contains(req.raw, "Resource trigger-sampling-request context: say hi") {
			t.Errorf("%s: the sampling request %s does not carry the prompt", r.peer, req.raw)
		}
		var res struct {
			Role, Model string
			Content     struct{ Type, Text string }
		}
		if err := json.Unmarshal(resp.msg.Result, &res); err != nil || res.Model != "echo" ||
			res.Content.Text != "echo: Resource trigger-sampling-request context: say hi" {
			t.Errorf("%s: our answer to sampling/createMessage: %s (%v)", r.peer, resp.raw, err)
		}
		if got := r.callText(t); !strings.Contains(got, `"model": "echo"`) || !strings.Contains(got, "echo: Resource trigger-sampling-request context: say hi") {
			t.Errorf("%s: tools/call trigger-sampling-request: %q", r.peer, got)
		}
	})
	t.Run("roots/list", func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		r := runClient(t, "roots/list", "-list=false", "-root", root, "-call", "get-roots-list")
		req, resp := r.answered(t, "roots/list")
		// server-everything numbers its requests from 0: our client must
		// answer "id":0 as such, not as a missing or null id.
		if string(req.msg.ID) != "0" || !strings.Contains(resp.raw, `"id":0`) {
			t.Errorf("%s: server-everything's roots/list has id %s, our answer %s", r.peer, req.msg.ID, resp.raw)
		}
		if !strings.Contains(resp.raw, `"uri":"file://`+filepath.ToSlash(root)+`"`) {
			t.Errorf("%s: our answer to roots/list %s does not list %s", r.peer, resp.raw, root)
		}
		if got := r.callText(t); !strings.Contains(got, "Current MCP Roots (1 total)") || !strings.Contains(got, "URI: file://"+filepath.ToSlash(root)) {
			t.Errorf("%s: tools/call get-roots-list: %q", r.peer, got)
		}
	})
}
