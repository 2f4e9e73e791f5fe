package rpcimpl

import (
	"encoding/json"
	"math"
	"testing"
)

// sameAsMarshal fails unless got is what json.Marshal writes for v.
func sameAsMarshal(t *testing.T, v any, got []byte, err error) {
	t.Helper()
	want, wantErr := json.Marshal(v)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("%#v: error %v, json.Marshal says %v", v, err, wantErr)
	}
	if err == nil && string(got) != string(want) {
		t.Fatalf("%#v: appended %s, json.Marshal writes %s", v, got, want)
	}
}

var stringSamples = []string{
	"", "plain", `quote " and \ backslash`, "<a href='x'>&amp;</a>", "tab\tnew\nline\r\b\f\x00\x1f\x7f",
	"caf\u00e9 \u2028 \u2029 \U0001F600", "bad \xff\xfe utf-8 \xe2\x82", "\u2027\u202a",
}

var floatSamples = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.1, 1.5, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 123456789012345678901234.0,
	math.MaxFloat64, math.SmallestNonzeroFloat64, 3.14159, -2.5e-10, math.NaN(), math.Inf(1), math.Inf(-1),
}

func TestAppendersMatchMarshal(t *testing.T) {
	for _, s := range stringSamples {
		sameAsMarshal(t, s, AppendString([]byte{}, s), nil)
	}
	for _, f := range floatSamples {
		got, err := AppendFloat([]byte{}, f)
		sameAsMarshal(t, f, got, err)
	}
	for _, n := range []int64{0, -1, 42, math.MaxInt64, math.MinInt64} {
		sameAsMarshal(t, n, AppendInt([]byte{}, n), nil)
	}
	for _, v := range []bool{true, false} {
		sameAsMarshal(t, v, AppendBool([]byte{}, v), nil)
	}
	for _, v := range []any{[]string{"a", "<"}, map[string]int{"b": 1, "a": 2}, json.RawMessage(` { "x" : 1 } `), nil} {
		got, err := AppendValue([]byte{}, v)
		sameAsMarshal(t, v, got, err)
	}
}

func TestCloseObject(t *testing.T) {
	b := []byte("[")
	if got := string(CloseObject(b, len(b))); got != "[{}" {
		t.Errorf("no members: %s, want [{}", got)
	}
	b = append([]byte("["), `,"a":1,"b":2`...)
	if got := string(CloseObject(b, 1)); got != `[{"a":1,"b":2}` {
		t.Errorf("two members: %s", got)
	}
}

// FuzzAppenders checks the string and number appenders against
// json.Marshal.
func FuzzAppenders(f *testing.F) {
	for _, s := range stringSamples {
		f.Add(s, 0.0, int64(0))
	}
	for _, x := range floatSamples {
		f.Add("", x, int64(len(floatSamples)))
	}
	f.Fuzz(func(t *testing.T, s string, x float64, n int64) {
		sameAsMarshal(t, s, AppendString(nil, s), nil)
		got, err := AppendFloat(nil, x)
		sameAsMarshal(t, x, got, err)
		sameAsMarshal(t, n, AppendInt(nil, n), nil)
	})
}
