package rpcimpl

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

func TestDecodeItems(t *testing.T) {
	var got []string
	collect := func(i int, v []byte) error {
		got = append(got, string(v))
		return nil
	}
	if err := DecodeItems([]byte(` [1, "a" ,{"b":[2]}] `), 2, 3, collect); err != nil || len(got) != 3 || got[2] != `{"b":[2]}` {
		t.Fatalf("items %q (%v)", got, err)
	}
	for _, in := range []string{`[1]`, `[1,2,3,4]`, `{"a":1}`, `null`, `"x"`, `[1,`} {
		if err := DecodeItems([]byte(in), 2, 3, collect); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
	err := DecodeItems([]byte(`[1,2]`), 2, 2, func(i int, v []byte) error {
		if i == 1 {
			return errors.New("bad")
		}
		return nil
	})
	var fe *jsonrpc.FieldError
	if !errors.As(err, &fe) || fe.Field != "[1]" {
		t.Errorf("item error %v, want a FieldError at [1]", err)
	}
}

// FuzzDecodeItems checks that DecodeItems accepts exactly the JSON arrays
// of 1 to 3 items, handing over each item as encoding/json splits it.
func FuzzDecodeItems(f *testing.F) {
	for _, s := range []string{`[]`, `[1]`, `[1,[2,3],"]"]`, `[1,2,3,4]`, `{}`, `null`, `[1,]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var items []json.RawMessage
		err := DecodeItems(b, 1, 3, func(i int, v []byte) error {
			items = append(items, v)
			return nil
		})
		var want []json.RawMessage
		werr := json.Unmarshal(b, &want)
		ok := werr == nil && len(trimSpace(b)) > 0 && trimSpace(b)[0] == '[' && len(want) >= 1 && len(want) <= 3
		if ok != (err == nil) {
			t.Fatalf("%q: error %v, want ok=%v", b, err, ok)
		}
		if ok && len(items) != len(want) {
			t.Fatalf("%q: %d items, want %d", b, len(items), len(want))
		}
	})
}
