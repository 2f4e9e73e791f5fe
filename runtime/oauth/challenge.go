package oauth

import (
	"net/http"
	"strings"
)

// Challenge is one challenge of a WWW-Authenticate header (RFC 9110
// section 11.6.1): an authentication scheme and its parameters.
type Challenge struct {
	// Scheme is the authentication scheme as sent, such as "Bearer".
	Scheme string
	// Params holds the auth-params by lower-cased name; a token68
	// challenge has none.
	Params map[string]string
}

// Bearer fields of a challenge (RFC 6750 section 3, RFC 9728 section 5.1).
const (
	paramError            = "error"
	paramScope            = "scope"
	paramResourceMetadata = "resource_metadata"
	errInsufficientScope  = "insufficient_scope"
)

// maxChallenges bounds how many challenges ParseChallenges returns, so that
// a hostile header cannot make it allocate without limit.
const maxChallenges = 16

// ParseChallenges parses the values of WWW-Authenticate headers into their
// challenges. It is lenient: a malformed part ends the challenge it is in,
// and parsing resumes at the next comma-separated scheme.
func ParseChallenges(values []string) []Challenge {
	var out []Challenge
	for _, v := range values {
		p := parser{s: v}
		for len(out) < maxChallenges {
			c, ok := p.challenge()
			if !ok {
				break
			}
			out = append(out, c)
		}
	}
	return out
}

// bearerChallenge returns the first Bearer challenge of h, if any.
func bearerChallenge(h http.Header) (Challenge, bool) {
	for _, c := range ParseChallenges(h.Values("WWW-Authenticate")) {
		if strings.EqualFold(c.Scheme, "Bearer") {
			return c, true
		}
	}
	return Challenge{}, false
}

// parser reads challenges from one header value.
type parser struct {
	s string
	i int
}

func (p *parser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// skipSeparators skips spaces and empty list elements.
func (p *parser) skipSeparators() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == ',') {
		p.i++
	}
}

// token reads an RFC 9110 token.
func (p *parser) token() string {
	start := p.i
	for p.i < len(p.s) && isTokenChar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// challenge reads one challenge; false at the end of the value.
func (p *parser) challenge() (Challenge, bool) {
	for {
		p.skipSeparators()
		if p.i >= len(p.s) {
			return Challenge{}, false
		}
		scheme := p.token()
		if scheme == "" {
			p.skipToComma()
			continue
		}
		c := Challenge{Scheme: scheme, Params: map[string]string{}}
		p.params(c.Params)
		return c, true
	}
}

// params reads the auth-params of a challenge until the next scheme.
func (p *parser) params(into map[string]string) {
	for {
		p.skipSeparators()
		save := p.i
		name := p.token()
		if name == "" {
			// Neither a parameter nor a scheme (a token68, a stray
			// character): skip this list element.
			if p.i >= len(p.s) {
				return
			}
			p.skipToComma()
			continue
		}
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != '=' {
			// A token not followed by "=" starts the next challenge.
			p.i = save
			return
		}
		p.i++
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == '=' {
			// token68 padding such as "abc==": not a parameter.
			p.skipToComma()
			continue
		}
		var value string
		if p.i < len(p.s) && p.s[p.i] == '"' {
			value = p.quoted()
		} else {
			value = p.token()
		}
		key := strings.ToLower(name)
		if _, dup := into[key]; !dup && len(into) < maxChallenges {
			into[key] = value
		}
		p.skipToComma()
	}
}

// quoted reads a quoted-string starting at the opening quote, undoing
// backslash escapes. An unterminated string runs to the end.
func (p *parser) quoted() string {
	p.i++ // opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String()
		case c == '\\' && p.i+1 < len(p.s):
			b.WriteByte(p.s[p.i+1])
			p.i += 2
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return b.String()
}

// skipToComma advances to the next top-level comma (or the end).
func (p *parser) skipToComma() {
	for p.i < len(p.s) && p.s[p.i] != ',' {
		if p.s[p.i] == '"' {
			p.quoted()
			continue
		}
		p.i++
	}
}

// isTokenChar reports whether c is an RFC 9110 tchar.
func isTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
