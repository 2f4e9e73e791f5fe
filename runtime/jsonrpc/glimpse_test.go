package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestGlimpse(t *testing.T) {
	big := strings.Repeat("x", 300)
	for _, c := range []struct {
		name, head, tail string
		want             glimpse
	}{
		{"response, id first", `{"jsonrpc":"2.0","id":7,"result":"` + big, big + `"}`, glimpse{response: true, id: []byte(`7`)}},
		{"response, id last", `{"jsonrpc":"2.0","result":{"a":[` + big, big + `]}, "id" : 7 }` + "\r\n", glimpse{response: true, id: []byte(`7`)}},
		{"error response", ` { "jsonrpc" : "2.0" , "error" : {"code":1,"message":"` + big, big + `"},"id":"q\"\\"}`, glimpse{response: true, id: []byte(`"q\"\\"`)}},
		{"request", `{"jsonrpc":"2.0","id":"a\"b","method":"m","params":[` + big, big + `]}`, glimpse{request: true, id: []byte(`"a\"b"`)}},
		{"request, id last", `{"method":"m","params":{"s":"}\"id\":1"` + big, big + `"},"id":12}`, glimpse{request: true, id: []byte(`12`)}},
		{"notification", `{"jsonrpc":"2.0","method":"m","params":[` + big, big + `]}`, glimpse{request: true}},
		{"id cut off", `{"jsonrpc":"2.0","result":1,"id":1234`, `x`, glimpse{response: true}},
		{"id not a string or number", `{"id":true,"method":"m","params":"` + big, big + `"}`, glimpse{request: true}},
		{"null id", `{"method":"m","params":"` + big, big + `","id":null}`, glimpse{request: true}},
		{"id nested in the tail", `{"jsonrpc":"2.0","result":{"` + big, `{"id":5}}`, glimpse{response: true}},
		{"id in a string in the tail", `{"result":"` + big, `","id":5}"}`, glimpse{response: true}},
		{"batch", `[{"jsonrpc":"2.0","id":1,"result":"` + big, big + `","id":2}]`, glimpse{}},
		{"escaped member name", `{"jsonrpc":"2.0","\u0069d":3,"result":"` + big, big + `"}`, glimpse{}},
		{"not JSON", `Content-Length: 5`, `hello`, glimpse{}},
		{"empty", ``, ``, glimpse{}},
	} {
		got := glimpseOf([]byte(c.head), []byte(c.tail))
		if got.request != c.want.request || got.response != c.want.response || string(got.id) != string(c.want.id) {
			t.Errorf("%s: glimpse = {request %v, response %v, id %s}; want {%v, %v, %s}",
				c.name, got.request, got.response, got.id, c.want.request, c.want.response, c.want.id)
		}
	}
}

// FuzzGlimpse checks that reading the ends of a message never panics,
// that an id it finds is a valid id, and that for a whole message whose
// members have plain names it finds the message's own id.
func FuzzGlimpse(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"result":"x"}`), []byte(`"x"},"id":7}`))
	f.Add([]byte(`{"method":"m","params":[1,{"a":"]"}],"id":"\\\""}`), []byte(`{"id":"\\"}`))
	f.Add([]byte(`{"id":1e5,"error":{}}`), []byte(`,"id":-0.5e+3}`))
	f.Fuzz(func(t *testing.T, head, tail []byte) {
		g := glimpseOf(head, tail)
		if g.id != nil && !validID(g.id) {
			t.Fatalf("glimpse id %q is not a valid id", g.id)
		}
		if g.request && g.response {
			t.Fatal("a message taken for both a request and a response")
		}
		if id := trailingID(tail); id != nil && !validID(id) {
			t.Fatalf("trailing id %q is not a valid id", id)
		}
		var whole map[string]json.RawMessage
		if !json.Valid(head) || json.Unmarshal(head, &whole) != nil || strings.Contains(string(head), `\`) {
			return
		}
		id, ok := whole["id"]
		if !ok || !validID(id) || string(id) == "null" || strings.Count(string(head), `"id"`) != 1 {
			return
		}
		if got := glimpseOf(head, nil); string(got.id) != string(id) {
			t.Fatalf("glimpse of %s found id %s, want %s", head, got.id, id)
		}
	})
}
