package rpcimpl

import (
	"errors"
	"fmt"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// AppendMembers appends the members of extra, in order, to the encoded
// JSON object obj, leaving out any member obj already has: generated
// MarshalJSON methods use it for objects that keep their additional
// members.
func AppendMembers[T any](obj []byte, extra jsonrpc.Members[T]) ([]byte, error) {
	if len(extra) == 0 {
		return obj, nil
	}
	obj = trimSpace(obj)
	if len(obj) < 2 || obj[0] != '{' {
		return nil, errors.New("rpcimpl: AppendMembers: not a JSON object")
	}
	declared := map[string]bool{}
	if err := DecodeObject(obj, func(key, _ []byte) error {
		declared[string(key)] = true
		return nil
	}); err != nil {
		return nil, err
	}
	out := append([]byte(nil), obj[:len(obj)-1]...)
	n := len(declared)
	for _, x := range extra {
		if declared[x.Name] {
			continue
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = AppendString(out, x.Name)
		out = append(out, ':')
		var err error
		if out, err = AppendValue(out, x.Value); err != nil {
			return nil, fmt.Errorf("rpcimpl: encoding member %q: %w", x.Name, err)
		}
		n++
	}
	return append(out, '}'), nil
}
