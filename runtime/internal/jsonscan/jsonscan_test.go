package jsonscan

import (
	"encoding/json"
	"fmt"
	"testing"
)

// FuzzDecodeObject checks DecodeObject against encoding/json: for a valid
// object it yields the same members; for anything else it never panics.
func FuzzDecodeObject(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":[1,{"c":"}"}],"\u0064":null}`))
	f.Add([]byte(` {} `))
	f.Add([]byte(`{"k":"v\"","k":2}`))
	f.Add([]byte(`[1]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got := map[string]string{}
		err := DecodeObject(b, func(key, value []byte) error {
			got[string(key)] = string(value)
			return nil
		})
		var want map[string]json.RawMessage
		if json.Unmarshal(b, &want) != nil || want == nil {
			return // not an object: only the absence of a panic matters
		}
		if err != nil {
			t.Fatalf("DecodeObject(%s) = %v for a valid object", b, err)
		}
		if len(got) != len(want) {
			t.Fatalf("DecodeObject(%s) found %d members, want %d", b, len(got), len(want))
		}
		for k, v := range want {
			var a, b2 any
			if json.Unmarshal([]byte(got[k]), &a) != nil || json.Unmarshal(v, &b2) != nil || fmt.Sprint(a) != fmt.Sprint(b2) {
				t.Fatalf("member %q = %s, want %s", k, got[k], v)
			}
		}
	})
}
