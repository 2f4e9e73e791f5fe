package rpcimpl

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/bits"
	"reflect"
	"unicode/utf8"
)

// ObjectChoice is what a JSON object needs to be one object variant of a
// union without a discriminator. Members are numbered over the union (the
// names its object variants declare); member i is bit i%64 of word i/64.
type ObjectChoice struct {
	Required []uint64 // the members the variant requires
	Declared []uint64 // the members the variant declares
}

// ChooseObject returns the index in choices of the variant an object
// holding the members held is, or -1 when it matches none. failed[i] is
// true when the object holds a member that choice i declares with a
// constant, or a closed enum, that the member's value is not. An object matches a choice when it holds every member
// the choice requires and failed is not set; of the matching choices, the
// one declaring the most of the object's members wins (it leaves the
// fewest unexplained), and of those the first. Generated decoders of
// unions with overlapping object variants use it.
func ChooseObject(held []uint64, failed []bool, choices []ObjectChoice) int {
	best, most := -1, -1
next:
	for i, c := range choices {
		if i < len(failed) && failed[i] {
			continue
		}
		for w, r := range c.Required {
			if held[w]&r != r {
				continue next
			}
		}
		n := 0
		for w, d := range c.Declared {
			n += bits.OnesCount64(held[w] & d)
		}
		if n > most {
			best, most = i, n
		}
	}
	return best
}

// SameJSON reports whether the JSON value b is the constant want, written
// as compact JSON: the same bytes, or the same value once decoded (a
// string with escapes, a number written otherwise). Generated decoders use
// it for the constant and enum members that tell object variants apart.
func SameJSON(b []byte, want string) bool {
	b = trimSpace(b)
	if string(b) == want {
		return true
	}
	if len(b) == 0 || len(want) == 0 || (b[0] == '"') != (want[0] == '"') {
		return false
	}
	if b[0] == '"' && bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b) {
		return false // a plain string, which differs
	}
	var x, y any
	if json.Unmarshal(b, &x) != nil || json.Unmarshal([]byte(want), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// FirstItem returns the first item of the JSON array b, without decoding
// the array, or nil when the array is empty. Generated decoders of unions
// with several array variants use it: the first item picks the variant.
func FirstItem(b []byte) ([]byte, error) {
	b = trimSpace(b)
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return nil, errors.New("expected a JSON array")
	}
	i := skipSpace(b, 1)
	if i == len(b)-1 {
		return nil, nil
	}
	end := skipValue(b, i)
	if end <= i || end > len(b)-1 {
		return nil, errors.New("malformed JSON array")
	}
	return b[i:end], nil
}
