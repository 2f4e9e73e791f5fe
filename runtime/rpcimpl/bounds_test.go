package rpcimpl

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"
)

func TestDecodeIntIn(t *testing.T) {
	tests := []struct {
		in      string
		lo, hi  int64
		want    int64
		wantErr string
	}{
		{"0", 0, 10, 0, ""},
		{"10", 0, 10, 10, ""},
		{"11", 0, 10, 0, "11 is above the maximum 10"},
		{"-1", 0, 10, 0, "-1 is below the minimum 0"},
		{"2147483648", math.MinInt32, math.MaxInt32, 0, "2147483648 is above the maximum 2147483647"},
		{"-2147483649", math.MinInt32, math.MaxInt32, 0, "-2147483649 is below the minimum -2147483648"},
		{"4294967295", 0, math.MaxUint32, 4294967295, ""},
		{"9223372036854775807", 0, math.MaxInt64, math.MaxInt64, ""},
		{"99999999999999999999", 0, 5, 0, "99999999999999999999 is above the maximum 5"},
		{"-99999999999999999999", -5, 5, 0, "-99999999999999999999 is below the minimum -5"},
		{"1.5", 0, 5, 0, "json: cannot unmarshal number 1.5 into Go value of type int64"},
		{`"3"`, 0, 5, 0, "json: cannot unmarshal string into Go value of type int64"},
	}
	for _, tt := range tests {
		var got int64
		err := DecodeIntIn([]byte(tt.in), &got, tt.lo, tt.hi)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("DecodeIntIn(%s, %d, %d) = %v; want error %q", tt.in, tt.lo, tt.hi, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("DecodeIntIn(%s, %d, %d) = %d, %v; want %d", tt.in, tt.lo, tt.hi, got, err, tt.want)
		}
	}
}

func TestDecodeIntInNarrowTypes(t *testing.T) {
	var u uint32
	if err := DecodeIntIn([]byte("4294967295"), &u, 0, math.MaxUint32); err != nil || u != math.MaxUint32 {
		t.Fatalf("uint32: %d, %v", u, err)
	}
	var i int32 = 7
	if err := DecodeIntIn([]byte("-2147483649"), &i, math.MinInt32, math.MaxInt32); err == nil || i != 7 {
		t.Fatalf("int32 out of range: %d, %v; want an error and the value unchanged", i, err)
	}
	if err := DecodeIntIn([]byte(" null "), &i, 10, 20); err != nil || i != 7 {
		t.Fatalf("null: %d, %v; want 7 unchanged and no error, as encoding/json does", i, err)
	}
	f := 0.25
	if err := DecodeFloatIn([]byte("null"), &f, 1, 2); err != nil || f != 0.25 {
		t.Fatalf("null: %v, %v; want 0.25 unchanged and no error", f, err)
	}
	if err := DecodeIntIn([]byte(" 12 "), &i, 0, 10); err == nil || err.Error() != "12 is above the maximum 10" {
		t.Fatalf("spaced 12: %v", err)
	}
}

func TestDecodeFloatIn(t *testing.T) {
	tests := []struct {
		in      string
		lo, hi  float64
		wantErr string
	}{
		{"0", 0, 1, ""},
		{"1", 0, 1, ""},
		{"0.5", 0, 1, ""},
		{"1.5", 0, 1, "1.5 is above the maximum 1"},
		{"-0.1", 0, 1, "-0.1 is below the minimum 0"},
		{"1e400", 0, math.Inf(1), "json: cannot unmarshal number 1e400 into Go value of type float64"},
		{"5", math.Inf(-1), 2.5, "5 is above the maximum 2.5"},
		{"true", 0, 1, "json: cannot unmarshal bool into Go value of type float64"},
	}
	for _, tt := range tests {
		var got float64
		err := DecodeFloatIn([]byte(tt.in), &got, tt.lo, tt.hi)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("DecodeFloatIn(%s) = %v; want error %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		want, _ := strconv.ParseFloat(tt.in, 64)
		if err != nil || got != want {
			t.Errorf("DecodeFloatIn(%s) = %v, %v; want %v", tt.in, got, err, want)
		}
	}
}

// checkBounded fails unless DecodeIntIn and DecodeFloatIn agree with
// encoding/json followed by a range check.
func checkBounded(t *testing.T, b []byte) {
	t.Helper()
	var n int64
	nerr := json.Unmarshal(b, &n)
	var i32 int32
	err := DecodeIntIn(b, &i32, -100, 100)
	inRange := nerr == nil && n >= -100 && n <= 100
	if inRange != (err == nil) || inRange && int64(i32) != n {
		t.Fatalf("DecodeIntIn(%q, -100, 100) = %d, %v; encoding/json: %d, %v", b, i32, err, n, nerr)
	}
	var f float64
	ferr := json.Unmarshal(b, &f)
	var g float64
	err = DecodeFloatIn(b, &g, -0.5, 0.5)
	inRange = ferr == nil && f >= -0.5 && f <= 0.5
	if inRange != (err == nil) || inRange && g != f {
		t.Fatalf("DecodeFloatIn(%q, -0.5, 0.5) = %v, %v; encoding/json: %v, %v", b, g, err, f, ferr)
	}
}

func TestBoundedDecodersMatchEncodingJSON(t *testing.T) {
	for _, s := range append(scalarSamples, "100", "101", "-100", "-101", "0.5", "0.50001", "-5e-1") {
		checkBounded(t, []byte(s))
	}
}

// FuzzBoundedDecoders checks that the bounded decoders accept exactly the
// values encoding/json decodes within the bounds.
func FuzzBoundedDecoders(f *testing.F) {
	for _, s := range scalarSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkBounded(t, b)
	})
}
