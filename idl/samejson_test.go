package idl

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// sameJSONRef is SameJSON as it was before its shortcuts: both values
// decoded and compared.
func sameJSONRef(a, b []byte) bool {
	a, b = bytes.TrimSpace(a), bytes.TrimSpace(b)
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// sameJSONCases are pairs SameJSON's shortcuts must answer as decoding
// both does.
var sameJSONCases = [][2]string{
	{`"a"`, `"b"`}, {`"a"`, `"\u0061"`}, {`"\u0062"`, `"a"`}, {"\"\xff\"", "\"\xfe\""}, {"\"\xff\"", `"\ufffd"`},
	{"\"a\x01\"", `"a\u0001"`}, {`"a"b"`, `"a"`}, {`"`, `"a"`}, {`1`, `1.0`}, {`1`, `2`}, {`-0`, `0`}, {`1e400`, `1e400`},
	{`1e400`, `2e400`}, {`01`, `1`}, {`1.`, `1`}, {`1`, `"1"`}, {`true`, `false`}, {`true`, `tru`}, {`null`, `nul`},
	{`false`, `false `}, {`{}`, `{ }`}, {`[1]`, `[1.0]`}, {`{"a":1}`, `{"a":2}`}, {``, `1`}, {` `, ``}, {`-`, `-0`},
	{`1x`, `1`}, {`12345678901234567890`, `12345678901234567891`},
}

// TestSameJSONShortcuts checks SameJSON against decoding both values.
func TestSameJSONShortcuts(t *testing.T) {
	for _, c := range sameJSONCases {
		for _, pair := range [][2]string{c, {c[1], c[0]}} {
			a, b := []byte(pair[0]), []byte(pair[1])
			if got, want := SameJSON(a, b), sameJSONRef(a, b); got != want {
				t.Errorf("SameJSON(%q, %q) = %v, want %v", a, b, got, want)
			}
		}
	}
}

// FuzzSameJSON checks SameJSON against decoding both values on any pair.
func FuzzSameJSON(f *testing.F) {
	for _, c := range sameJSONCases {
		f.Add([]byte(c[0]), []byte(c[1]))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if got, want := SameJSON(a, b), sameJSONRef(a, b); got != want {
			t.Errorf("SameJSON(%q, %q) = %v, want %v", a, b, got, want)
		}
	})
}
