package conformance_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// noReply marks a case whose message must get no answer at all.
const noReply = ""

// Errors the generated server answers, as they go on the wire.
const (
	positional  = `{"code": -32602, "message": "Invalid params", "data": {"reason": "expected a JSON object"}}`
	notAnObject = `{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request", "data": "a message must be a JSON object"}, "id": null}`
	badID       = `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"id must be a string, a number or null"},"id":null}`
)

// specCases are the request/response examples of section 7 of the JSON-RPC
// 2.0 specification, with the spec's bytes, then id edge cases. Where the
// spec sends positional params (an array), the generated server answers
// -32602: rpcgen params are objects, sent by name (see README.md). Each
// such case has a twin with the same values by name, answered as the spec
// answers the positional one.
var specCases = []struct {
	name, send, want string
}{
	{"positional params", `{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}`, `{"jsonrpc": "2.0", "error": ` + positional + `, "id": 1}`},
	{"positional params reversed", `{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}`, `{"jsonrpc": "2.0", "error": ` + positional + `, "id": 2}`},
	{"named params", `{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}`, `{"jsonrpc": "2.0", "result": 19, "id": 3}`},
	{"named params reordered", `{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}`, `{"jsonrpc": "2.0", "result": 19, "id": 4}`},
	{"named params reversed (twin of positional reversed)", `{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 23, "subtrahend": 42}, "id": 2}`, `{"jsonrpc": "2.0", "result": -19, "id": 2}`},
	{"notification", `{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}`, noReply},
	{"notification, named", `{"jsonrpc": "2.0", "method": "update", "params": {"values": [1,2,3,4,5]}}`, noReply},
	{"notification without params", `{"jsonrpc": "2.0", "method": "foobar"}`, noReply},
	{"unknown method", `{"jsonrpc": "2.0", "method": "foobar", "id": "1"}`, `{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found", "data": {"method": "foobar"}}, "id": "1"}`},
	{"invalid JSON", `{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`, `{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error: invalid JSON"}, "id": null}`},
	{"invalid request object", `{"jsonrpc": "2.0", "method": 1, "params": "bar"}`, `{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request", "data": "\"method\" must be a string"}, "id": null}`},
	{"batch, invalid JSON", `[
  {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
  {"jsonrpc": "2.0", "method"
]`, `{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error: invalid JSON"}, "id": null}`},
	{"empty batch", `[]`, `{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request", "data": "a batch must not be empty"}, "id": null}`},
	{"invalid batch, not empty", `[1]`, `[` + notAnObject + `]`},
	{"invalid batch", `[1,2,3]`, `[` + notAnObject + `,` + notAnObject + `,` + notAnObject + `]`},
	{"batch", `[
        {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
        {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
        {"foo": "boo"},
        {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
        {"jsonrpc": "2.0", "method": "get_data", "id": "9"} 
    ]`, `[
        {"jsonrpc": "2.0", "error": ` + positional + `, "id": "1"},
        {"jsonrpc": "2.0", "error": ` + positional + `, "id": "2"},
        {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request", "data": "\"jsonrpc\" must be exactly \"2.0\""}, "id": null},
        {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found", "data": {"method": "foo.get"}}, "id": "5"},
        {"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"}
    ]`},
	{"batch, named (twin of batch)", `[
        {"jsonrpc": "2.0", "method": "sum", "params": {"values": [1,2,4]}, "id": "1"},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": {"value": 7}},
        {"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": "2"},
        {"foo": "boo"},
        {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
        {"jsonrpc": "2.0", "method": "get_data", "id": "9"} 
    ]`, `[
        {"jsonrpc": "2.0", "result": 7, "id": "1"},
        {"jsonrpc": "2.0", "result": 19, "id": "2"},
        {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request", "data": "\"jsonrpc\" must be exactly \"2.0\""}, "id": null},
        {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found", "data": {"method": "foo.get"}}, "id": "5"},
        {"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"}
    ]`},
	{"batch, all notifications", `[
        {"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}
    ]`, noReply},
	{"batch, all notifications, named", `[{"jsonrpc": "2.0", "method": "notify_sum", "params": {"values": [1,2,4]}},{"jsonrpc": "2.0", "method": "notify_hello", "params": {"value": 7}}]`, noReply},

	// Id edge cases: echoed as received.
	{"string id", `{"jsonrpc":"2.0","method":"sum","params":{"values":[1]},"id":"abc"}`, `{"jsonrpc":"2.0","result":1,"id":"abc"}`},
	{"non-ASCII string id", `{"jsonrpc":"2.0","method":"sum","params":{"values":[1]},"id":"añ-\u00e9-€"}`, `{"jsonrpc":"2.0","result":1,"id":"añ-é-€"}`},
	{"empty string id", `{"jsonrpc":"2.0","method":"sum","params":{"values":[1]},"id":""}`, `{"jsonrpc":"2.0","result":1,"id":""}`},
	{"number id", `{"jsonrpc":"2.0","method":"sum","params":{"values":[2]},"id":42}`, `{"jsonrpc":"2.0","result":2,"id":42}`},
	{"zero id", `{"jsonrpc":"2.0","method":"sum","params":{"values":[2]},"id":0}`, `{"jsonrpc":"2.0","result":2,"id":0}`},
	{"negative id", `{"jsonrpc":"2.0","method":"sum","params":{"values":[3]},"id":-7}`, `{"jsonrpc":"2.0","result":3,"id":-7}`},
	{"null id", `{"jsonrpc":"2.0","method":"sum","params":{"values":[2]},"id":null}`, `{"jsonrpc":"2.0","result":2,"id":null}`},
	{"id 2^53+1", `{"jsonrpc":"2.0","method":"sum","params":{"values":[4]},"id":9007199254740993}`, `{"jsonrpc":"2.0","result":4,"id":9007199254740993}`},
	{"id above int64", `{"jsonrpc":"2.0","method":"sum","params":{"values":[4]},"id":123456789012345678901234567890}`, `{"jsonrpc":"2.0","result":4,"id":123456789012345678901234567890}`},
	{"object id", `{"jsonrpc":"2.0","method":"sum","params":{"values":[3]},"id":{"a":1}}`, badID},
	{"array id", `{"jsonrpc":"2.0","method":"sum","params":{"values":[3]},"id":[1]}`, badID},
	{"boolean id", `{"jsonrpc":"2.0","method":"sum","params":{"values":[3]},"id":true}`, badID},
	{"ids in a batch", `[{"jsonrpc":"2.0","method":"sum","params":{"values":[1]},"id":9007199254740993},{"jsonrpc":"2.0","method":"sum","params":{"values":[2]},"id":"9007199254740993"}]`,
		`[{"jsonrpc":"2.0","result":1,"id":9007199254740993},{"jsonrpc":"2.0","result":2,"id":"9007199254740993"}]`},

	// Other request-object errors.
	{"missing jsonrpc", `{"method":"sum","params":{"values":[3]},"id":8}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"\"jsonrpc\" must be exactly \"2.0\""},"id":8}`},
	{"scalar params", `{"jsonrpc":"2.0","method":"sum","params":3,"id":9}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"\"params\" must be an object or an array"},"id":9}`},
	{"named params of the wrong type", `{"jsonrpc":"2.0","method":"subtract","params":{"minuend":"42","subtrahend":23},"id":10}`, `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":{"field":"minuend","reason":"expected integer, got JSON string"}},"id":10}`},
	{"named params missing one", `{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42},"id":11}`, `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":{"field":"subtrahend","reason":"required field is missing"}},"id":11}`},
}

// TestSpecificationExamples sends every case as raw bytes to the generated
// server, a child process, over each framing, and compares each answer
// exactly (ids byte for byte, batches in any order).
func TestSpecificationExamples(t *testing.T) {
	for _, f := range []string{ndjson, contentLength} {
		t.Run(f, func(t *testing.T) {
			t.Parallel()
			p := spawn(t, "specserver (generated specsvc)", f, bin.specserver, "-framing", f)
			for i, tc := range specCases {
				step := p.peer + " (" + f + "), step " + strconv.Quote(tc.name)
				msg := tc.send
				if f == ndjson {
					// One message per line: the spec's multi-line
					// examples go without their line breaks.
					msg = strings.ReplaceAll(msg, "\n", "")
				}
				p.send(msg)
				// A request with a fresh id after each case proves that
				// a case expecting no answer really got none.
				fenceID := fmt.Sprintf(`"fence-%d"`, i)
				p.send(`{"jsonrpc":"2.0","method":"get_data","id":` + fenceID + `}`)
				var others [][]byte
				for fenced := false; !fenced || tc.want != noReply && len(others) == 0; {
					got := p.recv(step)
					if bytes.Contains(got, []byte(fenceID)) {
						assertSameJSON(t, step+" (fence)", got, `{"jsonrpc":"2.0","result":["hello",5],"id":`+fenceID+`}`)
						fenced = true
						continue
					}
					others = append(others, got)
				}
				switch {
				case tc.want == noReply && len(others) > 0:
					t.Errorf("%s: sent %q, want no answer, got %q", step, msg, others)
				case tc.want != noReply && len(others) != 1:
					t.Errorf("%s: sent %q, want one answer, got %q", step, msg, others)
				case tc.want != noReply:
					if !assertSameJSON(t, step, others[0], tc.want) {
						t.Logf("sent %q", msg)
					}
				}
			}
		})
	}
}

// TestIDAbove2To53IsEchoedByteForByte checks the bytes of the answer, not
// a decoding of them: a peer that decodes ids as float64 would round
// 9007199254740993 to 9007199254740992.
func TestIDAbove2To53IsEchoedByteForByte(t *testing.T) {
	for _, f := range []string{ndjson, contentLength} {
		t.Run(f, func(t *testing.T) {
			t.Parallel()
			p := spawn(t, "specserver (generated specsvc)", f, bin.specserver, "-framing", f)
			for _, id := range []string{"9007199254740993", "-9007199254740993", "18446744073709551617", "123456789012345678901234567890", "1.5", "1e3", "-0"} {
				p.send(`{"jsonrpc":"2.0","method":"sum","params":{"values":[1]},"id":` + id + `}`)
				step := p.peer + " (" + f + "), id " + id
				got := p.recv(step)
				if want := `{"jsonrpc":"2.0","id":` + id + `,"result":1}`; string(got) != want {
					t.Errorf("%s: got %s, want %s", step, got, want)
				}
			}
		})
	}
}

// assertSameJSON compares two JSON texts structurally, numbers by their
// text; arrays at the top (batches) compare regardless of order.
func assertSameJSON(t *testing.T, step string, got []byte, want string) bool {
	t.Helper()
	g, err := decodeExact(got)
	if err != nil {
		t.Errorf("%s: the answer is not JSON: %v: %q", step, err, got)
		return false
	}
	w, err := decodeExact([]byte(want))
	if err != nil {
		t.Fatalf("%s: bad expectation: %v", step, err)
	}
	sortBatch(g)
	sortBatch(w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got  %s\n want %s", step, got, want)
		return false
	}
	return true
}

// decodeExact decodes JSON keeping numbers as their text.
func decodeExact(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

func sortBatch(v any) {
	xs, ok := v.([]any)
	if !ok {
		return
	}
	sort.Slice(xs, func(i, j int) bool {
		a, _ := json.Marshal(xs[i])
		b, _ := json.Marshal(xs[j])
		return string(a) < string(b)
	})
}
