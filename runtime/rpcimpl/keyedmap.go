package rpcimpl

import "fmt"

// DecodeKeyedMap decodes the JSON object b into *v, a map whose keys are
// not plain strings, one member at a time: decodeKey reads each key and
// decode its value, and an error is placed at the member's key (see
// [AtField]). A key of a string type reaches decodeKey as a JSON string;
// with intKeys, keys are integers, and a key that is not one written in
// decimal ("01", "1.0", " 1") is an error. A JSON null leaves *v nil.
func DecodeKeyedMap[K comparable, V any](b []byte, v *map[K]V, intKeys bool, decodeKey func([]byte, *K) error, decode func([]byte, *V) error) error {
	if string(trimSpace(b)) == "null" {
		*v = nil
		return nil
	}
	out := map[K]V{}
	err := DecodeObject(b, func(key, value []byte) error {
		var k K
		var err error
		if intKeys {
			if !isDecimal(key) {
				return AtField(string(key), fmt.Errorf("key %q is not an integer", key))
			}
			err = decodeKey(key, &k)
		} else {
			err = decodeKey(AppendString(nil, string(key)), &k)
		}
		if err != nil {
			return AtField(string(key), fmt.Errorf("key %q: %s", key, reasonOf(err)))
		}
		var x V
		if err := decode(value, &x); err != nil {
			return AtField(string(key), err)
		}
		out[k] = x
		return nil
	})
	if err != nil {
		return err
	}
	*v = out
	return nil
}

// isDecimal reports whether b is an integer as JSON writes it: an
// optional minus sign and digits, without a leading zero.
func isDecimal(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 || b[0] == '0' && len(b) > 1 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
