package rpcimpl

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func TestChooseObject(t *testing.T) {
	// Members: a (bit 0), b (bit 1), c (bit 2), and bit 64 in a second word.
	choices := []ObjectChoice{
		{Required: []uint64{0b001, 0}, Declared: []uint64{0b011, 0}}, // a, b?
		{Required: []uint64{0b010, 0}, Declared: []uint64{0b111, 0}}, // a?, b, c?
		{Required: []uint64{0, 1}, Declared: []uint64{0b001, 1}},     // a?, d
	}
	for _, tc := range []struct {
		held   []uint64
		failed []bool
		want   int
	}{
		{[]uint64{0b001, 0}, nil, 0},
		{[]uint64{0b011, 0}, nil, 0},                        // a tie: the first
		{[]uint64{0b111, 0}, nil, 1},                        // one member more explained
		{[]uint64{0b011, 0}, []bool{true, false, false}, 1}, // a constant rules out the first
		{[]uint64{0b100, 0}, nil, -1},
		{[]uint64{0b001, 1}, nil, 2},
		{[]uint64{0, 0}, nil, -1},
	} {
		if got := ChooseObject(tc.held, tc.failed, choices); got != tc.want {
			t.Errorf("ChooseObject(%b, %v) = %d, want %d", tc.held, tc.failed, got, tc.want)
		}
	}
}

func TestSameJSON(t *testing.T) {
	for _, tc := range []struct {
		b, want string
		same    bool
	}{
		{`"begin"`, `"begin"`, true},
		{` "begin" `, `"begin"`, true},
		{`"b\u0065gin"`, `"begin"`, true},
		{`"end"`, `"begin"`, false},
		{`1.0`, `1`, true},
		{`1e0`, `1`, true},
		{`2`, `1`, false},
		{`"1"`, `1`, false},
		{`true`, `true`, true},
		{`null`, `true`, false},
		{``, `1`, false},
	} {
		if got := SameJSON([]byte(tc.b), tc.want); got != tc.same {
			t.Errorf("SameJSON(%s, %s) = %v", tc.b, tc.want, got)
		}
	}
	end := []byte(`"end"`)
	if n := testing.AllocsPerRun(100, func() { SameJSON(end, `"begin"`) }); n != 0 {
		t.Errorf("a different plain string allocates %v times", n)
	}
}

// FuzzSameJSON checks SameJSON against decoding both values, the constant
// written compact.
func FuzzSameJSON(f *testing.F) {
	f.Add([]byte(`"b\u0065gin"`), []byte(`"begin"`))
	f.Add([]byte(`1.0`), []byte(`1`))
	f.Add([]byte(`{"a":1}`), []byte(`{"a":1}`))
	f.Fuzz(func(t *testing.T, b, want []byte) {
		var x, y any
		var compact bytes.Buffer
		if json.Unmarshal(b, &x) != nil || json.Unmarshal(want, &y) != nil || json.Compact(&compact, want) != nil {
			return
		}
		want = compact.Bytes() // as generated code writes constants
		if got := SameJSON(b, string(want)); got != reflect.DeepEqual(x, y) && !(got && string(trimSpace(b)) == string(want)) {
			t.Errorf("SameJSON(%s, %s) = %v", b, want, got)
		}
	})
}

func TestFirstItem(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`[]`, ""},
		{` [ ] `, ""},
		{`[1,2]`, "1"},
		{`[ {"a":[1,"]"]} , 2]`, `{"a":[1,"]"]}`},
		{`["x"]`, `"x"`},
		{`[null]`, "null"},
	} {
		got, err := FirstItem([]byte(tc.in))
		if err != nil || string(got) != tc.want || (tc.want == "") != (got == nil) {
			t.Errorf("FirstItem(%s) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{``, `{}`, `"[]"`, `[`} {
		if _, err := FirstItem([]byte(in)); err == nil {
			t.Errorf("FirstItem(%s): no error", in)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = FirstItem([]byte(`[{"a":1},{"b":2}]`)) }); n != 0 {
		t.Errorf("FirstItem allocates %v times", n)
	}
}
