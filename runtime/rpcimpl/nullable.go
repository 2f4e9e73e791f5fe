package rpcimpl

import (
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// DecodeNullable decodes b into *v: JSON null sets it to Null, any other
// value is decoded with decode and sets it Present. Generated decoders
// call it for members that may be absent, null or set.
func DecodeNullable[T any](b []byte, v *jsonrpc.Nullable[T], decode func([]byte, *T) error) error {
	if string(trimSpace(b)) == "null" {
		*v = jsonrpc.Nullable[T]{State: jsonrpc.Null}
		return nil
	}
	var x T
	if err := decode(b, &x); err != nil {
		return err
	}
	*v = jsonrpc.Nullable[T]{Value: x, State: jsonrpc.Present}
	return nil
}
