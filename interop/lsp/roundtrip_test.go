package lsp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/rpcimpl"
)

// wireMessage is one message gopls sent, classified: a request or a
// notification with its params, or a response to one of our requests,
// named after the method of that request.
type wireMessage struct {
	Kind   string // "request", "notification" or "response"
	Method string
	ID     json.RawMessage
	Params json.RawMessage // of a request or a notification
	Result json.RawMessage // of a response; nil when it is an error
	Error  json.RawMessage // of an error response
	Raw    json.RawMessage
}

// classify sorts what gopls sent (received) using what we sent (sent) to
// name the responses.
func classify(sent, received []json.RawMessage) ([]wireMessage, error) {
	ours := map[string]string{} // id text -> method of our request
	for _, b := range sent {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(b, &m) == nil && m.ID != nil && m.Method != "" {
			ours[string(m.ID)] = m.Method
		}
	}
	var out []wireMessage
	for i, b := range received {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return out, fmt.Errorf("message %d: %v", i+1, err)
		}
		w := wireMessage{ID: m["id"], Params: m["params"], Result: m["result"], Error: m["error"], Raw: b}
		switch {
		case m["method"] != nil:
			if err := json.Unmarshal(m["method"], &w.Method); err != nil {
				return out, fmt.Errorf("message %d: method: %v", i+1, err)
			}
			w.Kind = "notification"
			if w.ID != nil {
				w.Kind = "request"
			}
		case w.ID != nil:
			w.Kind = "response"
			w.Method = ours[string(w.ID)]
			if w.Method == "" {
				return out, fmt.Errorf("message %d answers id %s, which is none of our requests: %s", i+1, w.ID, b)
			}
		default:
			return out, fmt.Errorf("message %d is neither a request, a notification nor a response: %s", i+1, b)
		}
		out = append(out, w)
	}
	return out, nil
}

// reencode decodes raw into a T with encoding/json (a generated type's
// UnmarshalJSON) and encodes the value again the way the runtime sends it:
// with its AppendJSON when it has one, else with encoding/json.
func reencode[T any](raw json.RawMessage) ([]byte, error) {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("decoding into %T: %w", v, err)
	}
	b, err := rpcimpl.AppendValue(nil, v)
	if err != nil {
		return nil, fmt.Errorf("encoding %T: %w", v, err)
	}
	return b, nil
}

// jsonDiff returns "" when a and b are the same JSON value, member order
// aside; numbers must be written alike (1 and 1.0 differ) and null differs
// from an absent member. Otherwise it names the first difference by its
// path.
func jsonDiff(a, b []byte) string {
	va, err := decodeNumbers(a)
	if err != nil {
		return fmt.Sprintf("first value: %v", err)
	}
	vb, err := decodeNumbers(b)
	if err != nil {
		return fmt.Sprintf("second value: %v", err)
	}
	return diffValues("$", va, vb)
}

func decodeNumbers(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func diffValues(path string, a, b any) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: object, then %s", path, show(b))
		}
		keys := slices.Collect(maps.Keys(x))
		for k := range y {
			if _, inX := x[k]; !inX {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			xv, inX := x[k]
			yv, inY := y[k]
			switch {
			case !inY:
				return fmt.Sprintf("%s.%s: %s, then absent", path, k, show(xv))
			case !inX:
				return fmt.Sprintf("%s.%s: absent, then %s", path, k, show(yv))
			}
			if d := diffValues(path+"."+k, xv, yv); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: %s, then %s", path, show(a), show(b))
		}
		for i := range x {
			if d := diffValues(fmt.Sprintf("%s[%d]", path, i), x[i], y[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if show(a) != show(b) {
		return fmt.Sprintf("%s: %s, then %s", path, show(a), show(b))
	}
	return ""
}

// show renders a decoded value, numbers as written.
func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The helpers the round-trip check of gopls's messages is made of.
func TestRoundTripHelpers(t *testing.T) {
	for _, c := range []struct{ a, b, diff string }{
		{`{"a":1,"b":[true,null,"x"]}`, `{"b":[true,null,"x"],"a":1}`, ""},
		{`{"a":1}`, `{"a":1.0}`, "$.a: 1, then 1.0"},
		{`{"a":null}`, `{}`, "$.a: null, then absent"},
		{`{}`, `{"a":{}}`, "$.a: absent, then {}"},
		{`[1,2]`, `[1]`, "$: [1,2], then [1]"},
		{`{"a":[{"b":"x"}]}`, `{"a":[{"b":"y"}]}`, `$.a[0].b: "x", then "y"`},
		{`"Zoë"`, `"Zo\u00eb"`, ""},
	} {
		if got := jsonDiff([]byte(c.a), []byte(c.b)); got != c.diff {
			t.Errorf("jsonDiff(%s, %s) = %q, want %q", c.a, c.b, got, c.diff)
		}
	}

	type position struct {
		Line      uint32 `json:"line"`
		Character uint32 `json:"character"`
	}
	raw := json.RawMessage(`{"character":4,"line":2,"extra":true}`)
	b, err := reencode[position](raw)
	if err != nil || jsonDiff(raw, b) != "$.extra: true, then absent" {
		t.Errorf("reencode[position](%s) = %s, %v: want the extra member reported lost", raw, b, err)
	}
	b, err = reencode[appended](json.RawMessage(`{"a":1}`))
	if err != nil || string(b) != `{"by":"AppendJSON"}` {
		t.Errorf("reencode[appended] = %s, %v: want the output of its AppendJSON", b, err)
	}
	if _, err := reencode[position](json.RawMessage(`{"line":-1}`)); err == nil || !strings.Contains(err.Error(), "decoding into") {
		t.Errorf("reencode of a negative line: %v, want a decoding error", err)
	}

	sent := []json.RawMessage{json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)}
	got, err := classify(sent, []json.RawMessage{
		json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"capabilities":{}}}`),
		json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"workspace/configuration","params":{"items":[]}}`),
		json.RawMessage(`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"t","value":{}}}`),
	})
	var kinds []string
	for _, m := range got {
		kinds = append(kinds, m.Kind+" "+m.Method)
	}
	if err != nil || strings.Join(kinds, ", ") != "response initialize, request workspace/configuration, notification $/progress" {
		t.Errorf("classify: %q, %v", kinds, err)
	}
	if _, err := classify(sent, []json.RawMessage{json.RawMessage(`{"jsonrpc":"2.0","id":7,"result":null}`)}); err == nil {
		t.Error("classify accepted a response to an id we never sent")
	}
}

// appended has an AppendJSON, as generated types do.
type appended struct{ A int }

func (appended) AppendJSON(b []byte) ([]byte, error) { return append(b, `{"by":"AppendJSON"}`...), nil }

// jsonDiffPlain is jsonDiff for a value decoded and encoded again, where a
// member that is false in a may be absent in b: an optional boolean is held
// as a plain bool, and false is left out, which means the same (see
// gen/golang/README.md, "Optional members").
func jsonDiffPlain(a, b []byte) string {
	va, err := decodeNumbers(a)
	if err != nil {
		return fmt.Sprintf("first value: %v", err)
	}
	vb, err := decodeNumbers(b)
	if err != nil {
		return fmt.Sprintf("second value: %v", err)
	}
	return diffValues("$", dropFalse(va), vb)
}

// dropFalse removes the object members whose value is false, at any depth.
func dropFalse(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, m := range x {
			if m == false {
				delete(x, k)
			} else {
				x[k] = dropFalse(m)
			}
		}
	case []any:
		for i := range x {
			x[i] = dropFalse(x[i])
		}
	}
	return v
}
