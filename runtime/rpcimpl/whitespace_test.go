package rpcimpl

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// JSON allows space, tab, newline and carriage return around every value.
// The decoders that test for null or look at a value's first byte must
// see through it, as encoding/json does: these tests decode each value
// bare and padded, and want the same outcome.

// jsonSpace returns a run of JSON whitespace chosen by seed: empty when
// seed is 0.
func jsonSpace(seed uint64) string {
	const ws = " \t\n\r"
	var s []byte
	for ; seed != 0; seed >>= 3 {
		s = append(s, ws[seed&3])
	}
	return string(s)
}

// padded is b with whitespace before and after it.
func padded(b []byte, before, after uint64) []byte {
	return []byte(jsonSpace(before) + string(b) + jsonSpace(after))
}

// decodeWith decodes b with decode into a fresh T and returns the value
// and whether it decoded.
func decodeWith[T any](b []byte, decode func([]byte, *T) error) (T, bool) {
	var v T
	err := decode(b, &v)
	return v, err == nil
}

// samePadded fails unless decode gives b and pad the same outcome.
func samePadded[T any](t *testing.T, name string, b, pad []byte, decode func([]byte, *T) error) {
	t.Helper()
	want, wantOK := decodeWith(b, decode)
	got, gotOK := decodeWith(pad, decode)
	if gotOK != wantOK || gotOK && !reflect.DeepEqual(got, want) && !bothNaN(got, want) {
		t.Fatalf("%s from %q: %#v (decoded %v); from %q: %#v (decoded %v)", name, pad, got, gotOK, b, want, wantOK)
	}
}

// checkPadded runs every decoder a generated decoder calls on b and on b
// padded, and wants the same results.
func checkPadded(t *testing.T, b, pad []byte) {
	t.Helper()
	samePadded(t, "string", b, pad, DecodeString[string])
	samePadded(t, "int64", b, pad, DecodeInt[int64])
	samePadded(t, "float64", b, pad, DecodeFloat[float64])
	samePadded(t, "bool", b, pad, DecodeBool[bool])
	samePadded(t, "*string", b, pad, func(b []byte, v **string) error { return DecodeOptional(b, v, DecodeString[string]) })
	samePadded(t, "*int64", b, pad, func(b []byte, v **int64) error { return DecodeOptional(b, v, DecodeInt[int64]) })
	samePadded(t, "*bool", b, pad, func(b []byte, v **bool) error { return DecodeOptional(b, v, DecodeBool[bool]) })
	samePadded(t, "**float64", b, pad, func(b []byte, v ***float64) error {
		return DecodeOptional(b, v, func(b []byte, v **float64) error { return DecodeOptional(b, v, DecodeFloat[float64]) })
	})
	samePadded(t, "int32 in [-100,100]", b, pad, func(b []byte, v *int32) error { return DecodeIntIn(b, v, -100, 100) })
	samePadded(t, "float64 in [-0.5,0.5]", b, pad, func(b []byte, v *float64) error { return DecodeFloatIn(b, v, -0.5, 0.5) })
	samePadded(t, "Nullable[int64]", b, pad, func(b []byte, v *jsonrpc.Nullable[int64]) error { return DecodeNullable(b, v, DecodeInt[int64]) })
	samePadded(t, "Nullable[*string]", b, pad, func(b []byte, v *jsonrpc.Nullable[*string]) error {
		return DecodeNullable(b, v, func(b []byte, v **string) error { return DecodeOptional(b, v, DecodeString[string]) })
	})
	samePadded(t, "[]*int64", b, pad, func(b []byte, v *[]*int64) error {
		return DecodeArray(b, v, func(b []byte, v **int64) error { return DecodeOptional(b, v, DecodeInt[int64]) })
	})
	samePadded(t, "map[string]*bool", b, pad, func(b []byte, v *map[string]*bool) error {
		return DecodeMap(b, v, func(b []byte, v **bool) error { return DecodeOptional(b, v, DecodeBool[bool]) })
	})
	samePadded(t, "map[int64]*string", b, pad, func(b []byte, v *map[int64]*string) error {
		return DecodeKeyedMap(b, v, true, DecodeInt[int64], func(b []byte, v **string) error { return DecodeOptional(b, v, DecodeString[string]) })
	})
	samePadded(t, "map[string]int64", b, pad, func(b []byte, v *map[string]int64) error {
		return DecodeKeyedMap(b, v, false, DecodeString[string], DecodeInt[int64])
	})
	samePadded(t, "tuple", b, pad, func(b []byte, v *[2]*string) error {
		return DecodeItems(b, 0, 2, func(i int, item []byte) error { return DecodeOptional(item, &v[i], DecodeString[string]) })
	})
	samePadded(t, "raw", b, pad, func(b []byte, v *json.RawMessage) error {
		if !json.Valid(b) {
			return fmt.Errorf("invalid")
		}
		return DecodeRaw(b, v)
	})
	samePadded(t, "non-null", b, pad, func(b []byte, v *struct{}) error { return NonNull(b, nil) })
	if JSONKind(b) != JSONKind(pad) {
		t.Fatalf("JSONKind(%q) = %s, JSONKind(%q) = %s", pad, JSONKind(pad), b, JSONKind(b))
	}
	for _, c := range []string{`null`, `"begin"`, `1`, `true`, `{"a":1}`} {
		if SameJSON(b, c) != SameJSON(pad, c) {
			t.Fatalf("SameJSON(%q, %s) = %v, SameJSON(%q, %s) = %v", pad, c, SameJSON(pad, c), b, c, SameJSON(b, c))
		}
	}
	first, err := FirstItem(b)
	pfirst, perr := FirstItem(pad)
	if (err == nil) != (perr == nil) || string(first) != string(pfirst) {
		t.Fatalf("FirstItem(%q) = %q, %v; FirstItem(%q) = %q, %v", pad, pfirst, perr, b, first, err)
	}
}

var paddedSamples = []string{
	`null`, `"x"`, `""`, `"caf\u00e9"`, `0`, `-7`, `1.5`, `1e2`, `true`, `false`,
	`[]`, `[null]`, `[1,null]`, `[ null , 2 ]`, `["a",null]`, `{}`, `{"a":null}`, `{"1":null,"2":"x"}`,
	`{"a":true,"b":null}`, `[[null]]`, `nul`, `[`, `{"a":}`,
}

func TestDecodersSeeThroughWhitespace(t *testing.T) {
	for _, s := range paddedSamples {
		for _, pad := range [][2]uint64{{1, 0}, {0, 1}, {2, 3}, {0o1234, 0o4321}} {
			checkPadded(t, []byte(s), padded([]byte(s), pad[0], pad[1]))
		}
	}
}

// FuzzWhitespace checks that any value decodes the same bare and wrapped
// in JSON whitespace, by every decoder generated code calls.
func FuzzWhitespace(f *testing.F) {
	for _, s := range paddedSamples {
		f.Add([]byte(s), uint64(1), uint64(0))
		f.Add([]byte(s), uint64(0o1234), uint64(0o21))
	}
	f.Fuzz(func(t *testing.T, b []byte, before, after uint64) {
		b = trimSpace(b)
		checkPadded(t, b, padded(b, before, after))
	})
}
