package rpcimpl

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

func TestGeneratedCodeHelpers(t *testing.T) {
	if err := NonNull([]byte(" null "), nil); err == nil || err.Error() != "must not be null" {
		t.Errorf("NonNull(null) = %v", err)
	}
	inner := errors.New("inner")
	if err := NonNull([]byte(`1`), inner); err != inner {
		t.Errorf("NonNull(1, inner) = %v", err)
	}

	var xs []int
	if err := DecodeArray([]byte(`[1,2,3]`), &xs, Unmarshal[int]); err != nil || fmt.Sprint(xs) != "[1 2 3]" {
		t.Errorf("DecodeArray = %v, %v", xs, err)
	}
	err := DecodeArray([]byte(`[1,"x"]`), &xs, Unmarshal[int])
	var fe *jsonrpc.FieldError
	if !errors.As(err, &fe) || fe.Field != "[1]" {
		t.Errorf("DecodeArray bad element = %v, want field [1]", err)
	}
	if err := DecodeArray([]byte(`null`), &xs, Unmarshal[int]); err != nil || xs != nil {
		t.Errorf("DecodeArray(null) = %v, %v", xs, err)
	}

	var m map[string]int
	if err := DecodeMap([]byte(`{"a":1,"b":2}`), &m, Unmarshal[int]); err != nil || m["a"] != 1 || m["b"] != 2 || len(m) != 2 {
		t.Errorf("DecodeMap = %v, %v", m, err)
	}
	err = DecodeMap([]byte(`{"a":1,"b":[]}`), &m, Unmarshal[int])
	if !errors.As(err, &fe) || fe.Field != "b" {
		t.Errorf("DecodeMap bad member = %v, want field b", err)
	}
	if err := DecodeMap([]byte(`null`), &m, Unmarshal[int]); err != nil || m != nil {
		t.Errorf("DecodeMap(null) = %v, %v", m, err)
	}

	for in, want := range map[string]string{`"s"`: "string", ` 1.5`: "number", `-1`: "number", `true`: "boolean", `false`: "boolean", `[]`: "array", `{}`: "object", `null`: "null", `  `: "nothing"} {
		if got := JSONKind([]byte(in)); got != want {
			t.Errorf("JSONKind(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExpectNull(t *testing.T) {
	for _, ok := range []string{"", "null", " null "} {
		if err := ExpectNull("shutdown", json.RawMessage(ok)); err != nil {
			t.Errorf("ExpectNull(%q) = %v", ok, err)
		}
	}
	err := ExpectNull("shutdown", json.RawMessage(`{"ok":true}`))
	if !errors.Is(err, jsonrpc.ErrUnexpectedResult) || !strings.Contains(err.Error(), `"shutdown" answered {"ok":true}`) {
		t.Errorf("ExpectNull(object) = %v", err)
	}
	long := `"` + strings.Repeat("x", 100) + `"`
	if err := ExpectNull("m", json.RawMessage(long)); !errors.Is(err, jsonrpc.ErrUnexpectedResult) || len(err.Error()) > 130 {
		t.Errorf("ExpectNull(long) = %v", err)
	}
}

func TestDecodeNullableReportsTheValueError(t *testing.T) {
	var n jsonrpc.Nullable[int64]
	err := DecodeNullable([]byte(`"x"`), &n, DecodeInt[int64])
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || n.State != jsonrpc.Absent {
		t.Errorf("DecodeNullable(\"x\") = %v, state %d; want a type error, state unchanged", err, n.State)
	}
}

func TestNullValueEncodesNull(t *testing.T) {
	if b, err := json.Marshal(NullValue); err != nil || string(b) != "null" {
		t.Errorf("json.Marshal(NullValue) = %s, %v", b, err)
	}
	if b, err := NullValue.AppendJSON([]byte("x")); err != nil || string(b) != "xnull" {
		t.Errorf("NullValue.AppendJSON = %s, %v", b, err)
	}
}
