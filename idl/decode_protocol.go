package idl

import (
	"strconv"
	"strings"
	"unicode"
)

// httpKeys are the options of an http transport.
var httpKeys = []string{"path", "port", "session_header", "version_header", "default_version"}

// port reads a port number from 1 to 65535.
func (d *decoder) port(n *node) int {
	p, ok := d.integer(n, "port")
	if !ok {
		return 0
	}
	if p < 1 || p > 65535 {
		d.errs.add(n.pos, "port %d is out of range; use a number from 1 to 65535", p)
	}
	return int(p)
}

// httpOptions reads the options of an http transport: the endpoint's
// path, its default port and the headers that carry the session and the
// negotiated version. The headers' need for a handshake is checked by the
// resolver.
func (d *decoder) httpOptions(t *Transport, o keyed) {
	if !o.has("path") {
		d.errs.add(t.Pos, "transport http needs the endpoint's path; add path: such as /rpc")
	} else if v := o.get("path"); v != nil {
		t.Path, _ = d.str(v, "path")
		switch {
		case v.kind != nString:
		case !strings.HasPrefix(t.Path, "/"):
			d.errs.add(v.pos, "path %q of transport http must start with /; write /%s", t.Path, t.Path)
		case strings.ContainsFunc(t.Path, blankOrControl) || strings.ContainsAny(t.Path, "?#"):
			d.errs.add(v.pos, "path %q of transport http holds white space, a control character, ? or #; an endpoint's path has no query or fragment", t.Path)
		}
	}
	if o.has("port") {
		t.Port = d.port(o.get("port"))
	}
	t.SessionHeader = d.header(o, "session_header", "Mcp-Session-Id")
	t.VersionHeader = d.header(o, "version_header", "MCP-Protocol-Version")
	t.DefaultVersion = d.version(o.get("default_version"), "default_version")
	if o.has("default_version") && !o.has("version_header") {
		d.errs.add(o.keyPos("default_version"), "default_version is the version a server assumes when a request has no version header, and transport http names none; add version_header: or remove default_version")
	}
}

// version reads a protocol version, a string without white space or
// control characters.
func (d *decoder) version(n *node, what string) string {
	s, ok := d.str(n, what)
	if ok && (s == "" || strings.ContainsFunc(s, blankOrControl)) {
		d.errs.add(n.pos, "%s %q is not a version; write it as the handshake's result names it, without white space, such as \"1.0\"", what, s)
		return ""
	}
	return s
}

// blankOrControl reports whether r is white space or a control character.
func blankOrControl(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r)
}

// header reads the HTTP header name under key k; example is one.
func (d *decoder) header(o keyed, k, example string) string {
	v := o.get(k)
	if v == nil {
		return ""
	}
	s, ok := d.str(v, k)
	if ok && !isToken(s) {
		d.errs.add(v.pos, "%s %q is not an HTTP header name; use letters, digits and -, as in %s", k, s, example)
		return ""
	}
	return s
}

// isToken reports whether s is an HTTP token (RFC 9110, section 5.6.2),
// the syntax of a header name.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

// handshake reads protocol.handshake: the name of a request, or a mapping
// {method: ..., version_field: ...} that also names the member of its
// result holding the negotiated protocol version.
func (d *decoder) handshake(n *node) (method, versionField nameRef) {
	switch n.kind {
	case nString:
		return d.name(n, "handshake"), nameRef{}
	case nMap:
	default:
		d.errs.add(n.pos, "handshake must be a request's name, or a mapping such as {method: initialize, version_field: protocolVersion}, not %s", describeNode(n))
		return nameRef{}, nameRef{}
	}
	o, _ := d.keys(n, "handshake", "method", "version_field")
	if !o.has("method") {
		d.errs.add(n.pos, "missing method in handshake; add method: followed by the request that opens a session")
	} else {
		method = d.name(o.get("method"), "handshake method")
	}
	if v := o.get("version_field"); v != nil {
		versionField = d.name(v, "version_field")
		if versionField.name == "" && v.kind == nString {
			d.errs.add(v.pos, "version_field is empty; name the member of the handshake's result that holds the negotiated version, such as protocolVersion")
		}
	}
	return method, versionField
}

// batches reads protocol.batches: true, false, or {versions: [...]}, the
// negotiated protocol versions under which batches are accepted.
func (d *decoder) batches(n *node, p *protoSpec) {
	if n.kind != nMap {
		if n.kind != nBool {
			d.errs.add(n.pos, "batches must be true, false or a mapping such as {versions: [\"1.0\"]}, not %s", describeNode(n))
			return
		}
		p.noBatches = !n.b
		return
	}
	p.batchesPos = n.pos
	o, _ := d.keys(n, "batches", "versions")
	v := o.get("versions")
	if v == nil {
		d.errs.add(n.pos, "missing versions in batches; list the negotiated protocol versions that accept batches, as in {versions: [\"1.0\"]}, or write batches: true or false")
		return
	}
	if v.kind != nSeq {
		if v.kind == nString {
			d.errs.add(v.pos, "versions must be a list of strings; write [%q]", v.str)
		} else {
			d.errs.add(v.pos, "versions must be a list of strings, not %s", describeNode(v))
		}
		return
	}
	type listed struct {
		first, second Pos
		times         int
	}
	seen := map[string]*listed{}
	for _, it := range v.items {
		s := d.version(it, "batch version")
		if s == "" {
			continue
		}
		if l := seen[s]; l != nil {
			if l.times++; l.times == 2 {
				l.second = it.pos
			}
			continue
		}
		seen[s] = &listed{first: it.pos, times: 1}
		p.batchVersions = append(p.batchVersions, nameRef{s, it.pos})
	}
	for _, s := range p.batchVersions {
		if l := seen[s.name]; l.times > 1 {
			d.errs.add(l.second, "version %q is listed %s in batches (first at %d:%d); list it once", s.name, times(l.times), l.first.Line, l.first.Col)
		}
	}
	if len(v.items) == 0 {
		d.errs.add(v.pos, "versions of batches is empty; list at least one version, or write batches: false")
	}
}

// times says how many times something is listed: "twice", "3 times".
func times(n int) string {
	if n == 2 {
		return "twice"
	}
	return strconv.Itoa(n) + " times"
}
