package lsp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// rng renders an LSP range from two positions.
func rng(l1, c1, l2, c2 int) string {
	return fmt.Sprintf(`{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}}`, l1, c1, l2, c2)
}

// at renders the position of the n-th occurrence of text in main.go.
func at(t *testing.T, text string, n int) string {
	l, c := position(t, text, n)
	return fmt.Sprintf(`{"line":%d,"character":%d}`, l, c)
}

// span renders the range of the n-th occurrence of text in main.go.
func span(t *testing.T, text string, n int) string {
	l, c := position(t, text, n)
	return rng(l, c, l, c+len([]rune(text)))
}

// sameJSON fails the test unless got and want are the same JSON value,
// member order aside.
func sameJSON(t *testing.T, what string, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Errorf("%s: %s: %v", what, got, err)
		return
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: the expected value %s: %v", what, want, err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Errorf("%s:\n got %s\nwant %s", what, gb, wb)
	}
}

// Every feature the typed client will drive, asked of gopls with raw JSON
// first: the answers, positions in UTF-16 code units included, are what
// gopls v0.23.0 gives for main.go.
func TestGoplsRawFeatures(t *testing.T) {
	ws := newGoplsWorkspace(t)
	g := startGopls(t, ws)
	c := newRawClient(t, g)
	c.call(t, "initialize", rawInitialize(ws))
	c.notify(t, "initialized", `{}`)
	doc := fmt.Sprintf(`{"uri":%q}`, ws.mainURI)
	c.notify(t, "textDocument/didOpen", fmt.Sprintf(`{"textDocument":{"uri":%q,"languageId":"go","version":1,"text":%q}}`, ws.mainURI, mainGo))
	c.awaitNote(t, "diagnostics of main.go version 1", diagnosticsOf(ws.mainURI, 1, 1))

	hover := c.call(t, "textDocument/hover", fmt.Sprintf(`{"textDocument":%s,"position":%s}`, doc, at(t, "greet", 2)))
	sameJSON(t, "hover on the call of greet", hover,
		fmt.Sprintf(`{"contents":{"kind":"markdown","value":"`+"```go\\nfunc greet(name string) Greeting\\n```"+`"},"range":%s}`, span(t, "greet", 2)))

	var completion struct {
		Items []struct{ Label string }
	}
	res := c.call(t, "textDocument/completion", fmt.Sprintf(`{"textDocument":%s,"position":%s}`, doc, at(t, "Text,", 0)))
	if err := json.Unmarshal(res, &completion); err != nil || !slices.ContainsFunc(completion.Items, func(i struct{ Label string }) bool { return i.Label == "Text" }) {
		t.Errorf("completion after g.: %s (%v), want an item Text", res, err)
	}

	loc := func(n int) string { return fmt.Sprintf(`{"uri":%q,"range":%s}`, ws.mainURI, span(t, "greet", n)) }
	sameJSON(t, "definition of greet", c.call(t, "textDocument/definition", fmt.Sprintf(`{"textDocument":%s,"position":%s}`, doc, at(t, "greet", 2))),
		"["+loc(1)+"]")
	sameJSON(t, "references of greet", c.call(t, "textDocument/references", fmt.Sprintf(`{"textDocument":%s,"position":%s,"context":{"includeDeclaration":true}}`, doc, at(t, "greet", 2))),
		"["+loc(1)+","+loc(2)+","+loc(3)+"]")

	var symbols []struct{ Name string }
	res = c.call(t, "textDocument/documentSymbol", fmt.Sprintf(`{"textDocument":%s}`, doc))
	if err := json.Unmarshal(res, &symbols); err != nil || len(symbols) != 3 || symbols[0].Name != "Greeting" || symbols[1].Name != "greet" || symbols[2].Name != "main" {
		t.Errorf("documentSymbol: %s (%v), want Greeting, greet, main", res, err)
	}

	// gofmt removes the spaces inside greet( "Zoë" ); the second is after
	// "ë", one UTF-16 unit but two bytes.
	l, c1 := position(t, `( "`, 0)
	_, c2 := position(t, `" )`, 0)
	sameJSON(t, "formatting", c.call(t, "textDocument/formatting", fmt.Sprintf(`{"textDocument":%s,"options":{"tabSize":4,"insertSpaces":false}}`, doc)),
		fmt.Sprintf(`[{"range":%s,"newText":""},{"range":%s,"newText":""}]`, rng(l, c1+1, l, c1+2), rng(l, c2+1, l, c2+2)))

	sameJSON(t, "rename count to total", c.call(t, "textDocument/rename", fmt.Sprintf(`{"textDocument":%s,"position":%s,"newName":"total"}`, doc, at(t, "count", 0))),
		fmt.Sprintf(`{"documentChanges":[{"textDocument":{"uri":%q,"version":1},"edits":[{"range":%s,"newText":"total"},{"range":%s,"newText":"total"}]}]}`,
			ws.mainURI, span(t, "count", 0), span(t, "count", 1)))

	var actions []struct{ Title, Kind string }
	res = c.call(t, "textDocument/codeAction", fmt.Sprintf(`{"textDocument":%s,"range":{"start":%s,"end":%[2]s},"context":{"diagnostics":[]}}`, doc, at(t, "greet", 2)))
	if err := json.Unmarshal(res, &actions); err != nil || !slices.Contains(actions, struct{ Title, Kind string }{"Inline call to greet", "refactor.inline.call"}) {
		t.Errorf("codeAction on the call of greet: %s (%v), want \"Inline call to greet\"", res, err)
	}

	// didChange: "three" becomes 3, and the type error goes away.
	c.notify(t, "textDocument/didChange", fmt.Sprintf(`{"textDocument":{"uri":%q,"version":2},"contentChanges":[{"range":%s,"text":"3"}]}`, ws.mainURI, span(t, `"three"`, 0)))
	c.awaitNote(t, "empty diagnostics of main.go version 2", diagnosticsOf(ws.mainURI, 2, 0))

	// A cancelled call: $/cancelRequest goes out with its id, the call
	// ends at once, and gopls's late answer is dropped without a warning.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		var r json.RawMessage
		done <- c.conn.Call(ctx, "workspace/symbol", json.RawMessage(`{"query":"Greet"}`), &r)
	}()
	req := g.stream.awaitSent(t, "the workspace/symbol request", func(m json.RawMessage) bool { return strings.Contains(string(m), `"workspace/symbol"`) })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled call returned %v, want context.Canceled", err)
	}
	var sent struct{ ID json.RawMessage }
	_ = json.Unmarshal(req, &sent)
	g.stream.awaitSent(t, "$/cancelRequest for id "+string(sent.ID), func(m json.RawMessage) bool {
		var n struct {
			Method string
			Params struct{ ID json.RawMessage }
		}
		return json.Unmarshal(m, &n) == nil && n.Method == "$/cancelRequest" && string(n.Params.ID) == string(sent.ID)
	})
	hover = c.call(t, "textDocument/hover", fmt.Sprintf(`{"textDocument":%s,"position":%s}`, doc, at(t, "Greeting", 1)))
	if !strings.Contains(string(hover), "type Greeting struct") {
		t.Errorf("hover after the cancelled call: %s, want Greeting's declaration", hover)
	}

	if res := c.call(t, "shutdown", ""); string(res) != "null" {
		t.Errorf("shutdown result %s, want null", res)
	}
	c.notify(t, "exit", "")
	g.waitExit(t)
	<-c.conn.Done()
	received := g.checkReceived(t)
	ours, _ := g.stream.sent()
	msgs, err := classify(ours, received)
	if err != nil {
		t.Errorf("gopls's messages: %v", err)
	}
	kinds := map[string]int{}
	for _, m := range msgs {
		kinds[m.Kind]++
	}
	if kinds["response"] != 12 || kinds["request"] < 3 || kinds["notification"] < 2 {
		t.Errorf("gopls sent %v, want 12 responses (one per request of ours, the cancelled one included), its requests and notifications", kinds)
	}
	c.logs.check(t)
}

// diagnosticsOf matches gopls's diagnostics for uri at version, with n
// entries.
func diagnosticsOf(uri string, version, n int) func(*jsonrpc.Request) bool {
	return func(r *jsonrpc.Request) bool {
		var p struct {
			URI         string            `json:"uri"`
			Version     int               `json:"version"`
			Diagnostics []json.RawMessage `json:"diagnostics"`
		}
		return r.Method == "textDocument/publishDiagnostics" && json.Unmarshal(r.Params, &p) == nil &&
			p.URI == uri && p.Version == version && len(p.Diagnostics) == n
	}
}
