package rpcimpl

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// checkSame decodes b with decode and with encoding/json into fresh values
// of T and fails unless both agree on the value and on success.
func checkSame[T any](t *testing.T, b []byte, decode func([]byte, *T) error) {
	t.Helper()
	var got, want T
	gotErr := decode(b, &got)
	wantErr := json.Unmarshal(b, &want)
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("%T from %q: error %v, encoding/json says %v", got, b, gotErr, wantErr)
	}
	if gotErr == nil && !reflect.DeepEqual(got, want) && !bothNaN(got, want) {
		t.Fatalf("%T from %q: got %#v, encoding/json got %#v", got, b, got, want)
	}
}

func bothNaN(a, b any) bool {
	x, ok1 := a.(float64)
	y, ok2 := b.(float64)
	return ok1 && ok2 && math.IsNaN(x) && math.IsNaN(y)
}

type namedString string

// decodeAll runs every scalar decoder on b against encoding/json.
func decodeAll(t *testing.T, b []byte) {
	checkSame(t, b, DecodeString[string])
	checkSame(t, b, DecodeString[namedString])
	checkSame(t, b, DecodeInt[int64])
	checkSame(t, b, DecodeInt[int8])
	checkSame(t, b, DecodeInt[int])
	checkSame(t, b, DecodeFloat[float64])
	checkSame(t, b, DecodeFloat[float32])
	checkSame(t, b, DecodeBool[bool])
	if json.Valid(b) {
		checkSame(t, b, DecodeRaw[json.RawMessage])
	}
	checkSame(t, b, func(b []byte, v **string) error { return DecodeOptional(b, v, DecodeString[string]) })
	checkSame(t, b, func(b []byte, v **int64) error { return DecodeOptional(b, v, DecodeInt[int64]) })
}

var scalarSamples = []string{
	`"plain"`, `""`, `"caf\u00e9"`, `"café"`, `"tab\there"`, "\"\xff\"", `"a"b"`, `"\"`, "\"\x01\"",
	`0`, `-0`, `7`, `-42`, `127`, `128`, `-129`, `00`, `01`, `-`, `1.0`, `1e3`, `1E+2`, `-1.5e-3`, `.5`, `5.`, `1e`,
	`999999999999999999`, `9223372036854775807`, `9223372036854775808`, `-9223372036854775808`,
	`1e400`, `3.4e39`, `Infinity`, `NaN`, `0x10`, `1_000`,
	`true`, `false`, `null`, `tru`, `[]`, `{}`, `[1]`, `{"a":1}`, ``, ` 1`, `1 `,
	` null`, `null `, "\tnull\r\n", ` "x" `, "\ntrue", ` -1.5e3 `,
	// Strings longer than one eight-byte word, with escapes, surrogates
	// (paired, lone, reversed) and invalid UTF-8 at every kind of place.
	`"0123456789abcdef\"0123456789"`, `"0123456789\\abcdef"`, `"\ud83d\ude00 and \ud83d alone, \ude00\ud83d reversed"`,
	`"\ud83d\u0041"`, `"Привет, 世界 🙂 <>&\u2028"`, "\"abcdefgh\xffabcdefgh\xc3(\\n\"", "\"abcdefgh\x1fabcdefgh\"",
	`"\q12345678"`, `"\u12"`, `"12345678\u00"`, `"12345678\`,
}

func TestScalarDecodersMatchEncodingJSON(t *testing.T) {
	for _, s := range scalarSamples {
		decodeAll(t, []byte(s))
	}
}

func TestDecodeOptionalNull(t *testing.T) {
	s := new(string)
	if err := DecodeOptional([]byte("null"), &s, DecodeString[string]); err != nil || s != nil {
		t.Fatalf("null: pointer %v, error %v; want nil, nil", s, err)
	}
	if err := DecodeOptional([]byte(`"x"`), &s, DecodeString[string]); err != nil || s == nil || *s != "x" {
		t.Fatalf(`"x": pointer %v, error %v; want "x"`, s, err)
	}
}

// FuzzScalarDecoders checks that the reflection-free decoders accept
// exactly what encoding/json accepts, with the same values.
func FuzzScalarDecoders(f *testing.F) {
	for _, s := range scalarSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		decodeAll(t, b)
	})
}
