package rpcimpl

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

func TestDecodeObject(t *testing.T) {
	var got []string
	err := DecodeObject([]byte(` { "b" : [1, {"x":"]"}], "\u0061" :"s\"q", "n":null,"o":{"k":{}} } `), func(key, value []byte) error {
		got = append(got, string(key)+"="+string(value))
		return nil
	})
	want := []string{`b=[1, {"x":"]"}]`, `a="s\"q"`, `n=null`, `o={"k":{}}`}
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("DecodeObject = %q, %v; want %q", got, err, want)
	}
	for _, bad := range []string{``, `[]`, `"x"`, `null`, `{`} {
		if err := DecodeObject([]byte(bad), func(k, v []byte) error { return nil }); err == nil {
			t.Errorf("DecodeObject(%q) accepted a non-object", bad)
		}
	}
	stop := errors.New("stop")
	if err := DecodeObject([]byte(`{"a":1,"b":2}`), func(k, v []byte) error { return stop }); err != stop {
		t.Errorf("DecodeObject did not return the callback's error: %v", err)
	}
	if err := DecodeObject([]byte(`{}`), func(k, v []byte) error { t.Error("called on an empty object"); return nil }); err != nil {
		t.Error(err)
	}
}

func TestFieldPaths(t *testing.T) {
	var typeErr error
	var n int
	typeErr = json.Unmarshal([]byte(`"x"`), &n)
	tests := []struct {
		err        error
		field      string
		wantReason string
	}{
		{AtField("context", AtField("selection", AtField("start", typeErr))), "context.selection.start", "expected integer, got JSON string"},
		{AtField("items", AtIndex(2, MissingField("name"))), "items[2].name", "required field is missing"},
		{AtIndex(0, AtIndex(1, errors.New("json: bad"))), "[0][1]", "bad"},
		{AtField("a", &jsonrpc.FieldError{Reason: "must be \"text\""}), "a", "must be \"text\""},
	}
	for _, tt := range tests {
		var fe *jsonrpc.FieldError
		if !errors.As(tt.err, &fe) || fe.Field != tt.field || fe.Reason != tt.wantReason {
			t.Errorf("got %#v, want field %q reason %q", tt.err, tt.field, tt.wantReason)
		}
	}
	if AtField("x", nil) != nil {
		t.Error("AtField(nil) is not nil")
	}
	// Through DecodeParams the path reaches the peer as -32602 data.
	req := &jsonrpc.Request{Params: json.RawMessage(`{"a":1}`)}
	err := req.DecodeParams(&pathChecked{})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(string(rpcErr.Data), `"field":"a[3].b"`) {
		t.Errorf("DecodeParams = %v", err)
	}
}

// pathChecked fails decoding with a nested path, as generated code does.
type pathChecked struct{}

func (*pathChecked) UnmarshalJSON(b []byte) error {
	return AtField("a", AtIndex(3, MissingField("b")))
}

// TestTypeErrorsSpeakJSON: a value of the wrong JSON type is described in
// JSON's terms, never with the Go type it was to decode into.
func TestTypeErrorsSpeakJSON(t *testing.T) {
	var (
		i  int64
		u  uint32
		f  float64
		b  bool
		s  string
		m  map[string]int
		sl []int
	)
	cases := []struct {
		target any
		input  string
		want   string
	}{
		{&i, `"x"`, "expected integer, got JSON string"},
		{&u, `-1`, "expected non-negative integer, got JSON number -1"},
		{&f, `true`, "expected number, got JSON boolean"},
		{&b, `1`, "expected boolean, got JSON number"},
		{&s, `{}`, "expected string, got JSON object"},
		{&m, `[]`, "expected object, got JSON array"},
		{&sl, `"x"`, "expected array, got JSON string"},
	}
	for _, c := range cases {
		err := json.Unmarshal([]byte(c.input), c.target)
		if err == nil {
			t.Fatalf("decoding %s into %T succeeded", c.input, c.target)
		}
		if got := reasonOf(err); got != c.want {
			t.Errorf("decoding %s into %T: reason %q, want %q", c.input, c.target, got, c.want)
		}
	}
}
