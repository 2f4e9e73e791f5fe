package rpcimpl

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

func TestDecodeKeyedMap(t *testing.T) {
	var m map[int64]string
	if err := DecodeKeyedMap([]byte(`{"-1":"a","20":"b"}`), &m, true, DecodeInt[int64], DecodeString[string]); err != nil || !reflect.DeepEqual(m, map[int64]string{-1: "a", 20: "b"}) {
		t.Fatalf("got %v (%v)", m, err)
	}
	for _, in := range []string{`{"x":"a"}`, `{"01":"a"}`, `{"1.0":"a"}`, `{" 1":"a"}`, `{"-":"a"}`, `{"99999999999999999999":"a"}`, `{"1":2}`} {
		err := DecodeKeyedMap([]byte(in), &m, true, DecodeInt[int64], DecodeString[string])
		var fe *jsonrpc.FieldError
		if !errors.As(err, &fe) {
			t.Errorf("%s: %v, want a FieldError", in, err)
		}
	}
	type uri string
	var s map[uri]int64
	if err := DecodeKeyedMap([]byte(`{"a\"b":1}`), &s, false, DecodeString[uri], DecodeInt[int64]); err != nil || s[`a"b`] != 1 {
		t.Errorf("string keys: %v (%v)", s, err)
	}
	if err := DecodeKeyedMap([]byte(`null`), &s, false, DecodeString[uri], DecodeInt[int64]); err != nil || s != nil {
		t.Errorf("null: %v (%v)", s, err)
	}
}

// FuzzDecodeKeyedMap checks that an integer-keyed map decodes exactly the
// objects whose keys are decimal integers, and encodes back to an
// equivalent object.
func FuzzDecodeKeyedMap(f *testing.F) {
	for _, s := range []string{`{}`, `{"1":true,"-2":false}`, `{"01":true}`, `{"a":true}`, `null`, `[]`, `{"1":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		var m map[int64]bool
		if err := DecodeKeyedMap(b, &m, true, DecodeInt[int64], DecodeBool[bool]); err != nil {
			return
		}
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var again map[int64]bool
		if err := DecodeKeyedMap(out, &again, true, DecodeInt[int64], DecodeBool[bool]); err != nil || !reflect.DeepEqual(m, again) {
			t.Fatalf("%s -> %s -> %v (%v), want %v", b, out, again, err, m)
		}
	})
}
