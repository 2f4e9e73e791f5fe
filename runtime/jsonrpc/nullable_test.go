package jsonrpc

import (
	"encoding/json"
	"testing"
)

// holder is a struct as generated code declares it: an optional member
// that may be null.
type holder struct {
	N Nullable[int64] `json:"n,omitzero"`
}

func TestNullableKeepsThreeStates(t *testing.T) {
	for _, tc := range []struct {
		in    string
		state NullState
	}{
		{`{}`, Absent},
		{`{"n":null}`, Null},
		{`{"n":0}`, Present},
		{`{"n":42}`, Present},
	} {
		var h holder
		if err := json.Unmarshal([]byte(tc.in), &h); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if h.N.State != tc.state {
			t.Errorf("%s: state %d, want %d", tc.in, h.N.State, tc.state)
		}
		out, err := json.Marshal(h)
		if err != nil || string(out) != tc.in {
			t.Errorf("%s encoded back as %s (%v)", tc.in, out, err)
		}
	}
}

func TestNullableAPI(t *testing.T) {
	if v, ok := Some("x").Get(); !ok || v != "x" {
		t.Errorf("Some(x).Get() = %q, %v", v, ok)
	}
	if _, ok := NullOf[string]().Get(); ok || !NullOf[string]().IsNull() || NullOf[string]().IsZero() {
		t.Error("NullOf is not null")
	}
	var absent Nullable[string]
	if !absent.IsZero() || absent.IsNull() {
		t.Error("the zero Nullable is not absent")
	}
	if b, _ := absent.AppendJSON(nil); string(b) != "null" {
		t.Errorf("an absent member where it cannot be left out encodes as %s, want null", b)
	}
}

// FuzzNullable checks that any JSON value decodes into a Nullable of raw
// JSON or fails cleanly, and that what decodes encodes back to the same
// value.
func FuzzNullable(f *testing.F) {
	for _, s := range []string{`null`, ` null `, `0`, `"a"`, `[1,null]`, `{"a":null}`, `nul`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var n Nullable[json.RawMessage]
		if err := n.UnmarshalJSON(b); err != nil {
			return
		}
		out, err := n.AppendJSON(nil)
		if err != nil {
			t.Fatalf("%q decoded but does not encode: %v", b, err)
		}
		var again Nullable[json.RawMessage]
		if err := again.UnmarshalJSON(out); err != nil || again.State != n.State {
			t.Fatalf("%q -> %s -> state %d (%v), want %d", b, out, again.State, err, n.State)
		}
	})
}
