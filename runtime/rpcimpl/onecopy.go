package rpcimpl

import (
	"encoding/json"
	"strings"
	"unsafe"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// This file holds the decoders that keep many small pieces of a message
// (the members of a map, an object's additional members) in a few
// allocations: the names and the raw values share one byte slice (see
// [arena]), each value capped so that appending to it copies instead of
// writing over its neighbour.

// RawMembers collects an object's additional members while a generated
// UnmarshalJSON reads it. [RawMembers.Add] keeps the member's slices of
// the message; [RawMembers.Members] copies them all at once. The zero
// value is ready to use; it holds eight members without allocating.
type RawMembers struct {
	n     int
	few   [8]rawMember
	more  []rawMember
	names int // the bytes of all names
	bytes int // the bytes of all values
}

type rawMember struct{ key, value []byte }

// Add records the member key with the JSON value value. Both are read
// again by Members, so they must not change until then.
func (m *RawMembers) Add(key, value []byte) {
	value = trimSpace(value)
	r := rawMember{key, value}
	if m.n < len(m.few) {
		m.few[m.n] = r
	} else {
		m.more = append(m.more, r)
	}
	m.n++
	m.names += len(key)
	m.bytes += len(value)
}

// Members returns the members added, in order, each value a copy as
// [DecodeRaw] makes, or nil when none was added. The names and values
// take one allocation, the list another.
func (m *RawMembers) Members() jsonrpc.Members[json.RawMessage] {
	if m.n == 0 {
		return nil
	}
	a := make(arena, 0, m.names+m.bytes)
	out := make(jsonrpc.Members[json.RawMessage], m.n)
	for i := range m.n {
		r := m.at(i)
		out[i].Name = a.name(r.key)
		out[i].Value = a.raw(r.value)
	}
	return out
}

func (m *RawMembers) at(i int) rawMember {
	if i < len(m.few) {
		return m.few[i]
	}
	return m.more[i-len(m.few)]
}

// arena holds copies of the names and values of one decoded object,
// allocated at the size of them all. A value is handed out as a slice
// capped at its own end, so whoever holds it can change or append to it
// without reaching another's bytes; a name is a string over bytes that
// no slice handed out covers, so nothing ever writes to them.
type arena []byte

// name copies key into a and returns it as a string.
func (a *arena) name(key []byte) string {
	if len(key) == 0 {
		return ""
	}
	start := len(*a)
	*a = append(*a, key...)
	return unsafe.String(&(*a)[start], len(key))
}

// raw copies value into a and returns the copy, capped at its length.
func (a *arena) raw(value []byte) json.RawMessage {
	start := len(*a)
	*a = append(*a, value...)
	return json.RawMessage((*a)[start:len(*a):len(*a)])
}

// keep appends key to names, grown beforehand to hold every name, and
// returns it as a string sharing names' memory. Bytes a Builder has
// written never change, so the string stays valid as names grows within
// its capacity.
func keep(names *strings.Builder, key []byte) string {
	start := names.Len()
	names.Write(key)
	return names.String()[start:]
}

// objectShape counts the members of the JSON object b, the bytes of
// their (unescaped) names and those of their values, or gives
// DecodeObject's error when b is not a well-formed object.
func objectShape(b []byte) (n, names, values int, err error) {
	err = DecodeObject(b, func(key, value []byte) error {
		n++
		names += len(key)
		values += len(value)
		return nil
	})
	return n, names, values, err
}

// DecodeRawMap decodes the JSON object b into *v, a map of raw JSON
// values, as json.Unmarshal does into a new map: a JSON null leaves *v
// nil, a repeated name keeps its last value, and each value is copied
// without the space around it. The names and values share one
// allocation (see [arena]). Anything but an object is handed to
// encoding/json for its error.
func DecodeRawMap[V ~[]byte](b []byte, v *map[string]V) error {
	b = trimSpace(b)
	if string(b) == "null" {
		*v = nil
		return nil
	}
	n, nameBytes, valueBytes, err := objectShape(b)
	if err != nil {
		return unmarshalMap(b, v)
	}
	a := make(arena, 0, nameBytes+valueBytes)
	out := make(map[string]V, n)
	_ = DecodeObject(b, func(key, value []byte) error {
		out[a.name(key)] = V(a.raw(trimSpace(value)))
		return nil
	})
	*v = out
	return nil
}

// unmarshalMap is json.Unmarshal into a new map, for its error.
func unmarshalMap[V any](b []byte, v *map[string]V) error {
	var out map[string]V
	if err := json.Unmarshal(b, &out); err != nil {
		return err
	}
	*v = out
	return nil
}
