package rpcimpl

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// TestDecodeRawObject checks that an object is kept as sent, without the
// space around it, null clears the member, and anything else gets the
// error a map member gets.
func TestDecodeRawObject(t *testing.T) {
	for _, s := range []string{`{}`, ` {"a" : 1 , "b":[2, {"c":null}],"a":"x"} `, `null`, `{"\u00e9":true,"":""}`, `5`, `"x"`, `[1]`, `true`, `{"a":}`, ``} {
		v := json.RawMessage("stale")
		err := DecodeRawObject([]byte(s), &v)
		var m map[string]json.RawMessage
		werr := DecodeRawMap([]byte(s), &m)
		if fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Errorf("DecodeRawObject(%s) failed with %v, want %v", s, err, werr)
		}
		switch trimmed := strings.TrimSpace(s); {
		case werr != nil:
		case trimmed == "null":
			if v != nil {
				t.Errorf("DecodeRawObject(null) left %q, want nil", v)
			}
		case string(v) != trimmed:
			t.Errorf("DecodeRawObject(%s) kept %q, want %q", s, v, trimmed)
		}
	}
	msg := []byte(`{"query":"rpc","limit":10,"hits":[{"title":"a"},{"title":"b"}],"total":2}`)
	var v json.RawMessage
	if n := testing.AllocsPerRun(100, func() { _ = DecodeRawObject(msg, &v) }); n != 1 {
		t.Errorf("%v allocations to keep an object, want 1: its copy", n)
	}
}

// FuzzDecodeRawObject checks DecodeRawObject against DecodeRawMap (itself
// checked against encoding/json): the same errors, and the members of
// what it keeps are the map's.
func FuzzDecodeRawObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":[2],"a":null}`, ` { "\u0061" : "x" } `, `[]`, `null`, `{"a":{"b":{}}, "c" : "\"}"}`, `{"a":1`, `7`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v json.RawMessage
		err := DecodeRawObject(b, &v)
		var want map[string]json.RawMessage
		werr := DecodeRawMap(b, &want)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("DecodeRawObject(%q) failed with %v, DecodeRawMap with %v", b, err, werr)
		}
		if err != nil || v == nil {
			return
		}
		var got map[string]json.RawMessage
		if err := DecodeRawMap(v, &got); err != nil || len(got) != len(want) {
			t.Fatalf("DecodeRawObject(%q) kept %q: %v members (%v), want %d", b, v, len(got), err, len(want))
		}
		for k, w := range want {
			if string(got[k]) != string(w) {
				t.Fatalf("DecodeRawObject(%q) kept %q: member %q is %s, want %s", b, v, k, got[k], w)
			}
		}
	})
}

// searchArgs has its own encoding and decoding, counted, as a demanding
// user's type would.
type searchArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
}

var appendCalls, unmarshalCalls int

func (a searchArgs) AppendJSON(b []byte) ([]byte, error) {
	appendCalls++
	type plain searchArgs
	out, err := json.Marshal(plain(a))
	return append(b, out...), err
}

func (a *searchArgs) UnmarshalJSON(b []byte) error {
	unmarshalCalls++
	type plain searchArgs
	if err := json.Unmarshal(b, (*plain)(a)); err != nil {
		return err
	}
	if a.Query == "" {
		return &jsonrpc.FieldError{Field: "query", Reason: "required field is missing"}
	}
	return nil
}

// marshalsTo encodes as the JSON it holds, with MarshalJSON.
type marshalsTo string

func (m marshalsTo) MarshalJSON() ([]byte, error) { return []byte(m), nil }

func TestEncodeObject(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want string // "" for nil
		err  string // part of the error, "" for none
	}{
		{name: "struct", v: struct {
			A int `json:"a"`
		}{1}, want: `{"a":1}`},
		{name: "map", v: map[string]any{"x": []int{1}}, want: `{"x":[1]}`},
		{name: "own AppendJSON", v: searchArgs{Query: "q", Limit: 2}, want: `{"query":"q","limit":2}`},
		{name: "own MarshalJSON", v: marshalsTo(` {"kept" : true} `), want: ` {"kept" : true} `},
		{name: "raw", v: json.RawMessage(`{"r":[]}`), want: `{"r":[]}`},
		{name: "nil", v: nil},
		{name: "nil pointer", v: (*searchArgs)(nil)},
		{name: "null", v: json.RawMessage(`null`)},
		{name: "array", v: []int{1}, err: "[]int encodes as a JSON array, not an object"},
		{name: "number", v: 5, err: "int encodes as a JSON number, not an object"},
		{name: "invalid MarshalJSON", v: marshalsTo(`{"a":`), err: "rpcimpl.marshalsTo does not encode as valid JSON"},
		{name: "unencodable", v: map[string]any{"f": func() {}}, err: "unsupported type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := EncodeObject(tc.v)
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("EncodeObject = %q, %v; want an error with %q", got, err, tc.err)
				}
			case err != nil:
				t.Errorf("EncodeObject failed: %v", err)
			case tc.want == "" && got != nil:
				t.Errorf("EncodeObject = %q, want nil", got)
			case string(got) != tc.want:
				t.Errorf("EncodeObject = %q, want %q", got, tc.want)
			}
		})
	}
	appendCalls = 0
	if _, err := EncodeObject(searchArgs{Query: "q"}); err != nil || appendCalls != 1 {
		t.Errorf("EncodeObject called AppendJSON %d times (%v), want once", appendCalls, err)
	}
}

// FuzzEncodeObject checks what EncodeObject accepts from a value's own
// MarshalJSON and from a json.RawMessage against encoding/json: valid
// JSON that is an object is kept as it is, null gives nil, and anything
// else is refused.
func FuzzEncodeObject(f *testing.F) {
	for _, s := range []string{`{}`, ` {"a" : [1, {"b":null}]} `, `null`, `[]`, `"x"`, `{"a":`, `{"a":1}}`, `{"\u00e9":"\ud800"}`, "{\"a\":\"\x01\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := ""
		switch {
		case !json.Valid(b):
			want = "does not encode as valid JSON"
		case jsonscan.Kind(b) == "null":
			want = "null"
		case jsonscan.Kind(b) != "object":
			want = "not an object"
		}
		for _, v := range []any{json.RawMessage(b), marshalsTo(b)} {
			got, err := EncodeObject(v)
			switch want {
			case "":
				if err != nil || string(got) != string(b) {
					t.Fatalf("EncodeObject(%T(%q)) = %q, %v; want it kept", v, b, got, err)
				}
			case "null":
				if err != nil || got != nil {
					t.Fatalf("EncodeObject(%T(%q)) = %q, %v; want nil", v, b, got, err)
				}
			default:
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("EncodeObject(%T(%q)) = %q, %v; want an error saying %q", v, b, got, err, want)
				}
			}
		}
	})
}

func TestDecodeRawInto(t *testing.T) {
	var plain struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if err := DecodeRawInto("arguments", json.RawMessage(`{"query":"q","limit":3}`), &plain); err != nil || plain.Query != "q" || plain.Limit != 3 {
		t.Errorf("DecodeRawInto = %+v, %v", plain, err)
	}
	var m map[string]int
	if err := DecodeRawInto("arguments", nil, &m); err != nil || m == nil || len(m) != 0 {
		t.Errorf("an absent member decoded as %v (%v), want an empty map", m, err)
	}
	unmarshalCalls = 0
	var own searchArgs
	if err := DecodeRawInto("arguments", json.RawMessage(`{"query":"q","limit":3}`), &own); err != nil || own != (searchArgs{"q", 3}) || unmarshalCalls != 1 {
		t.Errorf("DecodeRawInto = %+v, %v, with %d UnmarshalJSON calls, want 1", own, err, unmarshalCalls)
	}
	for _, tc := range []struct {
		raw   string
		v     any
		field string
		why   string
	}{
		{`{"query":"q","limit":"3"}`, &plain, "arguments.limit", "expected integer, got JSON string"},
		{`{"limit":3}`, new(searchArgs), "arguments.query", "required field is missing"},
		{`{"query":"q","limit":[]}`, new(searchArgs), "arguments.limit", "expected integer, got JSON array"},
		{`{"query":"q"}`, &[]int{}, "arguments", "expected array, got JSON object"},
	} {
		err := DecodeRawInto("arguments", json.RawMessage(tc.raw), tc.v)
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("DecodeRawInto(%s) = %v, want a -32602 error", tc.raw, err)
			continue
		}
		var data struct{ Field, Reason string }
		if err := json.Unmarshal(rpcErr.Data, &data); err != nil || data.Field != tc.field || data.Reason != tc.why {
			t.Errorf("DecodeRawInto(%s): data %s, want field %q and reason %q", tc.raw, rpcErr.Data, tc.field, tc.why)
		}
	}
}
