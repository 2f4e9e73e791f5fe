package idl

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/rpcgen/rpcgen/internal/goname"
)

// method resolves one method and appends it to the protocol.
func (r *resolver) method(ms *methodSpec) *Method {
	p := r.p
	m := &Method{Name: ms.name.name, Doc: ms.doc, Deprecated: ms.deprec, Since: ms.since, Proposed: ms.proposed, From: ms.from.name, Kind: MethodKind(ms.kind.name), Pos: ms.name.pos}
	m.AlsoNotification, m.ParamsOptional, m.NullResult = ms.alsoNote, ms.paramsOpt, ms.nullRes
	m.Idempotent = ms.idempotent
	p.Methods = append(p.Methods, m)
	r.methodName(m, ms)
	if ms.from.name != "" && p.Roles[1].Name != "" {
		roles := []string{p.Roles[0].Name, p.Roles[1].Name, FromBoth}
		if m.From != FromBoth && m.From != p.Roles[0].Name && m.From != p.Roles[1].Name {
			r.errs.add(ms.from.pos, "from: %s is not a role of this protocol; use %s%s", m.From, orList(roles), suggest(m.From, roles, ""))
		}
	}
	if ms.params != nil {
		m.Params = r.build(ms.params, m.GoName+"Params", "")
		// The JSON kinds of unions are known once every type is complete.
		r.later = append(r.later, func() { r.checkParams(m, ms) })
	}
	if ms.result != nil {
		m.Result = r.build(ms.result, m.GoName+"Result", "")
	}
	seen := map[string]bool{}
	for _, ref := range ms.errors {
		if seen[ref.name] {
			r.errs.add(ref.pos, "error %s is listed twice; remove one", ref.name)
			continue
		}
		seen[ref.name] = true
		if def := r.lookupError(ref); def != nil {
			m.Errors = append(m.Errors, def)
		}
	}
	switch m.Kind {
	case Notification:
		if ms.result != nil || ms.nullRes {
			r.errs.add(ms.resultPos, "notification %q has a result, but notifications get no response; remove result, or make it kind: request", m.Name)
		}
		if ms.errors != nil || ms.errorsPos.IsValid() {
			r.errs.add(ms.errorsPos, "notification %q lists errors, but notifications get no response; remove errors, or make it kind: request", m.Name)
		}
		if ms.timeout.set {
			r.errs.add(ms.timeout.pos, "notification %q has a timeout, but nothing waits for a notification; remove timeout", m.Name)
		}
		if ms.onTimeout != nil {
			r.errs.add(ms.onTimeout.Pos, "notification %q has on_timeout, but nothing waits for a notification; remove on_timeout", m.Name)
		}
		if ms.idempotentPos.IsValid() {
			r.errs.add(ms.idempotentPos, "notification %q has idempotent, but a notification is never sent again; remove idempotent, or make it kind: request", m.Name)
		}
	case Request:
		m.Timeout = p.Timeout
		if ms.timeout.set {
			m.Timeout = time.Duration(ms.timeout.d)
		}
		m.OnTimeout = p.OnTimeout
		if ms.onTimeout != nil {
			m.OnTimeout = *ms.onTimeout
			r.checkOnTimeout(m.OnTimeout, m.Timeout, where("method", m.Name))
		}
		if m.Timeout == 0 && ms.onTimeout == nil {
			m.OnTimeout = OnTimeout{Action: ActionError}
		}
	}
	if cm := p.Cancellation.Method(); cm != "" && m.Name == cm && m.Kind == Request {
		r.errs.add(ms.kind.pos, "%s is the cancellation notification of cancellation: %s; make it kind: notification", m.Name, p.Cancellation)
	}
	for _, xs := range ms.examples {
		// Examples are checked once every type is complete.
		r.later = append(r.later, func() { m.Examples = append(m.Examples, r.example(m, xs)) })
	}
	if ms.notify != nil {
		r.notificationForm(m, ms)
	}
	return m
}

// methodName checks the wire name of a method and gives it its Go name.
func (r *resolver) methodName(m *Method, ms *methodSpec) {
	switch {
	case m.Name == "":
		r.errs.add(m.Pos, "method name is empty; write the name sent on the wire, such as tools/call")
	case strings.HasPrefix(m.Name, "rpc."):
		r.errs.add(m.Pos, "method %q starts with rpc., which JSON-RPC 2.0 reserves for its own extensions; rename it", m.Name)
	case strings.IndexFunc(m.Name, func(c rune) bool { return unicode.IsSpace(c) || unicode.IsControl(c) }) >= 0:
		r.errs.add(m.Pos, "method %q contains white space or control characters; remove them", m.Name)
	}
	m.GoName = goname.Method(m.Name, r.p.Name)
	if ms.goName.name != "" {
		if !goname.IsExported(ms.goName.name) {
			r.errs.add(ms.goName.pos, "go_name %q is not an exported Go identifier; start it with an upper-case letter and use only letters, digits and _", ms.goName.name)
		}
		m.GoName = ms.goName.name
	} else if m.GoName == "" && m.Name != "" {
		r.errs.add(m.Pos, "method %q has no letter or digit to make a Go name from; add go_name:", m.Name)
	}
}

// checkParams requires every value of the params type, null aside, to be
// a JSON object or array: JSON-RPC sends params by name or by position.
func (r *resolver) checkParams(m *Method, ms *methodSpec) {
	t := m.Params
	if t.Kind == KindInvalid {
		return
	}
	u := underlying(t)
	if u == nil || u.Kind == KindAny {
		return
	}
	ks := r.jsonKinds(t)
	var bad []string
	for _, k := range []string{"string", "number", "boolean"} {
		if ks[k] {
			bad = append(bad, k+"s")
		}
	}
	if len(bad) == 0 {
		return
	}
	what := describeType(t)
	if u.Kind == KindUnion {
		what += fmt.Sprintf(", whose values may be %s", orList(bad))
	}
	r.errs.add(ms.params.pos, "params of %q must be a JSON object or array (JSON-RPC sends params by name or by position), not %s; declare an object with fields:, or an array", m.Name, what)
}

// lookupError finds an error by name, reporting unknown names.
func (r *resolver) lookupError(ref nameRef) *ErrorDef {
	if def := r.errors[ref.name]; def != nil {
		return def
	}
	if r.errorNames == nil {
		for _, e := range r.p.Errors {
			r.errorNames = append(r.errorNames, e.Name)
		}
	}
	hint := r.suggest("error "+ref.name, ref.name, r.errorNames)
	if hint == "" {
		hint = "; declare it under errors:"
	}
	r.errs.add(ref.pos, "unknown error %s%s", ref.name, hint)
	return nil
}

// underlying follows references to the type they name. It returns nil
// for a chain of references that loops.
func underlying(t *Type) *Type {
	for range 64 {
		if t == nil || t.Kind != KindRef {
			return t
		}
		if t.Ref == nil || t.Ref.Type == nil {
			return nil
		}
		t = t.Ref.Type
	}
	return nil
}

// nullableChain reports whether t, or a reference it follows, is nullable.
func nullableChain(t *Type) bool {
	for range 64 {
		if t == nil {
			return false
		}
		if t.Nullable {
			return true
		}
		if t.Kind != KindRef || t.Ref == nil {
			return false
		}
		t = t.Ref.Type
	}
	return false
}

// describeType names a type in messages.
func describeType(t *Type) string {
	if t == nil {
		return "nothing"
	}
	s := t.Kind.String()
	if t.Kind == KindRef && t.Ref != nil {
		s = "type " + t.Ref.Name
		if u := underlying(t); u != nil && u.Positional {
			s += " (positional object)"
		} else if u != nil {
			s += " (" + u.Kind.String() + ")"
		}
	}
	if t.Nullable {
		s += " | null"
	}
	return s
}
