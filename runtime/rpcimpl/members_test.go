package rpcimpl

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

func TestAppendMembersKeepsOrder(t *testing.T) {
	extra := jsonrpc.Members[json.RawMessage]{{Name: "z", Value: json.RawMessage(`1`)}, {Name: "a", Value: json.RawMessage(`{"x":[true]}`)}, {Name: "id", Value: json.RawMessage(`9`)}, {Name: "z", Value: json.RawMessage(`2`)}}
	out, err := AppendMembers([]byte(`{"id":1}`), extra)
	if want := `{"id":1,"z":1,"a":{"x":[true]},"z":2}`; err != nil || string(out) != want {
		t.Errorf("AppendMembers = %s (%v), want %s", out, err, want)
	}
	out, err = AppendMembers([]byte(`{}`), extra[:1])
	if err != nil || string(out) != `{"z":1}` {
		t.Errorf("AppendMembers to {} = %s (%v)", out, err)
	}
	if _, err := AppendMembers([]byte(`[1]`), extra); err == nil {
		t.Error("AppendMembers to an array succeeded")
	}
}

// FuzzMembers decodes an object's members in order into Members, as
// generated decoders do, and checks that AppendMembers writes the same
// members back in the same order.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":[2],"a":null}`, `{"\u0061":"x"}`, `{"a":`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		var m jsonrpc.Members[json.RawMessage]
		if err := DecodeObject(b, func(key, value []byte) error {
			m = append(m, jsonrpc.Member[json.RawMessage]{Name: string(key), Value: append(json.RawMessage(nil), value...)})
			return nil
		}); err != nil {
			return
		}
		out, err := AppendMembers([]byte(`{}`), m)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		var again jsonrpc.Members[json.RawMessage]
		if err := DecodeObject(out, func(key, value []byte) error {
			again = append(again, jsonrpc.Member[json.RawMessage]{Name: string(key), Value: append(json.RawMessage(nil), value...)})
			return nil
		}); err != nil || len(again) != len(m) {
			t.Fatalf("%s -> %s: %d members (%v), want %d", b, out, len(again), err, len(m))
		}
		for i := range m {
			var x, y any
			_ = json.Unmarshal(m[i].Value, &x)
			_ = json.Unmarshal(again[i].Value, &y)
			if m[i].Name != again[i].Name || !reflect.DeepEqual(x, y) {
				t.Fatalf("%s -> %s: member %d is %s:%s, want %s:%s", b, out, i, again[i].Name, again[i].Value, m[i].Name, m[i].Value)
			}
		}
	})
}
