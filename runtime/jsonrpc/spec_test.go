package jsonrpc

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// specHandler implements the methods used by the examples in section 7 of
// the JSON-RPC 2.0 specification.
var specHandler = mux{
	"subtract": func(ctx context.Context, req *Request) (any, error) {
		var pos []int
		if json.Unmarshal(req.Params, &pos) == nil && len(pos) == 2 {
			return pos[0] - pos[1], nil
		}
		var named struct {
			Minuend    int `json:"minuend"`
			Subtrahend int `json:"subtrahend"`
		}
		if err := req.DecodeParams(&named); err != nil {
			return nil, err
		}
		return named.Minuend - named.Subtrahend, nil
	},
	"sum": func(ctx context.Context, req *Request) (any, error) {
		var xs []int
		if err := req.DecodeParams(&xs); err != nil {
			return nil, err
		}
		total := 0
		for _, x := range xs {
			total += x
		}
		return total, nil
	},
	"get_data":     func(ctx context.Context, req *Request) (any, error) { return []any{"hello", 5}, nil },
	"update":       func(ctx context.Context, req *Request) (any, error) { return nil, nil },
	"notify_hello": func(ctx context.Context, req *Request) (any, error) { return nil, nil },
}

// noReply marks a case whose frame must get no answer at all.
const noReply = ""

var specCases = []struct {
	name, send, want string
}{
	{"positional params", `{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}`, `{"jsonrpc": "2.0", "result": 19, "id": 1}`},
	{"positional params reversed", `{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}`, `{"jsonrpc": "2.0", "result": -19, "id": 2}`},
	{"named params", `{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}`, `{"jsonrpc": "2.0", "result": 19, "id": 3}`},
	{"named params reordered", `{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}`, `{"jsonrpc": "2.0", "result": 19, "id": 4}`},
	{"notification", `{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}`, noReply},
	{"notification of unknown method", `{"jsonrpc": "2.0", "method": "foobar"}`, noReply},
	{"unknown method", `{"jsonrpc": "2.0", "method": "foobar", "id": "1"}`, `{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found", "data": {"method": "foobar"}}, "id": "1"}`},
	{"invalid JSON", `{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`, `{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error: invalid JSON"}, "id": null}`},
	{"invalid request object", `{"jsonrpc": "2.0", "method": 1, "params": "bar"}`, `{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request", "data": "\"method\" must be a string"}, "id": null}`},
	{"batch with invalid JSON", `[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method"]`, `{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error: invalid JSON"}, "id": null}`},
	{"empty batch", `[]`, `{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request", "data": "a batch must not be empty"}, "id": null}`},
	{"batch of one invalid element", `[1]`, `[{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request", "data": "a message must be a JSON object"}, "id": null}]`},
	{"batch of invalid elements", `[1,2,3]`, `[
		{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request", "data": "a message must be a JSON object"}, "id": null},
		{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request", "data": "a message must be a JSON object"}, "id": null},
		{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request", "data": "a message must be a JSON object"}, "id": null}]`},
	{"mixed batch", `[
		{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
		{"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
		{"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
		{"foo": "boo"},
		{"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
		{"jsonrpc": "2.0", "method": "get_data", "id": "9"}]`, `[
		{"jsonrpc": "2.0", "result": 7, "id": "1"},
		{"jsonrpc": "2.0", "result": 19, "id": "2"},
		{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request", "data": "\"jsonrpc\" must be exactly \"2.0\""}, "id": null},
		{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found", "data": {"method": "foo.get"}}, "id": "5"},
		{"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"}]`},
	{"batch of notifications", `[{"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},{"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}]`, noReply},
	// Id edge cases: echoed exactly as received.
	{"string id", `{"jsonrpc":"2.0","method":"sum","params":[1],"id":"abc-\u00e9"}`, `{"jsonrpc":"2.0","result":1,"id":"abc-é"}`},
	{"null id", `{"jsonrpc":"2.0","method":"sum","params":[2],"id":null}`, `{"jsonrpc":"2.0","result":2,"id":null}`},
	{"negative id", `{"jsonrpc":"2.0","method":"sum","params":[3],"id":-7}`, `{"jsonrpc":"2.0","result":3,"id":-7}`},
	{"object id", `{"jsonrpc":"2.0","method":"sum","params":[3],"id":{"a":1}}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"id must be a string, a number or null"},"id":null}`},
	{"boolean id", `{"jsonrpc":"2.0","method":"sum","params":[3],"id":true}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"id must be a string, a number or null"},"id":null}`},
	{"missing jsonrpc", `{"method":"sum","params":[3],"id":8}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"\"jsonrpc\" must be exactly \"2.0\""},"id":8}`},
	{"jsonrpc 1.0", `{"jsonrpc":"1.0","method":"sum","params":[3],"id":8}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"\"jsonrpc\" must be exactly \"2.0\""},"id":8}`},
	{"scalar params", `{"jsonrpc":"2.0","method":"sum","params":3,"id":9}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"\"params\" must be an object or an array"},"id":9}`},
	{"request with result", `{"jsonrpc":"2.0","method":"sum","result":1,"id":10}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"a request cannot carry result or error"},"id":10}`},
	{"no method, no result", `{"jsonrpc":"2.0","id":11}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"a message needs \"method\" (request) or \"result\"/\"error\" (response)"},"id":11}`},
	{"not an object", `"hello"`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"a message must be a JSON object"},"id":null}`},
}

func TestSpecificationExamples(t *testing.T) {
	for _, f := range []framing.Framing{framing.NDJSON, framing.ContentLength} {
		t.Run(f.Name(), func(t *testing.T) {
			// One handler at a time, so that a reply cannot be overtaken by
			// the fence of the next case and show up there.
			_, p := newRaw(t, Options{Framing: f, Handler: specHandler, MaxConcurrentRequests: 1})
			for i, tc := range specCases {
				p.send(tc.send)
				// A request with a fresh id after each case proves that a
				// case expecting no reply really got none.
				fence := fmt.Sprintf(`{"jsonrpc":"2.0","method":"sum","params":[],"id":"fence-%d"}`, i)
				p.send(fence)
				// Requests run concurrently, so the fence's answer may come
				// first: collect frames until it arrives.
				fenceID := fmt.Sprintf(`"fence-%d"`, i)
				var others []string
				for fenced := false; !fenced || tc.want != noReply && len(others) == 0; {
					got := p.recv()
					if strings.Contains(got, fenceID) {
						assertSameJSON(t, tc.name+" (fence)", got, `{"jsonrpc":"2.0","result":0,"id":`+fenceID+`}`)
						fenced = true
						continue
					}
					others = append(others, got)
				}
				switch {
				case tc.want == noReply && len(others) > 0:
					t.Errorf("%s: want no reply, got %q", tc.name, others)
				case tc.want != noReply && len(others) != 1:
					t.Errorf("%s: want one reply, got %q", tc.name, others)
				case tc.want != noReply:
					assertSameJSON(t, tc.name, others[0], tc.want)
				}
			}
		})
	}
}

func TestIDAbove2To53IsEchoedExactly(t *testing.T) {
	_, p := newRaw(t, Options{Handler: specHandler})
	for _, id := range []string{"9007199254740993", "123456789012345678901234567890", "1.5e3", "-0"} {
		p.send(`{"jsonrpc":"2.0","method":"sum","params":[1],"id":` + id + `}`)
		raw := p.recv()
		want := `{"jsonrpc":"2.0","id":` + id + `,"result":1}`
		if raw != want {
			t.Errorf("id %s: got %s, want %s", id, raw, want)
		}
	}
}

// assertSameJSON compares two JSON texts structurally; arrays of responses
// (batches) compare regardless of order.
func assertSameJSON(t *testing.T, name, got, want string) {
	t.Helper()
	g, w := mustJSON(t, got), mustJSON(t, want)
	if ga, ok := g.([]any); ok {
		sortByJSON(ga)
	}
	if wa, ok := w.([]any); ok {
		sortByJSON(wa)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got  %s\n want %s", name, got, want)
	}
}

func sortByJSON(xs []any) {
	sort.Slice(xs, func(i, j int) bool {
		a, _ := json.Marshal(xs[i])
		b, _ := json.Marshal(xs[j])
		return string(a) < string(b)
	})
}
