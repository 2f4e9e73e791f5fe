package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// The MCP protocol rows (BenchmarkMCP): the same work done by three MCP
// implementations, each as server and client of itself, in one process:
// rpcgen's generated mcp package, the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) and github.com/mark3labs/mcp-go;
// and by preencoded, the floor of the transport (mcp_preencoded.go).
// Over stdio the two sides are joined by two OS pipes, one per direction;
// over Streamable HTTP by a loopback httptest server. Every server offers
// the same 50 tools (mcpCatalog); the client lists them, calls search
// (structured content and a text block) and progress (a stream of
// notifications/progress, then a text answer). Each implementation builds
// its tools and answers with its own ordinary API: what a user of it would
// write. This file holds what they share; mcp_<impl>.go holds each one.

// mcpTransports are the transports of the MCP rows, in benchmark order.
var mcpTransports = []string{"stdio", "http"}

// mcpEndpoint is one implementation's server, reachable over one transport.
// Over stdio every session gets a server session of its own on new pipes;
// over HTTP all sessions share one loopback server.
type mcpEndpoint interface {
	// Connect opens a client session and completes its handshake
	// (initialize, then notifications/initialized).
	Connect(ctx context.Context) (mcpClientSession, error)
	// Close stops the server and waits for its goroutines.
	Close() error
}

// mcpClientSession is an initialized client session.
type mcpClientSession interface {
	// ListTools calls tools/list and returns the tools as the client's API
	// gives them.
	ListTools(ctx context.Context) (mcpToolList, error)
	// Search calls the tool search and decodes its structured content.
	Search(ctx context.Context, args mcpSearchArgs) (mcpSearchAnswer, error)
	// Progress calls the tool progress with steps and a progress token; it
	// returns once the answer has come and w has seen every notification.
	Progress(ctx context.Context, w *mcpProgressWaiter) error
	// Close ends the session (and, over stdio, its server session).
	Close() error
}

// mcpToolList is the answer to tools/list in an implementation's own types.
type mcpToolList interface {
	// Len returns the number of tools.
	Len() int
	// Canon returns the tools in a common form, for the tests.
	Canon() ([]mcpCanonTool, error)
}

// mcpCanonTool is what the tests compare of a listed tool: its name, its
// description and its input schema decoded from JSON.
type mcpCanonTool struct {
	Name, Description string
	InputSchema       map[string]any
}

// mcpImplementation is one MCP implementation under test.
type mcpImplementation struct {
	name  string
	serve func(ctx context.Context, transport string) (mcpEndpoint, error)
	// cannot gives, by "op/transport", why the implementation cannot do
	// that op here: the benchmark skips it (the tests accept a known loss of
	// one progress notification per call).
	cannot map[string]string
}

// mcpImplementations are the implementations of the MCP rows, in benchmark
// order.
var mcpImplementations = []mcpImplementation{
	{name: "rpcgen", serve: serveMCPRPCGen},
	{name: "gosdk", serve: serveMCPGoSDK},
	{name: "mcpgo", serve: serveMCPGo, cannot: map[string]string{
		"progress/http":    "mcp-go v1.2.1 over Streamable HTTP loses one of the call's progress notifications in most calls (TestMCPSameWork)",
		"initialize/stdio": "mcp-go v1.2.1 keeps its stdio session in a package variable; a new StdioServer per session in one process hangs in initialize after some hundreds of sessions",
	}},
	{name: "preencoded", serve: serveMCPPreencoded},
}

// mcpProp is one property of a tool's input schema.
type mcpProp struct {
	Name, Type, Description string // Type: string, integer or boolean
	Enum                    []string
}

// mcpToolDef is one tool of the catalogue, independent of any
// implementation.
type mcpToolDef struct {
	Name, Description string
	Props             []mcpProp
	Required          []string
}

// mcpToolCount is the number of tools every server offers.
const mcpToolCount = 50

// The tools the rows call.
const (
	mcpToolSearch   = "search"
	mcpToolProgress = "progress"
)

// mcpProgressSteps is the number of notifications/progress per call of the
// tool progress.
const mcpProgressSteps = 1000

// mcpCatalog returns the 50 tools: search and progress, then 48 of the
// kind a code-hosting server offers, each with three to five properties.
func mcpCatalog() []mcpToolDef {
	tools := []mcpToolDef{
		{Name: mcpToolSearch, Description: "Search the issues of a repository. Returns the best matches with their scores.",
			Props: []mcpProp{
				{Name: "query", Type: "string", Description: "Words to look for in titles and bodies."},
				{Name: "limit", Type: "integer", Description: "Most results to return, from 1 to 20."},
				{Name: "sort", Type: "string", Description: "Order of the results.", Enum: []string{"relevance", "created", "updated"}},
			},
			Required: []string{"query"}},
		{Name: mcpToolProgress, Description: "Run a long job, reporting progress once per step.",
			Props: []mcpProp{
				{Name: "steps", Type: "integer", Description: "Number of steps to run."},
				{Name: "label", Type: "string", Description: "Name of the job, for the logs."},
			},
			Required: []string{"steps"}},
	}
	verbs := []string{"get", "list", "create", "update", "delete", "archive"}
	nouns := []string{"issue", "pull_request", "branch", "release", "label", "milestone", "comment", "workflow"}
	for _, noun := range nouns {
		for _, verb := range verbs {
			props := []mcpProp{
				{Name: "owner", Type: "string", Description: "Account that owns the repository."},
				{Name: "repo", Type: "string", Description: "Name of the repository, without the owner."},
				{Name: "id", Type: "integer", Description: fmt.Sprintf("Number of the %s.", noun)},
			}
			if verb == "list" || verb == "update" {
				props = append(props, mcpProp{Name: "state", Type: "string", Description: "State to filter or set.", Enum: []string{"open", "closed", "all"}})
			}
			if verb == "delete" || verb == "archive" {
				props = append(props, mcpProp{Name: "dry_run", Type: "boolean", Description: "Report what would change without changing it."})
			}
			tools = append(tools, mcpToolDef{
				Name:        verb + "_" + noun,
				Description: fmt.Sprintf("%s a %s of a repository. Answers with the %s as JSON.", verb, noun, noun),
				Props:       props,
				Required:    []string{"owner", "repo"},
			})
		}
	}
	return tools
}

// mcpSearchArgs are the arguments of the tool search.
type mcpSearchArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
	Sort  string `json:"sort,omitempty"`
}

// mcpHit is one result of search.
type mcpHit struct {
	ID    int64   `json:"id"`
	Title string  `json:"title"`
	State string  `json:"state"`
	Score float64 `json:"score"`
}

// mcpSearchResult is the structured content of search's answer. Sort
// repeats the argument, so that the tests see every server decode all
// three arguments.
type mcpSearchResult struct {
	Query string   `json:"query"`
	Sort  string   `json:"sort"`
	Total int      `json:"total"`
	Hits  []mcpHit `json:"hits"`
}

// mcpSearchAnswer is what a client makes of search's answer: the
// structured content decoded, and the text block.
type mcpSearchAnswer struct {
	Result mcpSearchResult
	Text   string
}

// mcpSearchBenchArgs are the arguments the rows pass to search.
var mcpSearchBenchArgs = mcpSearchArgs{Query: "memory leak in the reader", Limit: 5, Sort: "relevance"}

// mcpSearch computes search's answer: limit hits derived from the query.
func mcpSearch(a mcpSearchArgs) mcpSearchResult {
	r := mcpSearchResult{Query: a.Query, Sort: a.Sort, Total: 1200 + len(a.Query), Hits: make([]mcpHit, 0, a.Limit)}
	for i := range a.Limit {
		state := "open"
		if i%2 == 1 {
			state = "closed"
		}
		r.Hits = append(r.Hits, mcpHit{ID: int64(4000 + i*37), Title: fmt.Sprintf("%s (case %d)", a.Query, i+1),
			State: state, Score: 1 / float64(i+2)})
	}
	return r
}

// equal reports whether r and o are the same result.
func (r mcpSearchResult) equal(o mcpSearchResult) bool {
	if r.Query != o.Query || r.Sort != o.Sort || r.Total != o.Total || len(r.Hits) != len(o.Hits) {
		return false
	}
	for i := range r.Hits {
		if r.Hits[i] != o.Hits[i] {
			return false
		}
	}
	return true
}

// errMCPBadAnswer reports an answer that is not the one expected.
var errMCPBadAnswer = errors.New("unexpected answer")

// mcpProgressWaiter counts the notifications/progress a client receives for
// one call of the tool progress.
type mcpProgressWaiter struct {
	token int64
	steps int
	want  int64 // notifications to wait for: steps, or fewer for a cannot implementation
	n     atomic.Int64
	sum   atomic.Int64 // of the progress values, to check each step came once
	bad   atomic.Pointer[string]
	done  chan struct{}
}

// newMCPProgressWaiter returns a waiter for a call asking for steps
// notifications carrying token, which waits for want of them.
func newMCPProgressWaiter(token int64, steps, want int) *mcpProgressWaiter {
	return &mcpProgressWaiter{token: token, steps: steps, want: int64(want), done: make(chan struct{})}
}

// tick records one notification. One of an earlier call, arriving late,
// is ignored.
func (w *mcpProgressWaiter) tick(token int64, progress float64) {
	if token < w.token && token > 0 {
		return
	}
	if token != w.token {
		msg := fmt.Sprintf("progress token %d, want %d", token, w.token)
		w.bad.CompareAndSwap(nil, &msg)
		return
	}
	w.sum.Add(int64(progress))
	if w.n.Add(1) == w.want {
		close(w.done)
	}
}

// wait returns once every notification has come, or an error when the
// call failed, a notification was wrong, or none came for a long time.
func (w *mcpProgressWaiter) wait(ctx context.Context) error {
	if bad := w.bad.Load(); bad != nil {
		return errors.New(*bad)
	}
	select {
	case <-w.done:
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Minute): // turns a lost notification into a failure
		return fmt.Errorf("saw %d of %d progress notifications", w.n.Load(), w.want)
	}
	if bad := w.bad.Load(); bad != nil {
		return errors.New(*bad)
	}
	return nil
}

// mcpWaiterSlot holds the waiter of the call in progress, for a client's
// notification handler.
type mcpWaiterSlot struct {
	p atomic.Pointer[mcpProgressWaiter]
}

// tick passes a notification to the current waiter.
func (s *mcpWaiterSlot) tick(token int64, progress float64) {
	if w := s.p.Load(); w != nil {
		w.tick(token, progress)
	}
}

// mcpCanonOf converts the tools a client received to their common form,
// through their JSON: the input schema keeps type, properties and required.
func mcpCanonOf[T any](tools []T, get func(T) (name, description string, schema any)) ([]mcpCanonTool, error) {
	out := make([]mcpCanonTool, 0, len(tools))
	for _, t := range tools {
		name, desc, schema := get(t)
		raw, err := json.Marshal(schema)
		if err != nil {
			return nil, fmt.Errorf("tool %s: encoding the input schema: %w", name, err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("tool %s: decoding the input schema: %w", name, err)
		}
		keep := map[string]any{}
		for _, k := range []string{"type", "properties", "required"} {
			if v, ok := m[k]; ok {
				keep[k] = v
			}
		}
		out = append(out, mcpCanonTool{Name: name, Description: desc, InputSchema: keep})
	}
	return out, nil
}
