package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

// MaxDepth is the deepest nesting of arrays and objects that Valid
// accepts, the same limit as encoding/json's.
const MaxDepth = 10000

// Valid reports whether b is one JSON value, with optional whitespace
// around it, exactly as json.Valid does, in one pass and without
// allocating for values nested less than 256 deep.
func Valid(b []byte) bool {
	end, ok := CheckValue(b, SkipSpace(b, 0))
	return ok && SkipSpace(b, end) == len(b)
}

// CheckValue checks the JSON value starting at b[i] (not at whitespace)
// and returns the index just past it, or false when there is no valid
// value there. What follows the value is not looked at.
func CheckValue(b []byte, i int) (end int, ok bool) { return CheckValueIn(b, i, 0) }

// CheckValueIn is CheckValue for a value inside outer arrays or objects,
// which count towards MaxDepth.
func CheckValueIn(b []byte, i, outer int) (end int, ok bool) {
	var small [4]uint64 // one bit per open container: 1 for an object
	stack := small[:]
	depth := 0
	for {
		// A value starts at b[i].
		if i >= len(b) {
			return i, false
		}
		switch c := b[i]; {
		case c == '"':
			if i, ok = CheckString(b, i); !ok {
				return i, false
			}
		case c == '{' || c == '[':
			if outer+depth >= MaxDepth {
				return i, false
			}
			if depth/64 == len(stack) {
				stack = append(stack, 0)
			}
			bit := uint64(1) << (depth % 64)
			stack[depth/64] &^= bit
			if c == '{' {
				stack[depth/64] |= bit
			}
			depth++
			i = SkipSpace(b, i+1)
			if i < len(b) && (b[i] == '}' && c == '{' || b[i] == ']' && c == '[') {
				depth--
				i++
				break
			}
			if c == '{' {
				if i, ok = checkKey(b, i); !ok {
					return i, false
				}
			}
			continue // the first element or member value
		case c == 't':
			if i, ok = literal(b, i, "true"); !ok {
				return i, false
			}
		case c == 'f':
			if i, ok = literal(b, i, "false"); !ok {
				return i, false
			}
		case c == 'n':
			if i, ok = literal(b, i, "null"); !ok {
				return i, false
			}
		default:
			if i, ok = CheckNumber(b, i); !ok {
				return i, false
			}
		}
		// A value ended at b[i]: close containers or go to the next one.
		for {
			if depth == 0 {
				return i, true
			}
			i = SkipSpace(b, i)
			if i >= len(b) {
				return i, false
			}
			inObject := stack[(depth-1)/64]&(1<<((depth-1)%64)) != 0
			switch {
			case b[i] == ',':
				i = SkipSpace(b, i+1)
				if inObject {
					if i, ok = checkKey(b, i); !ok {
						return i, false
					}
				}
			case b[i] == '}' && inObject, b[i] == ']' && !inObject:
				depth--
				i++
				continue
			default:
				return i, false
			}
			break
		}
	}
}

// checkKey checks a member's key and its colon at b[i] and returns the
// index of its value.
func checkKey(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	i, ok := CheckString(b, i)
	if !ok {
		return i, false
	}
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return i, false
	}
	return SkipSpace(b, i+1), true
}

func literal(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// CheckNumber checks the number at b[i] against JSON's grammar (stricter
// than strconv's: no "Inf", hexadecimal or underscores) and returns the
// index just past it.
func CheckNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// CheckString checks the string literal starting at b[i] (a '"') and
// returns the index just past it. Like encoding/json it accepts invalid
// UTF-8, which decoding turns into U+FFFD.
func CheckString(b []byte, i int) (int, bool) {
	for i++; ; {
		i = PlainRun(b, i)
		if i >= len(b) {
			return i, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		}
		// A backslash.
		if i+1 >= len(b) {
			return i, false
		}
		switch b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if len(b)-i < 6 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
				return i, false
			}
			i += 6
		default:
			return i, false
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Masks for testing eight bytes at once: ones has 0x01 in every byte, and
// high 0x80.
const (
	ones uint64 = 0x0101010101010101
	high uint64 = 0x8080808080808080
)

// special has the high bit set in the first byte of w (in memory order)
// that is a '"', a '\\' or below 0x20, and in no byte before it; it is
// zero when there is none. (Each term is the classic test for a zero
// byte, or a byte below n, in a word: a borrow can only mark bytes after
// a true one.)
func special(w uint64) uint64 {
	quote := w ^ (ones * '"')
	slash := w ^ (ones * '\\')
	return ((w-ones*0x20)&^w | (quote-ones)&^quote | (slash-ones)&^slash) & high
}

// PlainRun returns the index of the first byte at or after i that is a
// '"', a '\\' or a control character, or len(b) when there is none. It
// reads eight bytes at a time and finds the byte in the word without a
// loop.
func PlainRun(b []byte, i int) int {
	for ; i+16 <= len(b); i += 16 {
		m0 := special(binary.LittleEndian.Uint64(b[i:]))
		m1 := special(binary.LittleEndian.Uint64(b[i+8:]))
		if m0|m1 != 0 {
			if m0 != 0 {
				return i + bits.TrailingZeros64(m0)/8
			}
			return i + 8 + bits.TrailingZeros64(m1)/8
		}
	}
	if i+8 <= len(b) {
		if m := special(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c == '"' || c == '\\' {
			return i
		}
	}
	return i
}
