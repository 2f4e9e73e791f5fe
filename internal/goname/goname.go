// Package goname turns the names found in protocol descriptions (JSON-RPC
// method names, JSON field names, enum values, type names) into Go
// identifiers.
//
// A name is split into words at every character that is not an ASCII letter
// or digit and at lowerUpper and ACRONYMWord case changes; the words are
// then joined in CamelCase, with common initialisms such as ID, URL and JSON
// kept upper case. The conversion is deterministic: the same input always
// gives the same identifier, and characters that cannot appear in an
// identifier (including non-ASCII letters) are dropped.
package goname

import (
	"go/token"
	"strings"
)

// initialisms are the words written all upper case inside an identifier,
// after golint's list, and LSP.
var initialisms = map[string]bool{
	"ACL": true, "API": true, "ASCII": true, "CPU": true, "CSS": true,
	"DNS": true, "EOF": true, "GUID": true, "HTML": true, "HTTP": true,
	"HTTPS": true, "ID": true, "IP": true, "JSON": true, "LHS": true, "LSP": true,
	"QPS": true, "RAM": true, "RHS": true, "RPC": true, "SLA": true,
	"SMTP": true, "SQL": true, "SSH": true, "TCP": true, "TLS": true,
	"TTL": true, "UDP": true, "UI": true, "GID": true, "UID": true,
	"UUID": true, "URI": true, "URL": true, "UTF8": true, "VM": true,
	"XML": true, "XMPP": true, "XSRF": true, "XSS": true,
}

// IsInitialism reports whether word (in any case) is written all upper case
// inside identifiers, like "id" in "SessionID".
func IsInitialism(word string) bool {
	return initialisms[strings.ToUpper(word)]
}

// Words splits s into the words an identifier is built from. Separators are
// every character other than an ASCII letter or digit; a new word also
// starts at a lower-case letter or digit followed by an upper-case letter
// ("getMessage" gives "get", "Message") and before the last upper-case
// letter of an upper-case run followed by a lower-case one ("HTTPServer"
// gives "HTTP", "Server"). Digits stay with the letters before them
// ("utf8Name" gives "utf8", "Name").
func Words(s string) []string {
	var words []string
	var cur []byte
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) {
			flush()
			continue
		}
		if len(cur) > 0 && isUpper(c) {
			prev := cur[len(cur)-1]
			switch {
			case isLower(prev) || isDigit(prev):
				flush()
			case isUpper(prev) && i+1 < len(s) && isLower(s[i+1]):
				flush()
			}
		}
		cur = append(cur, c)
	}
	flush()
	return words
}

// Exported returns s as an exported Go identifier in CamelCase:
// "session_id" gives "SessionID", "editor/getMessage" gives
// "EditorGetMessage", "image/png" gives "ImagePng". A result that would
// start with a digit is prefixed with "N" ("2025-11-25" gives
// "N2025_11_25": consecutive numbers are kept apart by an underscore).
// Exported returns "" when s has no ASCII letter or digit.
func Exported(s string) string {
	return join(Words(s), true)
}

// Unexported returns s as an unexported Go identifier in lowerCamelCase:
// "SessionID" gives "sessionID", "URL" gives "url". A Go keyword gets an
// underscore appended ("type" gives "type_"), and a leading digit is
// prefixed with "n". Unexported returns "" when s has no ASCII letter or
// digit.
func Unexported(s string) string {
	words := Words(s)
	if len(words) == 0 {
		return ""
	}
	first := strings.ToLower(words[0])
	rest := join(words[1:], false)
	if isDigit(first[0]) {
		first = "n" + first
	}
	if rest != "" && isDigit(rest[0]) && isDigit(first[len(first)-1]) {
		rest = "_" + rest
	}
	id := first + rest
	if token.IsKeyword(id) {
		id += "_"
	}
	return id
}

// Method returns the Go name of the JSON-RPC method wire, sent in the
// protocol named protocol. A first segment equal to the protocol name is
// dropped so that names do not stutter ("autohand.prompt" in protocol
// "autohand" gives "Prompt"); other segments are kept ("tools/call" gives
// "ToolsCall", "$/cancelRequest" gives "CancelRequest").
func Method(wire, protocol string) string {
	words := Words(wire)
	seg := wire
	if i := strings.IndexAny(wire, "./"); i >= 0 {
		seg = wire[:i]
	}
	segWords := Words(seg)
	if len(segWords) > 0 && len(segWords) < len(words) && join(segWords, true) == join(Words(protocol), true) {
		words = words[len(segWords):]
	}
	return join(words, true)
}

// Package returns s as a Go package name: lower-case ASCII letters and
// digits only ("hermes-extension" gives "hermesextension"). A leading
// digit is prefixed with "p"; a keyword gets "pkg" appended.
func Package(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; isAlnum(c) {
			b.WriteByte(toLower(c))
		}
	}
	p := b.String()
	if p != "" && isDigit(p[0]) {
		p = "p" + p
	}
	if token.IsKeyword(p) {
		p += "pkg"
	}
	return p
}

// IsExported reports whether s is a valid exported Go identifier made of
// ASCII letters, digits and underscores.
func IsExported(s string) bool {
	return s != "" && isUpper(s[0]) && IsIdentifier(s)
}

// IsIdentifier reports whether s is a valid Go identifier made of ASCII
// letters, digits and underscores, and not a keyword.
func IsIdentifier(s string) bool {
	if s == "" || isDigit(s[0]) || token.IsKeyword(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '_' {
			return false
		}
	}
	return true
}

// join concatenates words in CamelCase. When exported is true the result
// is guaranteed to start with an upper-case letter (or be empty).
func join(words []string, exported bool) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 && isDigit(w[0]) && isDigit(words[i-1][len(words[i-1])-1]) {
			b.WriteByte('_')
		}
		b.WriteString(title(w))
	}
	id := b.String()
	if exported && id != "" && isDigit(id[0]) {
		id = "N" + id
	}
	return id
}

// title writes one word: an initialism all upper case (also in its plural,
// "ids" gives "IDs"), any other word with an upper-case first letter and
// the rest lower case.
func title(w string) string {
	up := strings.ToUpper(w)
	if initialisms[up] {
		return up
	}
	if len(w) > 2 && (w[len(w)-1] == 's') && initialisms[up[:len(up)-1]] {
		return up[:len(up)-1] + "s"
	}
	return up[:1] + strings.ToLower(w[1:])
}

func isAlnum(c byte) bool { return isUpper(c) || isLower(c) || isDigit(c) }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func toLower(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}
