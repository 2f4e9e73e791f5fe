package jsonrpc

import (
	"strconv"
	"unicode/utf8"
)

// MaxEchoBytes is the most bytes of a value received from the peer (a
// method name, an id, a parameter) that the runtime writes into a log
// line or echoes in an error, so that a peer cannot make either grow
// with what it sends.
const MaxEchoBytes = 256

// Truncate returns s when it is at most [MaxEchoBytes] long, and
// otherwise its first MaxEchoBytes bytes (cut at a UTF-8 boundary)
// followed by "…" and the full length, as in "abc… (10485760 bytes)".
// Invalid UTF-8 in the result is replaced with U+FFFD. Use it for every
// value from an unauthenticated or untrusted peer that goes into a log
// or an error message.
func Truncate(s string) string {
	if len(s) <= MaxEchoBytes {
		return validUTF8(s)
	}
	cut := MaxEchoBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return validUTF8(s[:cut]) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// validUTF8 returns s with each invalid byte sequence replaced by U+FFFD.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string(appendValidUTF8(make([]byte, 0, len(s)+8), []byte(s)))
}
