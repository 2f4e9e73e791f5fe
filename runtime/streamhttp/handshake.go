package streamhttp

import (
	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
)

// The answer to the handshake request is read in place on both sides: no
// map and no reflection (with encoding/json it cost ~20 allocations per
// session on each side). Members are matched by exact name, the last of
// duplicates, as a jsonrpc.Conn reads them.

// handshakeFailed reports whether msg, one message of valid JSON
// answering the handshake, refuses it: it has an error member, its result
// is neither an object nor null, or it is not an object (a batch, say).
// It also returns the result, nil when absent.
func handshakeFailed(msg []byte) (failed bool, result []byte) {
	err := jsonscan.DecodeObject(msg, func(key, value []byte) error {
		switch string(key) {
		case "result":
			result = value
		case "error":
			failed = true
		}
		return nil
	})
	if err != nil {
		return true, nil
	}
	if result != nil && result[0] != '{' && string(result) != "null" {
		failed = true
	}
	return failed, result
}

// resultVersion reads the handshake's result, raw valid JSON: ok when it
// is an object, and the string member field of it (has is false when
// field is "", or the member is absent or not a string).
func resultVersion(result []byte, field string) (ok bool, version string, has bool) {
	result = jsonscan.TrimSpace(result)
	if len(result) == 0 || result[0] != '{' {
		return false, "", false
	}
	if field == "" {
		return true, "", false
	}
	var raw []byte
	if jsonscan.DecodeObject(result, func(key, value []byte) error {
		if string(key) == field {
			raw = value
		}
		return nil
	}) != nil {
		return false, "", false
	}
	if len(raw) == 0 || raw[0] != '"' {
		return true, "", false
	}
	return true, jsonscan.Unquote(raw), true
}
