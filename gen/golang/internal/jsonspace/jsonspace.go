// Package jsonspace spreads JSON whitespace through JSON text, so that
// tests can check that generated decoders read a value the same with and
// without it.
package jsonspace

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// Spread returns the JSON text b with a run of JSON whitespace (space,
// tab, newline, carriage return; possibly none) before and after every
// token outside strings, drawn from seed: the same seed gives the same
// text.
func Spread(b []byte, seed uint64) []byte {
	r := seed | 1
	space := func(out []byte) []byte {
		r ^= r << 13
		r ^= r >> 7
		r ^= r << 17
		for n := r % 4; n > 0; n-- {
			out = append(out, " \t\n\r"[(r>>(8*n))%4])
		}
		return out
	}
	out := space(nil)
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			out = append(out, c)
			if c == '\\' && i+1 < len(b) {
				i++
				out = append(out, b[i])
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
			out = append(out, c)
		case c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == ':':
			out = append(space(out), c)
			out = space(out)
		default:
			out = append(out, c)
		}
	}
	return space(out)
}

var rawType = reflect.TypeFor[json.RawMessage]()

// Equal reports whether the decoded values a and b are the same, raw JSON
// members compared once compacted (a decoder keeps the spacing inside a
// raw value, as encoding/json does, but not around it).
func Equal(a, b any) bool {
	return equal(reflect.ValueOf(a), reflect.ValueOf(b))
}

func equal(a, b reflect.Value) bool {
	if a.IsValid() != b.IsValid() {
		return false
	}
	if !a.IsValid() {
		return true
	}
	if a.Type() != b.Type() {
		return false
	}
	if a.Type() == rawType {
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		if x, y := a.Bytes(), b.Bytes(); len(x) != len(bytes.TrimSpace(x)) || len(y) != len(bytes.TrimSpace(y)) {
			return false
		}
		var x, y bytes.Buffer
		return json.Compact(&x, a.Bytes()) == nil && json.Compact(&y, b.Bytes()) == nil && bytes.Equal(x.Bytes(), y.Bytes())
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return equal(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			if !equal(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.IsNil() != b.IsNil() {
			return false
		}
		fallthrough
	case reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !equal(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			if v := b.MapIndex(k); !v.IsValid() || !equal(a.MapIndex(k), v) {
				return false
			}
		}
		return true
	}
	if k := a.Kind(); k == reflect.Float32 || k == reflect.Float64 {
		return a.Float() == b.Float() || a.Float() != a.Float() && b.Float() != b.Float()
	}
	return a.Equal(b)
}
