package mcp_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/internal/exampletest"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/streamhttp"
)

// The scenarios over Streamable HTTP: the example server started with
// -http, the test client and the client example connecting to its URL.

// httpPrefix starts the names of the tests that spawn runs over HTTP.
const httpPrefix = "TestOverHTTP/"

// overHTTP reports whether t runs its scenario over HTTP.
func overHTTP(t *testing.T) bool { return strings.HasPrefix(t.Name(), httpPrefix) }

// TestOverHTTP runs the scenarios of the stdio tests again with the server
// on -http and the test client on streamhttp.Dial.
func TestOverHTTP(t *testing.T) {
	for _, tc := range []struct {
		name string
		test func(*testing.T)
	}{
		{"VersionNegotiation", TestVersionNegotiation},
		{"PingBothWays", TestPingBothWays},
		{"Tools", TestTools},
		{"ProgressAndCancellation", TestProgressAndCancellation},
		{"Resources", TestResources},
		{"PromptsAndListChanges", TestPromptsAndListChanges},
		{"Completion", TestCompletion},
		{"CompletionCoversEveryPrompt", TestCompletionCoversEveryPrompt},
		{"Logging", TestLogging},
		{"Tasks", TestTasks},
		{"TaskInputRequired", TestTaskInputRequired},
		{"ServerFetchesInputRequiredTask", TestServerFetchesInputRequiredTask},
		{"TaskInputSurvivesCancelledResult", TestTaskInputSurvivesCancelledResult},
		{"Roots", TestRoots},
		{"Sampling", TestSampling},
		{"ServerCancelsItsRequest", TestServerCancelsItsRequest},
		{"Elicitation", TestElicitation},
		{"NotesAreBounded", TestNotesAreBounded},
		{"TasksPerSessionAreCapped", TestTasksPerSessionAreCapped},
		{"CallTimeoutCancels", TestCallTimeoutCancels},
		{"InitializeTimeoutCloses", TestInitializeTimeoutCloses},
		{"NoteDefaultBound", TestNoteDefaultBound},
		{"ToolArgumentErrorsSpeakJSON", TestToolArgumentErrorsSpeakJSON},
		{"SubscriptionsAreCapped", TestSubscriptionsAreCapped},
		{"ErrorsTruncateClientValues", TestErrorsTruncateClientValues},
	} {
		t.Run(tc.name, tc.test)
	}
}

// httpServer starts the example server with -http on a free loopback port
// and args, and returns its endpoint's URL and its stderr. At cleanup it
// stops the server with SIGTERM, which must end it with status 0.
func httpServer(t *testing.T, args ...string) (string, *exampletest.Lines) {
	t.Helper()
	stderr := exampletest.NewLines()
	cmd := exec.Command(*bin["server"], append([]string{"-http", "127.0.0.1:0"}, args...)...)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the server: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("the server ended with %v after SIGTERM; stderr:\n%s", err, stderr)
			}
		case <-time.After(wait):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("the server did not stop within %s of SIGTERM; stderr:\n%s", wait, stderr)
		}
	})
	line := stderr.Wait(t, "server", "listening on http://", 1, wait)[0]
	url := line[strings.Index(line, "http://"):]
	if !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("the server announced %q; want a URL ending in /mcp", line)
	}
	return url, stderr
}

// dialHTTP starts the server with -http and args and connects the test
// client to it over Streamable HTTP, without initializing.
func dialHTTP(t *testing.T, s *session, opts jsonrpc.Options, args ...string) {
	t.Helper()
	url, _ := httpServer(t, args...)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	stream, err := streamhttp.Dial(bounded(t), url, mcp.HTTP, streamhttp.ClientOptions{HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatalf("dialing %s: %v", url, err)
	}
	s.conn, s.srv = mcp.ConnectClient(stream, s.c, opts)
	t.Cleanup(func() { s.conn.Close() })
}

// TestClientExampleOverHTTP runs the client example's calls with -url
// against one server started with -http: each run is a session of its own,
// which the client ends with DELETE.
func TestClientExampleOverHTTP(t *testing.T) {
	url, stderr := httpServer(t)
	cases := clientCases(t.TempDir())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := runClientURL(t, url, append([]string{"-list=false"}, tc.args...)...)
			if run.call == nil {
				t.Fatalf("no call result\n%s", run.stderr)
			}
			if got := textOf(run.call); !strings.Contains(got, tc.want) || isError(run.call) != tc.error {
				t.Errorf("result %q (error %t); want %q (error %t)", got, isError(run.call), tc.want, tc.error)
			}
		})
	}
	// Every session ended on the server: the client's DELETE (or, had it
	// not sent one, nothing) closed it.
	stderr.Wait(t, "server", `msg="session ended"`, len(cases), wait)

	run := runClientURL(t, url, "-read", "greeting://Bob")
	if run.read == nil || len(run.read.Contents) != 1 || run.read.Contents[0].TextResourceContents == nil ||
		run.read.Contents[0].TextResourceContents.Text != "Hello, Bob!" {
		t.Errorf("read %+v", run.read)
	}
	if len(run.list["tools"]) < 3 || len(run.list["prompts"]) < 3 {
		t.Errorf("lists %v", run.list)
	}
	if _, _, err := execClientArgs("-url", url, "--", *bin["server"]); !isExit(err, 2) {
		t.Errorf("-url with a server command: %v; want exit status 2", err)
	}
}

// isExit reports whether err is an exit with the status code.
func isExit(err error, code int) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit) && exit.ExitCode() == code
}

// runClientURL runs the client example with -url, which must succeed.
func runClientURL(t *testing.T, url string, args ...string) clientRun {
	t.Helper()
	stdout, stderr, err := execClientArgs(append([]string{"-url", url}, args...)...)
	return decodeRun(t, args, stdout, stderr, err)
}

// rawHTTP is a bare Streamable HTTP client for checking where messages go.
type rawHTTP struct {
	t       *testing.T
	url     string
	client  *http.Client
	session string
}

// post sends msg and returns the answer's event stream (or JSON body) as
// a channel of the JSON messages in it, closed when the answer ends.
func (c *rawHTTP) post(msg string) <-chan string {
	c.t.Helper()
	req, err := http.NewRequestWithContext(bounded(c.t), http.MethodPost, c.url, strings.NewReader(msg))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		c.t.Fatalf("POST %s: %v", msg, err)
	}
	if resp.StatusCode/100 != 2 {
		resp.Body.Close()
		c.t.Fatalf("POST %s: %s", msg, resp.Status)
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		c.session = sid
	}
	out := make(chan string, 16)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			line := sc.Text()
			if data, ok := strings.CutPrefix(line, "data:"); ok && strings.TrimSpace(data) != "" {
				out <- strings.TrimSpace(data)
			} else if strings.HasPrefix(line, "{") {
				out <- line
			}
		}
	}()
	return out
}

// TestTaskInputOnResultStream checks the input_required flow on the wire:
// the elicitation of a task that needs input arrives on the event stream
// answering tasks/result, and that same stream then carries the task's
// result.
func TestTaskInputOnResultStream(t *testing.T) {
	url, _ := httpServer(t)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c := &rawHTTP{t: t, url: url, client: &http.Client{Transport: tr}}
	drain := func(ch <-chan string) []string {
		var all []string
		for m := range ch {
			all = append(all, m)
		}
		return all
	}
	drain(c.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
		`"capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"raw","version":"1"}}}`))
	drain(c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	created := drain(c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{"question":"q?"},"task":{"ttl":60000}}}`))
	var task struct {
		Result struct{ Task mcp.Task }
	}
	if len(created) != 1 || json.Unmarshal([]byte(created[0]), &task) != nil || task.Result.Task.TaskID == "" {
		t.Fatalf("tools/call as a task answered %q", created)
	}
	id := task.Result.Task.TaskID
	stream := c.post(`{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"` + id + `"}}`)
	var ask struct {
		ID     json.RawMessage
		Method string
		Params struct {
			Meta map[string]struct{ TaskID string } `json:"_meta"`
		}
	}
	if err := json.Unmarshal([]byte(recv(t, stream, "the elicitation on the tasks/result stream")), &ask); err != nil ||
		ask.Method != mcp.MethodElicit || ask.Params.Meta["io.modelcontextprotocol/related-task"].TaskID != id {
		t.Fatalf("first message on the tasks/result stream: %+v, %v", ask, err)
	}
	drain(c.post(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"action":"accept","content":{"answer":"raw","confident":false}}}`))
	rest := drain(stream)
	if len(rest) != 1 || !strings.Contains(rest[0], `"id":3`) || !strings.Contains(rest[0], `answer: \"raw\", confident: false`) {
		t.Fatalf("the rest of the tasks/result stream: %q", rest)
	}
}
