package idl

import (
	"fmt"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/internal/goname"
)

// resolver turns decoded files into a Protocol.
type resolver struct {
	errs   *errorList
	files  []loadedFile
	p      *Protocol
	types  map[string]*TypeDef // named types by IDL name
	errors map[string]*ErrorDef
	values map[*Value]*node             // where each value was written, to check it
	dec    *decoder                     // decoder of the file being resolved
	later  []func()                     // checks that need every type complete
	kinds  map[*TypeDef]map[string]bool // JSON kinds of unions, see kindsOf
	levels map[*TypeDef]int             // levels of extends above each object type
	keyed  []*Type                      // the map types with typed keys, see mapKeys

	typeNames  []string          // every type name, for suggestions
	errorNames []string          // every error name, for suggestions
	hints      map[string]string // suggestions made, see suggest
	hintWork   int               // names compared for suggestions so far
}

// standardErrors are the errors JSON-RPC 2.0 defines.
var standardErrors = []ErrorDef{
	{Name: "ParseError", Code: -32700, Message: "Parse error", Doc: "Invalid JSON was received."},
	{Name: "InvalidRequest", Code: -32600, Message: "Invalid Request", Doc: "The JSON sent is not a valid request object."},
	{Name: "MethodNotFound", Code: -32601, Message: "Method not found", Doc: "The method does not exist or is not available."},
	{Name: "InvalidParams", Code: -32602, Message: "Invalid params", Doc: "Invalid method parameters."},
	{Name: "InternalError", Code: -32603, Message: "Internal error", Doc: "Internal JSON-RPC error."},
}

// resolve builds the protocol of files, the root file last, recording
// problems in errs.
func resolve(files []loadedFile, errs *errorList) *Protocol {
	r := &resolver{errs: errs, files: files, types: map[string]*TypeDef{}, errors: map[string]*ErrorDef{}, values: map[*Value]*node{}, kinds: map[*TypeDef]map[string]bool{}, hints: map[string]string{}, levels: map[*TypeDef]int{}}
	root := files[len(files)-1]
	r.p = &Protocol{}
	r.p.Files = append(r.p.Files, root.spec.path)
	for _, f := range files[:len(files)-1] {
		r.p.Files = append(r.p.Files, f.spec.path)
	}
	r.dec = root.dec
	ps := root.spec.protocol
	if ps == nil {
		ps = &protoSpec{} // reported missing; resolve the rest all the same
	}
	r.protocol(ps)
	r.declareTypes()
	r.declareErrors()
	for _, f := range files {
		r.dec = f.dec
		for _, td := range f.spec.types {
			if def := r.types[td.name.name]; def != nil && def.Pos == td.name.pos {
				r.buildNamed(def, td.t)
			}
		}
	}
	for _, f := range files {
		r.dec = f.dec
		for _, es := range f.spec.errors {
			if def := r.errors[es.name.name]; def != nil && def.Pos == es.name.pos && es.data != nil {
				def.Data = r.build(es.data, def.GoName+"Data", "")
			}
		}
	}
	methods := map[string]*Method{}
	for _, f := range files {
		r.dec = f.dec
		for _, ms := range f.spec.methods {
			if first := methods[ms.name.name]; first != nil {
				r.errs.add(ms.name.pos, "method %q is declared twice (first at %s); rename or remove one", ms.name.name, first.Pos)
				continue
			}
			methods[ms.name.name] = r.method(ms)
		}
	}
	r.dec = root.dec
	r.handshake(ps.handshake, methods)
	r.finishTypes()
	r.negotiation(ps)
	r.validate()
	for _, f := range r.later {
		f()
	}
	return r.p
}

// protocol resolves the protocol: section.
func (r *resolver) protocol(ps *protoSpec) {
	p := r.p
	p.Pos = ps.pos
	p.Name = ps.name.name
	p.GoPackage = goname.Package(p.Name)
	p.Version, p.Doc, p.Lifecycle = ps.version, ps.doc, ps.lifecycle
	p.Framing = Framing(ps.framing.name)
	p.Transports = ps.transports
	p.IDStyle = IDInteger
	if ps.ids.name != "" {
		p.IDStyle = IDStyle(ps.ids.name)
	}
	p.Cancellation = CancelNone
	if ps.cancellation.name != "" {
		p.Cancellation = Cancellation(ps.cancellation.name)
	}
	p.NoBatches = ps.noBatches
	p.Ordering = OrderConcurrent
	if ps.ordering.name != "" {
		p.Ordering = Ordering(ps.ordering.name)
	}
	seen := map[string]Pos{}
	for _, pre := range ps.ignoreNotes {
		if first, dup := seen[pre.name]; dup {
			r.errs.add(pre.pos, "prefix %q is listed twice in ignore_unknown_notifications (first at line %d); remove one", pre.name, first.Line)
			continue
		}
		seen[pre.name] = pre.pos
		p.IgnoreUnknownNotifications = append(p.IgnoreUnknownNotifications, pre.name)
	}
	p.Timeout = time.Duration(ps.timeout.d)
	p.OnTimeout = OnTimeout{Action: ActionError}
	if ps.onTimeout != nil {
		p.OnTimeout = *ps.onTimeout
		r.checkOnTimeout(p.OnTimeout, p.Timeout, "the protocol")
	}
	if ps.roles != nil {
		if len(ps.roles) != 2 {
			r.errs.add(ps.rolesPos, "a protocol has exactly two roles, found %d; list the peer that starts the connection first, e.g. client: and server:", len(ps.roles))
		}
	}
	for i, rs := range ps.roles {
		if i >= 2 {
			break
		}
		role := Role{Name: rs.name.name, GoName: goname.Exported(rs.name.name), Doc: rs.doc, Pos: rs.name.pos}
		if role.Name == FromBoth {
			r.errs.add(role.Pos, "role name both is reserved for methods either role sends; pick another name")
		}
		r.roleGoName(&role, rs)
		if i == 1 && role.GoName == p.Roles[0].GoName && role.Name != p.Roles[0].Name {
			r.errs.add(role.Pos, "roles %s and %s both become the Go name %s; rename one or give one another go_name:", p.Roles[0].Name, role.Name, role.GoName)
		}
		p.Roles[i] = role
	}
}

// handshake resolves protocol.handshake: the name of a request.
func (r *resolver) handshake(ref nameRef, methods map[string]*Method) {
	if ref.name == "" {
		return
	}
	m := methods[ref.name]
	if m == nil {
		names := make([]string, 0, len(methods))
		for _, m := range r.p.Methods {
			if m.Kind == Request {
				names = append(names, m.Name)
			}
		}
		r.errs.add(ref.pos, "handshake %q is not a method of the protocol%s", ref.name,
			suggest(ref.name, names, "; name the request that opens a session, declared under methods:"))
		return
	}
	if m.Kind != Request {
		r.errs.add(ref.pos, "handshake %s is a notification, which gets no answer to prove the session open; name a request, or make %s kind: request", m.Name, m.Name)
		return
	}
	r.p.Handshake = m
}

// roleGoName applies a role's go_name, or checks that the Go name made
// from the role's name does not repeat the package name (hermes.Hermes).
func (r *resolver) roleGoName(role *Role, rs roleSpec) {
	switch {
	case rs.goName.name != "":
		if !goname.IsExported(rs.goName.name) {
			r.errs.add(rs.goName.pos, "go_name %q is not an exported Go identifier; start it with an upper-case letter and use only letters, digits and _", rs.goName.name)
		}
		role.GoName = rs.goName.name
	case role.GoName != "" && strings.EqualFold(role.GoName, r.p.GoPackage):
		r.errs.add(role.Pos, "role %s would be the Go type %s.%s, which repeats the package name; name its Go type with go_name:, as in %s: {doc: ..., go_name: Host}", role.Name, r.p.GoPackage, role.GoName, role.Name)
	}
}

// checkOnTimeout checks an on_timeout against the protocol.
func (r *resolver) checkOnTimeout(ot OnTimeout, timeout time.Duration, where string) {
	if timeout == 0 {
		r.errs.add(ot.Pos, "on_timeout has no effect: %s has no timeout; add timeout: such as 30s, or remove on_timeout", where)
	}
	if ot.Cancel && r.p.Cancellation == CancelNone {
		r.errs.add(ot.Pos, "on_timeout cancel: true needs a cancellation style; set cancellation: lsp or mcp in protocol:, or remove cancel")
	}
	if ot.Action == ActionKill && !r.hasTransport(TransportSubprocess) {
		r.errs.add(ot.Pos, "on_timeout action: kill needs a subprocess transport to kill; add - kind: subprocess to protocol.transports, or use action: close")
	}
}

func (r *resolver) hasTransport(k TransportKind) bool {
	for _, t := range r.p.Transports {
		if t.Kind == k {
			return true
		}
	}
	return false
}

// declareTypes creates a TypeDef for every named type, so that references
// resolve whatever the order of declaration.
func (r *resolver) declareTypes() {
	for _, f := range r.files {
		for _, td := range f.spec.types {
			if first := r.types[td.name.name]; first != nil {
				r.errs.add(td.name.pos, "type %s is declared twice (first at %s); rename or remove one", td.name.name, first.Pos)
				continue
			}
			r.types[td.name.name] = &TypeDef{Name: td.name.name, GoName: typeGoName(td.name.name), Pos: td.name.pos}
		}
	}
}

// declareErrors builds the error catalogue: the standard errors, then
// those of every file, checking names and codes.
func (r *resolver) declareErrors() {
	std := map[int64]*ErrorDef{}
	for i := range standardErrors {
		e := standardErrors[i]
		e.GoName, e.Standard = e.Name, true
		r.p.Errors = append(r.p.Errors, &e)
		r.errors[e.Name] = &e
		std[e.Code] = &e
	}
	codes := map[int64]*ErrorDef{}
	for _, f := range r.files {
		for _, es := range f.spec.errors {
			def := &ErrorDef{Name: es.name.name, GoName: goname.Exported(es.name.name), Code: es.code, Message: es.message, Doc: es.doc, AllowReserved: es.allowReserved, Since: es.since, Proposed: es.proposed, Pos: es.name.pos}
			if s := r.errors[def.Name]; s != nil && s.Standard {
				if es.codeOK && es.code != s.Code {
					r.errs.add(es.codePos, "error name %s is JSON-RPC's standard error %d; use code %d or another name", def.Name, s.Code, s.Code)
					continue
				}
				// Redeclaring a standard error refines its message and doc.
				def.Standard, def.Code = true, s.Code
				if s.Pos.IsValid() {
					r.errs.add(def.Pos, "error %s is declared twice (first at %s); remove one", def.Name, s.Pos)
					continue
				}
				*s = *def
				codes[s.Code] = s
				continue
			} else if s != nil {
				r.errs.add(def.Pos, "error %s is declared twice (first at %s); rename or remove one", def.Name, s.Pos)
				continue
			}
			if !es.codeOK {
				continue
			}
			if s := std[es.code]; s != nil {
				r.errs.add(es.codePos, "code %d is JSON-RPC's standard %s error and cannot take another meaning; name the error %s to document it, or use another code", es.code, s.Name, s.Name)
				continue
			}
			if first := codes[es.code]; first != nil {
				r.errs.add(es.codePos, "code %d is already used by error %s (at %s); give each error its own code", es.code, first.Name, first.Pos)
				continue
			}
			r.checkCode(es)
			codes[es.code] = def
			r.errors[def.Name] = def
			r.p.Errors = append(r.p.Errors, def)
		}
	}
}

// checkCode applies the reserved-range rule to one application error.
func (r *resolver) checkCode(es *errorSpec) {
	reserved := es.code >= -32768 && es.code <= -32000
	serverBand := es.code >= -32099 && es.code <= -32000
	switch {
	case reserved && !serverBand && !es.allowReserved:
		r.errs.add(es.codePos, "code %d is in JSON-RPC's reserved range -32768..-32000 but outside the server-error band -32099..-32000; pick another code, or add allow_reserved: true if the protocol really uses it", es.code)
	case es.allowReserved && (!reserved || serverBand):
		r.errs.add(es.allowPos, "allow_reserved: true is only for codes in -32768..-32100 (code %d does not need it); remove it", es.code)
	}
}

// lookupType finds a named type, reporting unknown names with a
// suggestion.
func (r *resolver) lookupType(name string, pos Pos) *TypeDef {
	if def := r.types[name]; def != nil {
		return def
	}
	if r.typeNames == nil {
		for _, f := range r.files {
			for _, td := range f.spec.types {
				r.typeNames = append(r.typeNames, td.name.name)
			}
		}
		r.typeNames = append(r.typeNames, "string", "integer", "number", "boolean", "any")
	}
	hint := r.suggest("type "+name, name, r.typeNames)
	if hint == "" {
		hint = "; declare it under types: or fix the name"
		if name == "object" {
			hint = "; write map<string, any> for any JSON object, or declare an object type with fields:"
		}
	}
	r.errs.add(pos, "unknown type %s%s", name, hint)
	return nil
}

// maxHintWork bounds how many names suggestions compare in all, so that
// a file naming many unknown types among many known ones is checked in
// reasonable time; past it, unknown names get no suggestion.
const maxHintWork = 1 << 20

// suggest is the package's suggest for names of types and errors: it
// remembers what it found for each key (the kind of name and the name)
// and stops looking after maxHintWork comparisons.
func (r *resolver) suggest(key, name string, candidates []string) string {
	if hint, ok := r.hints[key]; ok {
		return hint
	}
	if r.hintWork += len(candidates); r.hintWork > maxHintWork {
		return ""
	}
	hint := suggest(name, candidates, "")
	r.hints[key] = hint
	return hint
}

// value converts a written value to JSON, remembering its node.
func (r *resolver) value(n *node) *Value {
	if n == nil {
		return nil
	}
	v := &Value{JSON: r.toJSON(n), Pos: n.pos}
	r.values[v] = n
	return v
}

// where names a method for messages.
func where(kind, name string) string { return fmt.Sprintf("%s %q", kind, name) }
