package supex_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
)

// upstreamRuntime replays the upstream Supex runtime from
// testdata/upstream_runtime.txt (its source file and revision are named
// there). Like upstream's bridge server, it answers hello and reads on,
// and answers any other request and then closes the connection. It
// closes only once the driver has sent more or closed its side: the
// latest upstream may close (it logs before closing), so a driver that
// sends a request on the connection after an answer always meets the
// close.
type upstreamRuntime struct {
	addr    string
	answers map[string]string // request key -> answer, id written as 0

	mu       sync.Mutex
	conns    [][]string // lines read on each connection, in order
	unread   []string   // lines sent after the answer, never answered
	unknown  []string   // requests with no recorded answer
	open     []net.Conn
	finished sync.WaitGroup
}

// startUpstream starts the replay on a free loopback port.
func startUpstream(t *testing.T) *upstreamRuntime {
	t.Helper()
	b, err := os.ReadFile("testdata/upstream_runtime.txt")
	if err != nil {
		t.Fatal(err)
	}
	u := &upstreamRuntime{answers: map[string]string{}}
	for line := range strings.SplitSeq(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, answer, ok := strings.Cut(line, "\t")
		if !ok || !json.Valid([]byte(answer)) || !strings.HasSuffix(answer, `"id":0}`) {
			t.Fatalf("bad replay line %q", line)
		}
		u.answers[key] = answer
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u.addr = ln.Addr().String()
	u.finished.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u.mu.Lock()
			u.open = append(u.open, c)
			u.conns = append(u.conns, nil)
			n := len(u.conns) - 1
			u.mu.Unlock()
			u.finished.Go(func() { u.serve(c, n) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		u.mu.Lock()
		for _, c := range u.open {
			c.Close()
		}
		u.mu.Unlock()
		u.finished.Wait()
	})
	return u
}

// serve runs one connection.
func (u *upstreamRuntime) serve(c net.Conn, n int) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		key, id := requestKey(line)
		u.mu.Lock()
		u.conns[n] = append(u.conns[n], strings.TrimSuffix(line, "\n"))
		answer, ok := u.answers[key]
		if !ok {
			u.unknown = append(u.unknown, key)
			answer = `{"jsonrpc":"2.0","error":{"code":-1,"message":"no recorded answer"},"id":0}`
		}
		u.mu.Unlock()
		if _, err := c.Write([]byte(strings.TrimSuffix(answer, "0}") + id + "}\n")); err != nil {
			return
		}
		if key == "hello" {
			continue
		}
		if more, err := br.ReadString('\n'); err == nil {
			u.mu.Lock()
			u.unread = append(u.unread, strings.TrimSuffix(more, "\n"))
			u.mu.Unlock()
		}
		return
	}
}

// requestKey returns the key of a request line in the replay table, and
// its id as sent.
func requestKey(line string) (string, string) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal([]byte(line), &req) != nil {
		return "unparsable " + line, "null"
	}
	if req.Method != "tools/call" {
		return req.Method, string(req.ID)
	}
	args := "-"
	if req.Params.Arguments != nil {
		var b bytes.Buffer
		json.Compact(&b, req.Params.Arguments)
		args = b.String()
	}
	return "tools/call " + req.Params.Name + " " + args, string(req.ID)
}

// seen returns what the replay read, and the requests it had no answer to.
func (u *upstreamRuntime) seen() (conns [][]string, unread, unknown []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, c := range u.conns {
		conns = append(conns, append([]string(nil), c...))
	}
	return conns, append([]string(nil), u.unread...), append([]string(nil), u.unknown...)
}

// upstreamEnv points the driver at u.
func upstreamEnv(u *upstreamRuntime, extra ...string) []string {
	host, port, _ := net.SplitHostPort(u.addr)
	return append([]string{"SUPEX_HOST=" + host, "SUPEX_PORT=" + port}, extra...)
}

// runShell runs the driver's shell with the given command lines and
// checks each output line contains its want.
func runShell(t *testing.T, env []string, lines, wants []string, args ...string) {
	t.Helper()
	code, stdout, stderr := runDriver(t, strings.Join(lines, "\n")+"\n", env, append(append([]string{"-raw"}, args...), "shell")...)
	out := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(out) != len(lines) {
		t.Fatalf("exit %d, %d output lines for %d commands:\n%s\nstderr:\n%s", code, len(out), len(lines), stdout, stderr)
	}
	for i, line := range lines {
		if !strings.Contains(out[i], wants[i]) {
			t.Errorf("%s: got %s, want it to contain %s", line, out[i], wants[i])
		}
	}
}

// Upstream's runtime closes the connection after every request but hello,
// answers every tool failure with -32603, and fails when tools/call has no
// arguments member. The driver connects for each request, tells the
// failures apart, and always sends arguments.
func TestDriverAgainstUpstreamRuntime(t *testing.T) {
	u := startUpstream(t)
	cmds := []struct{ line, want string }{
		{"status", `"sketchup_version":"26.0.429"`},
		{"ping", `"status":"ok"`},
		{"resources", `"id":4211`},
		{"info", `"title":"Untitled"`},
		{"entities", `"entity_type":"all"`},
		{"screenshot", `"format":"png"`},
		{"save", `"file_name":"house.skp"`},
		{"eval 1 +", `"kind":"tool_failed"`},
		{"eval raise 'boom'", `"kind":"tool_failed"`},
		{"open /etc/passwd.skp", `"kind":"path_denied"`},
		{"eval-file /etc/hosts", `"kind":"path_denied"`},
		{"export dae", `"kind":"tool_failed"`},
		{"tool no_such_tool", `"kind":"unknown_tool"`},
	}
	var lines, wants []string
	for _, c := range cmds {
		lines, wants = append(lines, c.line), append(wants, c.want)
	}
	runShell(t, upstreamEnv(u), lines, wants)

	conns, unread, unknown := u.seen()
	if len(unknown) > 0 {
		t.Errorf("requests upstream's answers do not cover: %q", unknown)
	}
	if len(unread) > 0 {
		t.Errorf("requests sent after the runtime's answer, which it never reads: %q", unread)
	}
	if len(conns) != len(cmds)+1 { // status makes two requests
		t.Errorf("%d connections for %d requests", len(conns), len(cmds)+1)
	}
	for _, c := range conns {
		if len(c) != 2 || !strings.Contains(c[0], `"method":"hello"`) {
			t.Errorf("connection read %q, want hello then one request", c)
			continue
		}
		if strings.Contains(c[1], `"method":"tools/call"`) && !strings.Contains(c[1], `"arguments":{`) {
			t.Errorf("tools/call without arguments: %s", c[1])
		}
		for _, tool := range []string{"get_model_info", "list_entities", "take_screenshot", "save_model", "no_such_tool"} {
			if strings.Contains(c[1], `"name":"`+tool+`"`) && !strings.Contains(c[1], `"arguments":{}`) {
				t.Errorf("%s: sent %s, want \"arguments\":{}", tool, c[1])
			}
		}
	}
}

// With -reuse the driver sends on a connection the runtime is about to
// close: ping and resources/list (idempotent) and the tools that only
// read are sent again on a new connection; save is not, since the runtime
// may have run it.
func TestDriverReuseAgainstUpstreamRuntime(t *testing.T) {
	u := startUpstream(t)
	runShell(t, upstreamEnv(u),
		[]string{"ping", "ping", "resources", "info", "save"},
		[]string{`"status":"ok"`, `"status":"ok"`, `"id":4211`, `"title":"Untitled"`, `"kind":"connection_lost"`},
		"-reuse")
	_, unread, unknown := u.seen()
	if len(unknown) > 0 {
		t.Errorf("requests upstream's answers do not cover: %q", unknown)
	}
	saves := 0
	for _, l := range unread {
		saves += strings.Count(l, `"name":"save_model"`)
	}
	if len(unread) != 4 || saves != 1 {
		t.Errorf("unanswered requests %q: want the second ping, resources, info and save, once each", unread)
	}
}
