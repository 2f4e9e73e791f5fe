package lsp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/rpcgen/rpcgen/generated/lsp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// wireType decodes the params or result of one kind of message into its
// generated type and encodes it again; nullable says the value may be
// null (a result of a method whose result type is nullable).
type wireType struct {
	reencode func(json.RawMessage) ([]byte, error)
	nullable bool
}

// wireTypes is the generated type of each message gopls may send in the
// sessions of this directory, by kind and method: the params of its
// requests and notifications, and the results of its responses to ours.
var wireTypes = map[string]wireType{
	"request workspace/configuration":              {reencode: reencode[lsp.ConfigurationParams]},
	"request window/workDoneProgress/create":       {reencode: reencode[lsp.WorkDoneProgressCreateParams]},
	"request client/registerCapability":            {reencode: reencode[lsp.RegistrationParams]},
	"request client/unregisterCapability":          {reencode: reencode[lsp.UnregistrationParams]},
	"request workspace/semanticTokens/refresh":     {nullable: true},
	"request workspace/codeLens/refresh":           {nullable: true},
	"request workspace/inlayHint/refresh":          {nullable: true},
	"request workspace/diagnostic/refresh":         {nullable: true},
	"notification textDocument/publishDiagnostics": {reencode: reencode[lsp.PublishDiagnosticsParams]},
	"notification window/logMessage":               {reencode: reencode[lsp.LogMessageParams]},
	"notification window/showMessage":              {reencode: reencode[lsp.ShowMessageParams]},
	"notification $/progress":                      {reencode: reencodeProgress},
	"response initialize":                          {reencode: reencode[lsp.InitializeResult]},
	"response shutdown":                            {nullable: true},
	"response textDocument/hover":                  {reencode: reencode[lsp.Hover], nullable: true},
	"response textDocument/completion":             {reencode: reencode[lsp.TextDocumentCompletionResult], nullable: true},
	"response textDocument/definition":             {reencode: reencode[lsp.TextDocumentDefinitionResult], nullable: true},
	"response textDocument/references":             {reencode: reencode[[]lsp.Location], nullable: true},
	"response textDocument/documentSymbol":         {reencode: reencode[lsp.TextDocumentDocumentSymbolResult], nullable: true},
	"response textDocument/formatting":             {reencode: reencode[[]lsp.TextEdit], nullable: true},
	"response textDocument/rename":                 {reencode: reencode[lsp.WorkspaceEdit], nullable: true},
	"response textDocument/codeAction":             {reencode: reencode[[]lsp.TextDocumentCodeActionResultItem], nullable: true},
	"response workspace/symbol":                    {reencode: reencode[lsp.WorkspaceSymbolResult], nullable: true},
}

// reencodeProgress decodes $/progress params and, when the value is
// work-done progress (it has a kind), the value as the begin, report or
// end it is.
func reencodeProgress(raw json.RawMessage) ([]byte, error) {
	var p lsp.ProgressParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("decoding into %T: %w", p, err)
	}
	var kind struct{ Kind string }
	_ = json.Unmarshal(p.Value, &kind)
	var value []byte
	var err error
	switch kind.Kind {
	case "begin":
		value, err = reencode[lsp.WorkDoneProgressBegin](p.Value)
	case "report":
		value, err = reencode[lsp.WorkDoneProgressReport](p.Value)
	case "end":
		value, err = reencode[lsp.WorkDoneProgressEnd](p.Value)
	default:
		return nil, fmt.Errorf("$/progress value %s is no work-done progress", p.Value)
	}
	if err != nil {
		return nil, err
	}
	p.Value = value
	return p.AppendJSON(nil)
}

// roundTrip checks that each message decodes into the generated type for
// its method and encodes back to the same JSON; it returns one line per
// problem. A message whose method the table lacks is a problem too.
func roundTrip(msgs []wireMessage) []string {
	var problems []string
	for i, m := range msgs {
		key := m.Kind + " " + m.Method
		if m.Error != nil {
			var e jsonrpc.Error
			if err := json.Unmarshal(m.Error, &e); err != nil || e.Message == "" {
				problems = append(problems, fmt.Sprintf("message %d, an error response to %s: %s (%v)", i+1, m.Method, m.Error, err))
			}
			continue
		}
		raw := m.Params
		if m.Kind == "response" {
			raw = m.Result
		}
		wt, ok := wireTypes[key]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("message %d: %s has no generated type in wireTypes: %s", i+1, key, m.Raw))
			continue
		case raw == nil || bytes.Equal(raw, []byte("null")):
			if !wt.nullable {
				problems = append(problems, fmt.Sprintf("message %d: %s without params or with a null result: %s", i+1, key, m.Raw))
			}
			continue
		case wt.reencode == nil:
			problems = append(problems, fmt.Sprintf("message %d: %s carries %s, where the protocol has nothing", i+1, key, raw))
			continue
		}
		again, err := wt.reencode(raw)
		if err != nil {
			problems = append(problems, fmt.Sprintf("message %d (%s): %v\n%s", i+1, key, err, raw))
		} else if d := jsonDiff(raw, again); d != "" {
			problems = append(problems, fmt.Sprintf("message %d (%s) does not encode back: %s\n sent:      %s\n re-encoded: %s", i+1, key, d, raw, again))
		}
	}
	return problems
}

// roundTrip reports a method the table lacks, a value that does not
// decode, and one that encodes back differently; it passes the rest.
func TestRoundTripTable(t *testing.T) {
	msgs := []wireMessage{
		{Kind: "notification", Method: "window/logMessage", Params: json.RawMessage(`{"type":3,"message":"hi"}`)},
		{Kind: "notification", Method: "$/progress", Params: json.RawMessage(`{"token":"t","value":{"kind":"begin","title":"Loading"}}`)},
		{Kind: "response", Method: "shutdown", Result: json.RawMessage(`null`)},
		{Kind: "notification", Method: "window/newThing", Params: json.RawMessage(`{}`)},
		{Kind: "notification", Method: "window/logMessage", Params: json.RawMessage(`{"type":3}`)},
		{Kind: "response", Method: "initialize", Result: json.RawMessage(`{"capabilities":{},"unknown":1}`)},
		{Kind: "response", Method: "initialize", Result: json.RawMessage(`null`)},
	}
	got := roundTrip(msgs)
	want := []string{
		"message 4: notification window/newThing has no generated type",
		"message 5 (notification window/logMessage): decoding into",
		"message 6 (response initialize) does not encode back: $.unknown: 1, then absent",
		"message 7: response initialize without params or with a null result",
	}
	if len(got) != len(want) {
		t.Fatalf("roundTrip found %d problems, want %d:\n%q", len(got), len(want), got)
	}
	for i := range want {
		if !bytes.HasPrefix([]byte(got[i]), []byte(want[i])) {
			t.Errorf("problem %d: %q, want it to start with %q", i+1, got[i], want[i])
		}
	}
}
