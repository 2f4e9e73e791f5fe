package rpcotel

import "encoding/json"

// This file holds a small scanner of JSON objects: it finds the members of
// an object, by offset, without decoding their values, so that the server
// reads one member of the params and the client rewrites one. It indexes
// only within bounds and never recurses, so any input, however deep or
// malformed, is safe to give it.

// span is one member of a JSON object, by offsets into the object: its
// name, quotes included, runs from name to nameEnd, its value from value
// to end.
type span struct{ name, nameEnd, value, end int }

// eachMember calls fn for each member of the JSON object b, in order,
// until fn returns false. It returns the offset of the object's closing
// brace, or -1 when b is not a well-formed object (its members up to the
// fault have been seen) or fn stopped the scan.
func eachMember(b []byte, fn func(span) bool) int {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return -1
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i
	}
	for i < len(b) {
		var m span
		m.name = i
		if b[i] != '"' {
			return -1
		}
		if i = skipString(b, i); i < 0 {
			return -1
		}
		m.nameEnd = i
		if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
			return -1
		}
		m.value = skipSpace(b, i+1)
		if m.end = skipValue(b, m.value); m.end < 0 {
			return -1
		}
		if !fn(m) {
			return -1
		}
		switch i = skipSpace(b, m.end); {
		case i >= len(b):
			return -1
		case b[i] == '}':
			return i
		case b[i] != ',':
			return -1
		}
		i = skipSpace(b, i+1)
	}
	return -1
}

// nameIs reports whether raw, a member's name as a JSON string (quotes
// included), is name.
func nameIs(raw []byte, name string) bool {
	if len(raw) < 2 {
		return false
	}
	inner := raw[1 : len(raw)-1]
	escaped := false
	for _, c := range inner {
		if c == '\\' {
			escaped = true
			break
		}
	}
	if !escaped {
		return string(inner) == name
	}
	// An escape takes at most 12 bytes per character (a surrogate pair):
	// a longer name cannot be name, and is not decoded.
	if len(inner) > 12*len(name) {
		return false
	}
	var s string
	return json.Unmarshal(raw, &s) == nil && s == name
}

// skipSpace returns the offset of the first byte at or after i that is
// not JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the offset just past the JSON string starting at
// b[i] (a quote), or -1 when it does not end.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipValue returns the offset just past the JSON value starting at b[i],
// or -1 when there is none or it does not end. Objects and arrays are
// skipped by counting brackets, strings included, without recursion.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	start := i
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r', ':', '{', '[', '"':
			if i == start {
				return -1
			}
			return i
		}
		i++
	}
	if i == start {
		return -1
	}
	return i
}
