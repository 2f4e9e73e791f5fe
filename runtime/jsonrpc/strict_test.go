package jsonrpc

import (
	"encoding/json"
	"errors"
	"testing"
)

type strictInner struct {
	Name string `json:"name"`
}

type strictEmbedded struct {
	Extra int `json:"extra_known"`
}

// strictUnion is shaped like a generated union: untagged pointers and an
// UnmarshalJSON that picks one.
type strictUnion struct {
	A *strictInner
	B *struct {
		Size int `json:"size"`
	}
}

func (u *strictUnion) UnmarshalJSON(b []byte) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return err
	}
	if _, ok := probe["name"]; ok {
		u.A = new(strictInner)
		return json.Unmarshal(b, u.A)
	}
	u.B = new(struct {
		Size int `json:"size"`
	})
	return json.Unmarshal(b, u.B)
}

type strictParams struct {
	strictEmbedded
	Inner   strictInner            `json:"inner"`
	List    []strictInner          `json:"list"`
	ByKey   map[string]strictInner `json:"by_key"`
	Shape   strictUnion            `json:"shape"`
	Raw     json.RawMessage        `json:"raw"`
	Skipped string                 `json:"-"`
	Plain   int
}

func TestStrictDecodingFindsUnknownMembersAtAnyDepth(t *testing.T) {
	tests := []struct {
		params string
		field  string // "" when accepted
	}{
		{`{"inner":{"name":"x"},"list":[{"name":"a"}],"by_key":{"k":{"name":"b"}},"shape":{"size":1},"raw":{"any":[1]},"extra_known":1,"PLAIN":2}`, ""},
		{`{"nope":1}`, "nope"},
		{`{"inner":{"name":"x","nope":1}}`, "inner.nope"},
		{`{"list":[{"name":"a"},{"name":"b","nope":1}]}`, "list[1].nope"},
		{`{"by_key":{"k":{"nope":1}}}`, "by_key.k.nope"},
		{`{"shape":{"name":"x","nope":1}}`, "shape.nope"},
		{`{"shape":{"size":1,"nope":1}}`, "shape.nope"},
		{`{"Skipped":"x"}`, "Skipped"},
	}
	for _, tt := range tests {
		req := &Request{Params: json.RawMessage(tt.params), strict: true}
		var p strictParams
		err := req.DecodeParams(&p)
		if tt.field == "" {
			if err != nil {
				t.Errorf("%s: rejected: %v", tt.params, err)
			}
			continue
		}
		var rpcErr *Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != CodeInvalidParams {
			t.Errorf("%s: got %v, want -32602", tt.params, err)
			continue
		}
		var raw struct{ Field, Reason string }
		if json.Unmarshal(rpcErr.Data, &raw) != nil || raw.Field != tt.field || raw.Reason != "unknown field" {
			t.Errorf("%s: data %s, want unknown field %q", tt.params, rpcErr.Data, tt.field)
		}
		// Without strict mode the same params are accepted.
		req.strict = false
		if err := req.DecodeParams(&strictParams{}); err != nil {
			t.Errorf("%s: rejected without strict mode: %v", tt.params, err)
		}
	}
}
