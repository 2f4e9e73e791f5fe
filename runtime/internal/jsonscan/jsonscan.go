// Package jsonscan reads JSON text that encoding/json has validated (or
// that is checked as it is read), and describes decoding errors in JSON's
// terms. Package jsonrpc uses it to read messages, and package rpcimpl to
// decode generated types member by member; it lives here so that neither
// has to export it. It uses the standard library only.
package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// IsSpace reports whether c is JSON whitespace.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	return i
}

// TrimSpace returns b without leading and trailing JSON whitespace.
func TrimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && IsSpace(b[i]) {
		i++
	}
	for j > i && IsSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

// SkipString returns the index just past the string literal starting at
// b[i] (a '"'), in valid JSON. It looks for the closing quote with
// bytes.IndexByte, so a long string costs little.
func SkipString(b []byte, i int) int {
	for i++; i < len(b); {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			break
		}
		i += j
		k := i // the quote is escaped after an odd run of backslashes
		for b[k-1] == '\\' {
			k--
		}
		i++
		if (i-1-k)%2 == 0 {
			return i
		}
	}
	return len(b)
}

// SkipValue returns the index just past the JSON value starting at b[i],
// in valid JSON.
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = SkipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}

// Unquote decodes a JSON string literal known to be valid. Invalid UTF-8
// becomes U+FFFD, as encoding/json does.
func Unquote(b []byte) string {
	if s, ok := UnquoteString(b); ok {
		return s
	}
	var s string
	_ = json.Unmarshal(b, &s) // valid by construction
	return s
}

// DecodeObject calls field for each member of the JSON object b, in
// order, with the member's unescaped key and its raw value. b must be a
// JSON object; anything else is an error.
func DecodeObject(b []byte, field func(key, value []byte) error) error {
	b = TrimSpace(b)
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return errors.New("expected a JSON object")
	}
	for i := SkipSpace(b, 1); i < len(b) && b[i] == '"'; {
		keyEnd := SkipString(b, i)
		key := b[i+1 : keyEnd-1]
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			key = []byte(Unquote(b[i:keyEnd]))
		}
		i = SkipSpace(b, keyEnd)
		if i >= len(b) || b[i] != ':' {
			return errors.New("malformed JSON object")
		}
		i = SkipSpace(b, i+1)
		end := SkipValue(b, i)
		if end <= i || end > len(b)-1 {
			return errors.New("malformed JSON object")
		}
		if err := field(key, b[i:end]); err != nil {
			return err
		}
		i = SkipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = SkipSpace(b, i+1)
		}
	}
	return nil
}

// Kind returns the kind of the JSON value b: "string", "number",
// "boolean", "array", "object", "null", or "nothing" for blank input.
func Kind(b []byte) string {
	b = TrimSpace(b)
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case '[':
		return "array"
	case '{':
		return "object"
	case 'n':
		return "null"
	}
	return "number"
}
