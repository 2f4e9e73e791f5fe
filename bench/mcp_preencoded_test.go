package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// recordingWire keeps a copy of every message the client receives.
type recordingWire struct {
	preMCPWire
	got []string
}

func (r *recordingWire) call(ctx context.Context, req []byte, note func([]byte) error) ([]byte, error) {
	ans, err := r.preMCPWire.call(ctx, req, func(msg []byte) error {
		r.got = append(r.got, string(msg))
		if note == nil {
			return errors.New("a notification before the answer")
		}
		return note(msg)
	})
	if err == nil {
		r.got = append(r.got, string(ans))
	}
	return ans, err
}

// preMCPSessionOn runs the floor client's ops once on wire: the handshake,
// tools/list, search, and progress with 1,000 steps. The client checks
// every byte of what it receives against its templates; it returns the
// messages it received in canonical JSON.
func preMCPSessionOn(t *testing.T, wire preMCPWire) []string {
	t.Helper()
	tmpl, err := preMCP()
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingWire{preMCPWire: wire}
	s := &preMCPSession{t: tmpl, wire: rec}
	ctx := context.Background()
	if err := s.initialize(ctx); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if l, err := s.ListTools(ctx); err != nil || l.Len() != mcpToolCount {
		t.Fatalf("tools/list: %v", err)
	}
	if ans, err := s.Search(ctx, mcpSearchBenchArgs); err != nil || !ans.Result.equal(mcpSearch(mcpSearchBenchArgs)) {
		t.Fatalf("search: %+v, %v", ans, err)
	}
	w := newMCPProgressWaiter(7, mcpProgressSteps, mcpProgressSteps)
	if err := s.Progress(ctx, w); err != nil {
		t.Fatalf("progress: %v", err)
	}
	if n, sum := w.n.Load(), w.sum.Load(); n != mcpProgressSteps || sum != mcpProgressSteps*(mcpProgressSteps+1)/2 {
		t.Errorf("progress: %d notifications summing to %d", n, sum)
	}
	if err := s.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	canon := make([]string, len(rec.got))
	for i, m := range rec.got {
		var v any
		if err := json.Unmarshal([]byte(m), &v); err != nil {
			t.Fatalf("message %d is not JSON: %v", i, err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		canon[i] = string(b)
	}
	return canon
}

// TestMCPPreencodedSameAnswers checks that the floor does the work of the
// other rows: its client, run against rpcgen's server and against the
// floor's server on each transport, receives from both the bytes its
// templates expect, and the same messages in canonical JSON (the three
// answers, the 1,000 notifications and the answer of progress).
func TestMCPPreencodedSameAnswers(t *testing.T) {
	ctx := context.Background()
	want := 3 + mcpProgressSteps + 1
	for _, tr := range mcpTransports {
		t.Run("transport="+tr, func(t *testing.T) {
			var fromRPCGen, fromFloor []string
			if tr == "stdio" {
				tools, err := mcpGenTools()
				if err != nil {
					t.Fatal(err)
				}
				client, server, err := osPipes()
				if err != nil {
					t.Fatal(err)
				}
				conn, _ := mcp.ConnectServer(server, &mcpGenServer{tools: tools}, jsonrpc.Options{})
				w := &preMCPStdio{conn: client, in: newFrameReader(client, ndjson), out: &frameWriter{w: client, f: ndjson},
					served: make(chan struct{})}
				go func() {
					defer close(w.served)
					if err := ignoreClosed(conn.Wait()); err != nil {
						t.Errorf("rpcgen's server: %v", err)
					}
				}()
				fromRPCGen = preMCPSessionOn(t, w)

				tmpl, _ := preMCP()
				client, server, err = osPipes()
				if err != nil {
					t.Fatal(err)
				}
				w = &preMCPStdio{conn: client, in: newFrameReader(client, ndjson), out: &frameWriter{w: client, f: ndjson},
					served: make(chan struct{})}
				go func() {
					defer close(w.served)
					tmpl.serveStdio(server)
				}()
				fromFloor = preMCPSessionOn(t, w)
			} else {
				e, err := serveMCPRPCGen(ctx, "http")
				if err != nil {
					t.Fatal(err)
				}
				ge := e.(*mcpGenEndpoint)
				w, err := dialPreMCP(ge.client, ge.srv.URL+mcp.HTTP.Path)
				if err != nil {
					t.Fatal(err)
				}
				fromRPCGen = preMCPSessionOn(t, w)
				if err := e.Close(); err != nil {
					t.Errorf("closing rpcgen's server: %v", err)
				}

				tmpl, _ := preMCP()
				h := startPreMCPHTTP(tmpl)
				defer h.close()
				if w, err = h.dial(); err != nil {
					t.Fatal(err)
				}
				fromFloor = preMCPSessionOn(t, w)
			}
			if len(fromRPCGen) != want || len(fromFloor) != want {
				t.Fatalf("received %d messages from rpcgen's server and %d from the floor's, want %d", len(fromRPCGen), len(fromFloor), want)
			}
			for i := range fromRPCGen {
				if fromRPCGen[i] != fromFloor[i] {
					t.Fatalf("message %d: rpcgen's server sent\n%s\nthe floor's\n%s", i, fromRPCGen[i], fromFloor[i])
				}
			}
		})
	}
}

// TestMCPPreencodedClientChecksBytes checks that the floor's client
// refuses an answer that differs from its template.
func TestMCPPreencodedClientChecksBytes(t *testing.T) {
	tmpl, err := preMCP()
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range mcpTransports {
		t.Run("transport="+tr, func(t *testing.T) {
			e, err := serveMCPPreencoded(context.Background(), tr)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			sess, err := e.Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			s := sess.(*preMCPSession)
			other := *tmpl
			other.searchResult = bytes.Replace(tmpl.searchResult, []byte("1225"), []byte("1226"), 1)
			s.t = &other
			if _, err := s.Search(context.Background(), mcpSearchBenchArgs); !errors.Is(err, errMCPBadAnswer) {
				t.Errorf("a search answer unlike the template gave %v, want errMCPBadAnswer", err)
			}
			s.t = tmpl
			if err := s.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
		})
	}
}

// TestMCPPreencodedHTTPSessions checks the floor server's session
// handling and that it answers search only for the prepared arguments.
func TestMCPPreencodedHTTPSessions(t *testing.T) {
	tmpl, err := preMCP()
	if err != nil {
		t.Fatal(err)
	}
	h := startPreMCPHTTP(tmpl)
	defer h.close()
	url := h.srv.URL + mcp.HTTP.Path
	do := func(method, sid, version, body string) (int, http.Header, string) {
		t.Helper()
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		if version != "" {
			req.Header.Set("Mcp-Protocol-Version", version)
		}
		resp, err := h.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, resp.Header, string(b)
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if code, _, _ := do("POST", "", "", list); code != http.StatusBadRequest {
		t.Errorf("tools/list without a session: %d, want 400", code)
	}
	code, hdr, _ := do("POST", "", "", string(appendRequest(nil, 1, `,"method":"initialize","params":`, tmpl.initParams)))
	sid := hdr.Get("Mcp-Session-Id")
	if code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d, session %q", code, sid)
	}
	for _, c := range []struct {
		name, method, sid, version, body string
		code                             int
		answer                           string
	}{
		{"unknown session", "POST", "nope", mcpVersion, list, http.StatusNotFound, ""},
		{"no version", "POST", sid, "", list, http.StatusBadRequest, ""},
		{"other version", "POST", sid, "2024-11-05", list, http.StatusBadRequest, ""},
		{"notification", "POST", sid, mcpVersion, preMCPInitialized, http.StatusAccepted, ""},
		{"other arguments", "POST", sid, mcpVersion,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"x","limit":5}}}`,
			http.StatusOK, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,`},
		{"unknown method", "POST", sid, mcpVersion, `{"jsonrpc":"2.0","id":"a","method":"ping"}`,
			http.StatusOK, `{"jsonrpc":"2.0","id":"a","error":{"code":-32601,`},
		{"GET stream", "GET", sid, mcpVersion, "", http.StatusMethodNotAllowed, ""},
		{"close", "DELETE", sid, mcpVersion, "", http.StatusNoContent, ""},
		{"after close", "POST", sid, mcpVersion, list, http.StatusNotFound, ""},
	} {
		code, _, body := do(c.method, c.sid, c.version, c.body)
		if code != c.code || !strings.HasPrefix(body, c.answer) {
			t.Errorf("%s: %d %q, want %d %q…", c.name, code, body, c.code, c.answer)
		}
	}
}

// TestPreMCPRequestRead checks what the floor's server reads of a message.
func TestPreMCPRequestRead(t *testing.T) {
	var r preMCPRequest
	msg := appendProgressCall(nil, 12, 7, 1000)
	if !r.read(msg) || string(r.method) != "tools/call" || string(r.id) != "12" || string(r.token) != "7" || r.steps != 1000 {
		t.Errorf("read(%s) = %+v", msg, r)
	}
	msg = []byte(`{"jsonrpc":"2.0","id":"x\"y","method":"tools/call","params":{"_meta":{"progressToken":"t"},"name":"progress","arguments":{"steps":99999999}}}`)
	if !r.read(msg) || string(r.id) != `"x\"y"` || string(r.token) != `"t"` || r.steps != 1<<20 {
		t.Errorf("read(%s) = %+v", msg, r)
	}
	if !r.read([]byte(preMCPInitialized)) || r.id != nil || string(r.method) != "notifications/initialized" {
		t.Errorf("read(%s) = %+v", preMCPInitialized, r)
	}
	if r.read([]byte(`{"jsonrpc":"2.0","id":1}`)) {
		t.Error("a message without a method was read")
	}
	if got := appendProgress(nil, []byte("7"), 3, 1000); !reflect.DeepEqual(string(got),
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":3,"total":1000}}`) {
		t.Errorf("appendProgress = %s", got)
	}
}
