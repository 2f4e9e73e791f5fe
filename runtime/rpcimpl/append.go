package rpcimpl

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// This file holds the encoding helpers generated AppendJSON methods call
// for raw values, maps and additional members, so that a generated type
// encodes without encoding/json's reflection. Like the helpers in
// encode.go, each writes exactly what json.Marshal writes.

// AppendRaw appends raw as json.Marshal encodes a json.RawMessage: nil is
// null, and anything else must be valid JSON, written without the space
// between tokens and with '<', '>', '&', U+2028 and U+2029 escaped. Raw
// JSON already in that form (as most is) is copied as is.
func AppendRaw(b []byte, raw json.RawMessage) ([]byte, error) {
	if raw == nil {
		return append(b, "null"...), nil
	}
	if compactSafe(raw) && jsonscan.Valid(raw) {
		return append(b, raw...), nil
	}
	data, err := json.Marshal(raw) // compacts and escapes, or says why not
	if err != nil {
		return nil, err
	}
	return append(b, data...), nil
}

// compactSafe reports whether raw, if it is valid JSON, is what
// json.Marshal would write for it: no space between tokens, no '<', '>'
// or '&', and no U+2028 or U+2029 (whose UTF-8 encodings start with
// 0xE2). It looks each byte up in [rawClass], as raw JSON can be long.
func compactSafe(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		switch rawClass[raw[i]] {
		case rawUnsafe, rawSpace:
			return false
		case rawQuote: // a string, up to its closing quote
			for i++; i < len(raw); i++ {
				c := rawClass[raw[i]]
				if c <= rawSpace {
					continue
				}
				if c == rawUnsafe {
					return false
				}
				if c == rawQuote {
					break
				}
				i++ // a backslash: the escaped byte cannot end the string
			}
		}
	}
	return true
}

// The classes of bytes compactSafe tells apart.
const (
	rawPlain = iota
	rawSpace
	rawQuote
	rawBackslash
	rawUnsafe
)

// rawClass is the class of each byte for compactSafe.
var rawClass = func() (t [256]uint8) {
	for _, c := range " \t\n\r" {
		t[c] = rawSpace
	}
	for _, c := range []byte("<>&\xe2") {
		t[c] = rawUnsafe
	}
	t['"'] = rawQuote
	t['\\'] = rawBackslash
	return t
}()

// AppendMap appends m as json.Marshal encodes a map with string keys: null
// when m is nil, else an object whose members are sorted by key, each
// value appended by elem.
func AppendMap[K ~string, V any](b []byte, m map[K]V, elem func([]byte, V) ([]byte, error)) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	var stack [16]K
	keys := stack[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, k)
		b = append(b, ':')
		var err error
		if b, err = elem(b, m[k]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// AppendExtra appends the additional members extra of an object whose
// declared members were appended to b from index start on (each preceded
// by a comma, as generated AppendJSON methods append them), then closes
// the object. A member named as one of the declared members, which
// generated decoders never put in extra, is left out when the object
// already has it, as json.Marshal's output of a generated MarshalJSON
// would leave it out.
func AppendExtra[T any](b []byte, start int, extra jsonrpc.Members[T], declared ...string) ([]byte, error) {
	for i := range extra {
		x := &extra[i]
		if slices.Contains(declared, x.Name) && hasMember(b[start:], x.Name) {
			continue
		}
		b = append(b, ',')
		b = AppendString(b, x.Name)
		b = append(b, ':')
		var err error
		switch v := any(&x.Value).(type) {
		case *json.RawMessage:
			b, err = AppendRaw(b, *v)
		default:
			b, err = AppendValue(b, x.Value)
		}
		if err != nil {
			return nil, fmt.Errorf("rpcimpl: encoding member %q: %w", x.Name, err)
		}
	}
	return CloseObject(b, start), nil
}

// hasMember reports whether members, an object's members each preceded by
// a comma, has one named name.
func hasMember(members []byte, name string) bool {
	found := false
	obj := CloseObject(append([]byte(nil), members...), 0)
	_ = DecodeObject(obj, func(key, _ []byte) error {
		found = found || string(key) == name
		return nil
	})
	return found
}

// Result returns what generated stubs pass to a call as its result, for a
// result the stub returns as a *T: null leaves *p nil, and anything else
// is decoded by T's own UnmarshalJSON, from the frame already checked to be
// valid JSON, instead of by json.Unmarshal. It is a pointer, so that a
// [jsonrpc.Caller] that decodes results with json.Unmarshal can too.
func Result[T any, PT interface {
	*T
	json.Unmarshaler
}](p **T) json.Unmarshaler {
	return &result[T, PT]{p}
}

type result[T any, PT interface {
	*T
	json.Unmarshaler
}] struct{ p **T }

// UnmarshalJSON decodes b into a new T, or sets the pointer to nil when b
// is null.
func (r *result[T, PT]) UnmarshalJSON(b []byte) error {
	b = trimSpace(b)
	if string(b) == "null" {
		*r.p = nil
		return nil
	}
	v := new(T)
	if err := PT(v).UnmarshalJSON(b); err != nil {
		return err
	}
	*r.p = v
	return nil
}
