package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// parseError is the answer to a frame that is not valid JSON.
const parseError = `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: invalid JSON"},"id":null}`

// deepParams is a "sum" request whose params are nested depth arrays
// deep, inside the message object.
func deepParams(depth int) string {
	return `{"jsonrpc":"2.0","method":"sum","id":7,"params":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`
}

// TestInvalidJSONAnywhereIsParseError sends requests whose envelope is
// fine but which are not valid JSON somewhere: deep inside params, in a
// member nobody reads, after the object, in one element of a batch. Each
// is answered -32700 with a null id, never with the result of "sum".
func TestInvalidJSONAnywhereIsParseError(t *testing.T) {
	cases := []string{
		`{"jsonrpc":"2.0","method":"sum","params":[1,[2,{"x":tru}]],"id":7}`,
		`{"jsonrpc":"2.0","method":"sum","params":[1],"id":7,"extra":"a\qb"}`,
		"{\"jsonrpc\":\"2.0\",\"method\":\"sum\",\"params\":[1],\"id\":7,\"extra\":\"long text before a control byte \x01\"}",
		`{"jsonrpc":"2.0","method":"sum","params":[1],"id":7,"extra":"\ud83d\u12"}`,
		`{"jsonrpc":"2.0","method":"sum","params":[1],"id":7,"a\x":1}`,
		`{"jsonrpc":"2.0","method":"sum","params":[01],"id":7}`,
		`{"jsonrpc":"2.0","method":"sum","params":[1,],"id":7}`,
		`{"jsonrpc":"2.0","method":"sum","params":{"a" 1},"id":7}`,
		`{"jsonrpc":"2.0","id":{},"method":"sum","params":[1],}`,
		`{"jsonrpc":"2.0","method":"sum","params":[1],"id":7} x`,
		`{"jsonrpc":"2.0","method":"sum","params":[1],"id":7}}`,
		`{"jsonrpc":"2.0","method":"sum","params":[1],"id":7,}`,
		`{"jsonrpc":"2.0","method":"sum","params":[1],"id":7`,
		`[{"jsonrpc":"2.0","method":"sum","params":[1],"id":7},{"jsonrpc":"2.0","method":"sum","params":[1,{"a" 1}],"id":8}]`,
		deepParams(maxNesting),
	}
	for _, f := range []framing.Framing{framing.NDJSON, framing.ContentLength} {
		t.Run(f.Name(), func(t *testing.T) {
			_, p := newRaw(t, Options{Framing: f, Handler: specHandler})
			for _, frame := range cases {
				if json.Valid([]byte(frame)) {
					t.Fatalf("case is valid JSON: %.80s", frame)
				}
				p.send(frame)
				assertSameJSON(t, Truncate(frame), p.recv(), parseError)
			}
			// One level less is valid JSON: params that "sum" cannot
			// decode, not a parse error.
			p.send(deepParams(maxNesting - 1))
			if got := p.recv(); !strings.Contains(got, `"code":-32602`) {
				t.Errorf("params nested %d deep: got %.200s, want -32602", maxNesting-1, got)
			}
		})
	}
}

// maxNesting is how deep encoding/json lets arrays and objects nest,
// counting the message object itself.
const maxNesting = 10000
