package jsonrpc

import "encoding/json"

// NullState is the state of a [Nullable] member: absent, null, or a value.
type NullState uint8

// The states of a [Nullable].
const (
	Absent  NullState = iota // the member is left out of its object
	Null                     // the member is sent as null
	Present                  // the member holds Value
)

// Nullable is an optional member that may also be null, with its three
// states kept apart, so that a value decoded and encoded again keeps
// whether the member was absent, null, or set. The zero Nullable is
// absent; generated structs tag such members omitzero.
type Nullable[T any] struct {
	Value T // the value when State is Present, else T's zero value
	State NullState
}

// Some returns a Nullable holding v.
func Some[T any](v T) Nullable[T] { return Nullable[T]{Value: v, State: Present} }

// NullOf returns a Nullable sent as null.
func NullOf[T any]() Nullable[T] { return Nullable[T]{State: Null} }

// Get returns the value and whether there is one: false when the member is
// absent or null.
func (n Nullable[T]) Get() (T, bool) { return n.Value, n.State == Present }

// IsNull reports whether the member is null.
func (n Nullable[T]) IsNull() bool { return n.State == Null }

// IsZero reports whether the member is absent, so that omitzero leaves it
// out.
func (n Nullable[T]) IsZero() bool { return n.State == Absent }

// MarshalJSON encodes the value, or null when the member is null (or
// absent, where it is not left out).
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	return n.AppendJSON(nil)
}

// AppendJSON appends the value to b, or null when there is none.
func (n Nullable[T]) AppendJSON(b []byte) ([]byte, error) {
	if n.State != Present {
		return append(b, "null"...), nil
	}
	return appendValue(b, n.Value)
}

// UnmarshalJSON decodes null as Null and any other value into Value.
func (n *Nullable[T]) UnmarshalJSON(b []byte) error {
	if string(trimSpace(b)) == "null" {
		*n = Nullable[T]{State: Null}
		return nil
	}
	var x T
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	*n = Nullable[T]{Value: x, State: Present}
	return nil
}

// nullable marks Nullable types, whose Value strict decoding checks.
func (Nullable[T]) nullable() {}

var _ json.Unmarshaler = (*Nullable[int])(nil)
