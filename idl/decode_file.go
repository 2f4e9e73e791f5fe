package idl

import (
	"regexp"
	"slices"
	"strconv"
)

// Names the IDL accepts for protocols, roles, types and errors.
var (
	protoNameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
	roleNameRE  = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	typeNameRE  = regexp.MustCompile(`^_*[A-Za-z][A-Za-z0-9_]*$`)
	errorNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)
)

// typeNameRule says what typeNameRE accepts, for messages.
const typeNameRule = "must start with a letter, after any leading underscores, and hold only letters, digits and underscores"

// decodeFile decodes the root node of one IDL file. root reports whether
// the file is the one given to Load (it must describe a protocol) or an
// included one (only include, types and errors).
func (d *decoder) decodeFile(path string, n *node, root bool) *fileSpec {
	fs := &fileSpec{path: path}
	allowed := []string{"protocol", "include", "types", "errors", "methods"}
	o, ok := d.keys(n, "the file", allowed...)
	if !ok {
		return fs
	}
	if root && !o.has("protocol") {
		d.errs.add(n.pos, "missing protocol: section; every IDL file given to rpcgen describes one protocol (name, roles, framing)")
	}
	if !root && o.has("protocol") {
		d.errs.add(o.keyPos("protocol"), "an included file holds only include, types, errors and methods; move protocol: to the file that includes it")
	}
	if v := o.get("protocol"); v != nil && root {
		fs.protocol = d.protocol(v)
	}
	fs.includes = d.stringList(o.get("include"), "include")
	if v := o.get("types"); v != nil {
		for _, e := range d.entries(v, "types") {
			name := nameRef{keyName(e.key), e.key.pos}
			if !typeNameRE.MatchString(name.name) {
				d.errs.add(name.pos, "type name %q "+typeNameRule, name.name)
			} else if isKeyword(name.name) {
				d.errs.add(name.pos, "type name %q is a keyword of the type syntax; pick another name", name.name)
			}
			fs.types = append(fs.types, &typeDecl{name: name, t: d.typeSpec(e.val, ctxNamed)})
		}
	}
	if v := o.get("errors"); v != nil {
		for _, e := range d.entries(v, "errors") {
			fs.errors = append(fs.errors, d.errorDecl(e))
		}
	}
	if v := o.get("methods"); v != nil {
		for _, e := range d.entries(v, "methods") {
			fs.methods = append(fs.methods, d.method(e))
		}
	}
	return fs
}

// isKeyword reports whether s is a keyword of the type syntax.
func isKeyword(s string) bool {
	switch s {
	case "string", "integer", "int32", "uint32", "number", "boolean", "any", "null", "array", "map", "object", "enum", "union", "tuple", "true", "false":
		return true
	}
	return false
}

// protocol decodes the protocol: section.
func (d *decoder) protocol(n *node) *protoSpec {
	o, _ := d.keys(n, "protocol", "name", "version", "doc", "roles", "framing", "transports", "ids", "cancellation", "timeout", "on_timeout", "lifecycle", "ignore_unknown_notifications", "ordering", "handshake", "batches")
	p := &protoSpec{pos: n.pos}
	if !o.has("name") {
		d.errs.add(n.pos, "missing protocol name; add name: followed by a lower-case name such as myproto")
	} else {
		p.name = d.name(o.get("name"), "protocol name")
		if p.name.name != "" && !protoNameRE.MatchString(p.name.name) {
			d.errs.add(p.name.pos, "protocol name %q must start with a lower-case letter and hold only lower-case letters, digits, - and _", p.name.name)
		}
	}
	if v := o.get("version"); v != nil {
		p.version, _ = d.str(v, "version")
	}
	p.doc = d.optStr(o, "doc", "doc")
	p.lifecycle = d.optStr(o, "lifecycle", "lifecycle")
	p.rolesPos = o.keyPos("roles")
	if !o.has("roles") {
		d.errs.add(n.pos, "missing roles; list the protocol's two peers under roles:, the one that starts the connection first (e.g. client: and server:)")
	} else if rn := o.get("roles"); rn.kind != nMap {
		d.errs.add(rn.pos, "roles must be a mapping of the two role names to their docs, as in {client: The IDE., server: The agent.}")
	} else {
		for _, e := range d.entries(rn, "roles") {
			r := roleSpec{name: nameRef{keyName(e.key), e.key.pos}}
			if !roleNameRE.MatchString(r.name.name) {
				d.errs.add(r.name.pos, "role name %q must start with a lower-case letter and hold only lower-case letters, digits and _", r.name.name)
			}
			switch e.val.kind {
			case nNull:
			case nString:
				r.doc = e.val.str
			default:
				ro, _ := d.keys(e.val, "role", "doc", "go_name")
				r.doc = d.optStr(ro, "doc", "doc")
				if v := ro.get("go_name"); v != nil {
					r.goName = d.name(v, "go_name")
				}
			}
			p.roles = append(p.roles, r)
		}
	}
	if !o.has("framing") {
		d.errs.add(n.pos, "missing framing; add framing: content-length or framing: ndjson")
	}
	p.framing = d.oneOf(o.get("framing"), "framing", string(FramingContentLength), string(FramingNDJSON))
	p.ids = d.oneOf(o.get("ids"), "ids", string(IDInteger), string(IDString))
	p.cancellation = d.oneOf(o.get("cancellation"), "cancellation", string(CancelNone), string(CancelLSP), string(CancelMCP))
	p.ordering = d.oneOf(o.get("ordering"), "ordering", string(OrderConcurrent), string(OrderNotificationsFirst))
	if v := o.get("handshake"); v != nil {
		p.handshake, p.versionField = d.handshake(v)
	}
	if v := o.get("batches"); v != nil {
		d.batches(v, p)
	}
	p.timeout = d.duration(o.get("timeout"), "timeout")
	if v := o.get("on_timeout"); v != nil {
		p.onTimeout = d.onTimeout(v)
	}
	if v := o.get("ignore_unknown_notifications"); v != nil {
		if v.kind == nString {
			d.errs.add(v.pos, "ignore_unknown_notifications must be a list of wire-name prefixes, such as [\"$/\"]; write [%s]", strconv.Quote(v.str))
		} else {
			p.ignoreNotes = d.stringList(v, "ignore_unknown_notifications")
		}
	}
	p.transportPos = o.keyPos("transports")
	if v := o.get("transports"); v != nil {
		p.transports = d.transports(v)
	}
	return p
}

// transports decodes protocol.transports.
func (d *decoder) transports(n *node) []Transport {
	if n.kind != nSeq {
		d.errs.add(n.pos, "transports must be a list such as [stdio] or of mappings with a kind: key")
		return nil
	}
	kinds := []string{string(TransportStdio), string(TransportSubprocess), string(TransportTCP), string(TransportUnix), string(TransportHTTP)}
	seen := map[string]Pos{}
	var out []Transport
	for _, it := range n.items {
		t := Transport{Pos: it.pos}
		var o keyed
		if it.kind == nString {
			t.Kind = TransportKind(d.oneOf(it, "transport", kinds...).name)
		} else {
			var ok bool
			if o, ok = d.keys(it, "transport", "kind", "doc", "command", "args", "host", "port", "path", "session_header", "version_header", "default_version"); !ok {
				continue
			}
			if !o.has("kind") {
				d.errs.add(it.pos, "missing kind in transport; add kind: stdio, subprocess, tcp, unix or http")
				continue
			}
			t.Kind = TransportKind(d.oneOf(o.get("kind"), "transport", kinds...).name)
			t.Doc = d.optStr(o, "doc", "doc")
		}
		if t.Kind == "" {
			continue
		}
		if first, dup := seen[string(t.Kind)]; dup {
			d.errs.add(it.pos, "transport %s is listed twice (first at line %d); remove one", t.Kind, first.Line)
			continue
		}
		seen[string(t.Kind)] = it.pos
		d.transportOptions(&t, o)
		out = append(out, t)
	}
	return out
}

// transportOptions reads the options of one transport, rejecting those of
// other kinds.
func (d *decoder) transportOptions(t *Transport, o keyed) {
	own := map[TransportKind][]string{
		TransportSubprocess: {"command", "args"},
		TransportTCP:        {"host", "port"},
		TransportUnix:       {"path"},
		TransportHTTP:       httpKeys,
	}[t.Kind]
	for _, k := range []string{"command", "args", "host", "port", "path", "session_header", "version_header", "default_version"} {
		if o.has(k) && !slices.Contains(own, k) {
			d.errs.add(o.keyPos(k), "key %s does not apply to transport %s; remove it", k, t.Kind)
		}
	}
	switch t.Kind {
	case TransportSubprocess:
		t.Command = d.optStr(o, "command", "command")
		for _, a := range d.stringList(o.get("args"), "args") {
			t.Args = append(t.Args, a.name)
		}
	case TransportTCP:
		t.Host = "localhost"
		if o.has("host") {
			t.Host = d.optStr(o, "host", "host")
		}
		if !o.has("port") {
			d.errs.add(t.Pos, "transport tcp needs a default port; add port: followed by a number from 1 to 65535")
		} else {
			t.Port = d.port(o.get("port"))
		}
	case TransportUnix:
		t.Path = d.optStr(o, "path", "path")
	case TransportHTTP:
		d.httpOptions(t, o)
	}
}

// onTimeout decodes an on_timeout: mapping.
func (d *decoder) onTimeout(n *node) *OnTimeout {
	o, _ := d.keys(n, "on_timeout", "cancel", "action", "doc")
	ot := &OnTimeout{Pos: n.pos, Action: ActionError}
	ot.Cancel = d.boolean(o.get("cancel"), "cancel")
	if v := o.get("action"); v != nil {
		if a := d.oneOf(v, "action", string(ActionError), string(ActionClose), string(ActionKill)); a.name != "" {
			ot.Action = TimeoutAction(a.name)
		}
	}
	ot.Doc = d.optStr(o, "doc", "doc")
	return ot
}

// errorDecl decodes one entry of errors:.
func (d *decoder) errorDecl(e entry) *errorSpec {
	es := &errorSpec{name: nameRef{keyName(e.key), e.key.pos}}
	if !errorNameRE.MatchString(es.name.name) {
		d.errs.add(es.name.pos, "error name %q must start with a letter and hold only letters, digits and underscores, as in AgentBusy", es.name.name)
	}
	o, ok := d.keys(e.val, "error", "code", "message", "doc", "data", "allow_reserved", "since", "proposed")
	if !ok {
		return es
	}
	if !o.has("code") {
		d.errs.add(es.name.pos, "error %s has no code; add code: followed by an integer such as -32001", es.name.name)
	} else {
		es.codePos = o.get("code").pos
		es.code, es.codeOK = d.integer(o.get("code"), "error code")
	}
	if !o.has("message") {
		d.errs.add(es.name.pos, "error %s has no message; add message: with the text sent in the error response", es.name.name)
	}
	es.message = d.optStr(o, "message", "message")
	es.doc = d.optStr(o, "doc", "doc")
	es.metaSpec = d.meta(o)
	if v := o.get("data"); v != nil {
		es.data = d.typeSpec(v, ctxInline)
	}
	if v := o.get("allow_reserved"); v != nil {
		es.allowReserved = d.boolean(v, "allow_reserved")
		es.allowPos = o.keyPos("allow_reserved")
	}
	return es
}

// method decodes one entry of methods:.
func (d *decoder) method(e entry) *methodSpec {
	m := &methodSpec{name: nameRef{keyName(e.key), e.key.pos}}
	o, ok := d.keys(e.val, "method "+strconv.Quote(m.name.name), "from", "kind", "doc", "deprecated", "params", "params?", "result", "errors", "timeout", "on_timeout", "examples", "go_name", "since", "proposed", "notification", "idempotent")
	if !ok {
		return m
	}
	if v := o.get("notification"); v != nil {
		m.notifyPos = o.keyPos("notification")
		m.notify = d.notificationForm(v, m.name)
	}
	if !o.has("from") {
		d.errs.add(m.name.pos, "method %q has no from; add from: with the role that sends it, or both", m.name.name)
	}
	m.from = d.name(o.get("from"), "from")
	if !o.has("kind") {
		d.errs.add(m.name.pos, "method %q has no kind; add kind: request (it gets a response) or kind: notification (it does not)", m.name.name)
	}
	m.kind, m.alsoNote = d.methodKind(o.get("kind"))
	m.doc = d.optStr(o, "doc", "doc")
	m.deprec = d.optStr(o, "deprecated", "deprecated")
	m.metaSpec = d.meta(o)
	if v := o.get("go_name"); v != nil {
		m.goName = d.name(v, "go_name")
	}
	if o.has("params") && o.has("params?") {
		d.errs.add(o.keyPos("params?"), "method %q has both params and params?; keep params: when params are always sent, params?: when they may be left out", m.name.name)
	}
	if v := o.get("params"); v != nil {
		m.params = d.typeSpec(v, ctxInline)
	} else if v := o.get("params?"); v != nil {
		m.params, m.paramsOpt = d.typeSpec(v, ctxInline), true
	}
	if v := o.get("result"); v != nil {
		m.resultPos = o.keyPos("result")
		if v.kind == nString && v.str == "null" {
			m.nullRes = true
		} else {
			m.result = d.typeSpec(v, ctxInline)
		}
	}
	if o.has("errors") {
		m.errorsPos = o.keyPos("errors")
		m.errors = d.stringList(o.get("errors"), "errors")
	}
	m.timeout = d.duration(o.get("timeout"), "timeout")
	if v := o.get("on_timeout"); v != nil {
		m.onTimeout = d.onTimeout(v)
	}
	if v := o.get("idempotent"); v != nil {
		m.idempotent, m.idempotentPos = d.boolean(v, "idempotent"), o.keyPos("idempotent")
	}
	if v := o.get("examples"); v != nil {
		if v.kind != nSeq {
			d.errs.add(v.pos, "examples must be a list of mappings with params and result or error")
		} else {
			for _, it := range v.items {
				m.examples = append(m.examples, d.example(it))
			}
		}
	}
	return m
}

// example decodes one method example.
func (d *decoder) example(n *node) *exampleSpec {
	x := &exampleSpec{pos: n.pos}
	o, ok := d.keys(n, "example", "doc", "params", "result", "error")
	if !ok {
		return x
	}
	x.doc = d.optStr(o, "doc", "doc")
	x.params = o.get("params")
	x.result = o.get("result")
	if v := o.get("error"); v != nil {
		x.hasError = true
		if v.kind == nString {
			x.errName = nameRef{v.str, v.pos}
		} else {
			x.errNode = v
		}
	}
	return x
}

// methodKind decodes a method's kind: request, notification, or the list
// [request, notification] for a request that may also be sent as a
// notification.
func (d *decoder) methodKind(n *node) (kind nameRef, alsoNote bool) {
	if n == nil || n.kind != nSeq {
		return d.oneOf(n, "kind", string(Request), string(Notification)), false
	}
	seen := map[string]bool{}
	for _, it := range n.items {
		k := d.oneOf(it, "kind", string(Request), string(Notification))
		if k.name == "" {
			return nameRef{}, false
		}
		if seen[k.name] {
			d.errs.add(k.pos, "kind %s is listed twice; write kind: [request, notification]", k.name)
			return nameRef{}, false
		}
		seen[k.name] = true
	}
	if len(seen) != 2 {
		d.errs.add(n.pos, "a list of kinds holds both request and notification; write kind: request, kind: notification or kind: [request, notification]")
		return nameRef{}, false
	}
	return nameRef{string(Request), n.pos}, true
}
