package jsonschema

import "github.com/rpcgen/rpcgen/internal/jsonstr"

// appendString appends s as a JSON string, escaped as encoding/json
// escapes it with HTML escaping off.
func appendString(dst []byte, s string) []byte { return jsonstr.Append(dst, s, false) }

// unescapeHTML turns the \u003c, \u003e and \u0026 escapes encoding/json
// writes back into <, > and &, leaving every other escape alone.
func unescapeHTML(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) {
			switch string(b[i+2 : i+6]) {
			case "003c":
				out, i = append(out, '<'), i+5
				continue
			case "003e":
				out, i = append(out, '>'), i+5
				continue
			case "0026":
				out, i = append(out, '&'), i+5
				continue
			}
		}
		out = append(out, b[i], b[i+1])
		i++
	}
	return out
}
