package bench

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// mcpOps are the operations of BenchmarkMCP, in benchmark order.
var mcpOps = []struct {
	name string
	// run does b.N operations on s, a session on e; initialize opens and
	// closes its own sessions.
	run func(b *testing.B, e mcpEndpoint, s mcpClientSession)
}{
	{"initialize", benchMCPInitialize},
	{"tools-list", benchMCPToolsList},
	{"tools-call", benchMCPToolsCall},
	{"progress", benchMCPProgress},
}

// BenchmarkMCP measures MCP operations done by rpcgen's generated mcp
// package, the official Go SDK and mcp-go, each as server and client of
// itself in one process (see mcp_work.go). Names read
// op=tools-list/transport=stdio/impl=gosdk, so that benchstat can compare
// implementations with -col /impl:
//
//   - initialize: a session from start to end: connect, initialize and
//     notifications/initialized, close (over stdio, with new pipes and a new
//     server session; over HTTP, on the running server);
//   - tools-list: tools/list answering the 50 tools of the catalogue;
//   - tools-call: tools/call of search, answering structured content and a
//     text block, the client decoding the structured content into a struct;
//   - progress: one tools/call during which the server sends 1,000
//     notifications/progress; an op ends once the client has the answer and
//     has seen all 1,000.
//
// Apart from initialize, the session is opened before the timer starts and
// closed after it stops.
func BenchmarkMCP(b *testing.B) {
	for _, op := range mcpOps {
		b.Run("op="+op.name, func(b *testing.B) {
			for _, tr := range mcpTransports {
				b.Run("transport="+tr, func(b *testing.B) {
					for _, im := range mcpImplementations {
						b.Run("impl="+im.name, func(b *testing.B) {
							if reason := im.cannot[op.name+"/"+tr]; reason != "" {
								b.Skip(reason)
							}
							runMCPOp(b, im, tr, op.run)
						})
					}
				})
			}
		})
	}
}

// runMCPOp serves im on transport, opens a session unless the op opens its
// own, and runs op.
func runMCPOp(b *testing.B, im mcpImplementation, transport string, op func(*testing.B, mcpEndpoint, mcpClientSession)) {
	ctx := context.Background()
	e, err := im.serve(ctx, transport)
	if err != nil {
		b.Fatalf("serve %s: %v", im.name, err)
	}
	defer func() {
		if err := e.Close(); err != nil {
			b.Errorf("close the server: %v", err)
		}
	}()
	s, err := e.Connect(ctx)
	if err != nil {
		b.Fatalf("connect: %v", err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			b.Errorf("close the session: %v", err)
		}
	}()
	b.ReportAllocs()
	b.ResetTimer()
	op(b, e, s)
	b.StopTimer()
}

func benchMCPInitialize(b *testing.B, e mcpEndpoint, _ mcpClientSession) {
	ctx := context.Background()
	for range b.N {
		s, err := e.Connect(ctx)
		if err != nil {
			b.Fatalf("connect: %v", err)
		}
		if err := s.Close(); err != nil {
			b.Fatalf("close: %v", err)
		}
	}
}

func benchMCPToolsList(b *testing.B, _ mcpEndpoint, s mcpClientSession) {
	ctx := context.Background()
	for range b.N {
		l, err := s.ListTools(ctx)
		if err != nil {
			b.Fatalf("tools/list: %v", err)
		}
		if l.Len() != mcpToolCount {
			b.Fatalf("tools/list gave %d tools, want %d", l.Len(), mcpToolCount)
		}
	}
}

func benchMCPToolsCall(b *testing.B, _ mcpEndpoint, s mcpClientSession) {
	ctx := context.Background()
	want := mcpSearch(mcpSearchBenchArgs)
	for range b.N {
		ans, err := s.Search(ctx, mcpSearchBenchArgs)
		if err != nil {
			b.Fatalf("tools/call: %v", err)
		}
		if !ans.Result.equal(want) {
			b.Fatalf("search answered %+v, want %+v", ans.Result, want)
		}
	}
}

func benchMCPProgress(b *testing.B, _ mcpEndpoint, s mcpClientSession) {
	ctx := context.Background()
	for i := range b.N {
		if err := s.Progress(ctx, newMCPProgressWaiter(int64(i+1), mcpProgressSteps, mcpProgressSteps)); err != nil {
			b.Fatalf("progress: %v", err)
		}
	}
}

// TestMCPSameWork checks that the implementations and the floor do the
// same work on both transports: the client receives the same 50 tools with
// the same input schemas, search's structured content and its text block
// decode to the expected result, and each of the 1,000 progress steps
// reaches the client once, with the call's token.
func TestMCPSameWork(t *testing.T) {
	wantTools := mcpCatalogCanon(t)
	wantResult := mcpSearch(mcpSearchBenchArgs)
	for _, tr := range mcpTransports {
		for _, im := range mcpImplementations {
			t.Run("transport="+tr+"/impl="+im.name, func(t *testing.T) {
				ctx := context.Background()
				e, err := im.serve(ctx, tr)
				if err != nil {
					t.Fatalf("serve: %v", err)
				}
				defer func() {
					if err := e.Close(); err != nil {
						t.Errorf("close the server: %v", err)
					}
				}()
				for round := range 2 { // a second session on the same server
					s, err := e.Connect(ctx)
					if err != nil {
						t.Fatalf("session %d: connect: %v", round, err)
					}
					checkMCPSession(t, s, wantTools, wantResult, im.cannot["progress/"+tr] != "")
					if err := s.Close(); err != nil {
						t.Errorf("session %d: close: %v", round, err)
					}
				}
			})
		}
	}
}

// checkMCPSession runs every op once on s and checks the answers.
// With lossyProgress, progress notifications may be missing: one must come.
func checkMCPSession(t *testing.T, s mcpClientSession, wantTools []mcpCanonTool, wantResult mcpSearchResult, lossyProgress bool) {
	t.Helper()
	ctx := context.Background()
	l, err := s.ListTools(ctx)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if l.Len() != mcpToolCount {
		t.Errorf("tools/list gave %d tools, want %d", l.Len(), mcpToolCount)
	}
	got, err := l.Canon()
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	// The SDKs list their tools by name, rpcgen's server in its own order.
	slices.SortFunc(got, func(a, b mcpCanonTool) int { return strings.Compare(a.Name, b.Name) })
	if !reflect.DeepEqual(got, wantTools) {
		for i := range min(len(got), len(wantTools)) {
			if !reflect.DeepEqual(got[i], wantTools[i]) {
				t.Fatalf("tool %d is\n%+v\nwant\n%+v", i, got[i], wantTools[i])
			}
		}
		t.Fatalf("tools/list gave %d tools, want %d", len(got), len(wantTools))
	}
	ans, err := s.Search(ctx, mcpSearchBenchArgs)
	if err != nil {
		t.Fatalf("search: %v", err)
	}
	if !ans.Result.equal(wantResult) || !reflect.DeepEqual(ans.Result, wantResult) {
		t.Errorf("search's structured content is %+v, want %+v", ans.Result, wantResult)
	}
	var fromText mcpSearchResult
	if err := json.Unmarshal([]byte(ans.Text), &fromText); err != nil || !reflect.DeepEqual(fromText, wantResult) {
		t.Errorf("search's text block %q decodes to %+v (%v), want %+v", ans.Text, fromText, err, wantResult)
	}
	want := mcpProgressSteps
	if lossyProgress {
		// How many a lossy client loses varies (one in most calls, now
		// and then two): wait for the first, and log how many came.
		want = 1
	}
	for token := int64(7); token <= 8; token++ {
		w := newMCPProgressWaiter(token, mcpProgressSteps, want)
		if err := s.Progress(ctx, w); err != nil {
			t.Fatalf("progress: %v", err)
		}
		if lossyProgress {
			t.Logf("progress: %d of %d notifications came (a known loss)", w.n.Load(), mcpProgressSteps)
			continue
		}
		if n, sum := w.n.Load(), w.sum.Load(); n != mcpProgressSteps || sum != mcpProgressSteps*(mcpProgressSteps+1)/2 {
			t.Errorf("progress: %d notifications summing to %d, want %d summing to %d", n, sum,
				mcpProgressSteps, mcpProgressSteps*(mcpProgressSteps+1)/2)
		}
	}
}

// mcpCatalogCanon returns the catalogue in the form the clients' tools are
// compared in, written independently of any implementation.
func mcpCatalogCanon(t *testing.T) []mcpCanonTool {
	t.Helper()
	var out []mcpCanonTool
	for _, d := range mcpCatalog() {
		props := map[string]any{}
		for _, p := range d.Props {
			m := map[string]any{"type": p.Type, "description": p.Description}
			if p.Enum != nil {
				enum := make([]any, len(p.Enum))
				for i, v := range p.Enum {
					enum[i] = v
				}
				m["enum"] = enum
			}
			props[p.Name] = m
		}
		required := make([]any, len(d.Required))
		for i, r := range d.Required {
			required[i] = r
		}
		out = append(out, mcpCanonTool{Name: d.Name, Description: d.Description,
			InputSchema: map[string]any{"type": "object", "properties": props, "required": required}})
	}
	slices.SortFunc(out, func(a, b mcpCanonTool) int { return strings.Compare(a.Name, b.Name) })
	if len(out) != mcpToolCount {
		t.Fatalf("the catalogue has %d tools, want %d", len(out), mcpToolCount)
	}
	return out
}
