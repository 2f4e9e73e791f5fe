package idl

// negotiation checks what depends on the version the handshake
// negotiates: the handshake's version_field, batches: {versions: ...},
// and the headers of an http transport.
func (r *resolver) negotiation(ps *protoSpec) {
	p := r.p
	if ps.versionField.name != "" && p.Handshake != nil {
		if r.checkVersionField(p.Handshake, ps.versionField) {
			p.VersionField = ps.versionField.name
		}
	}
	if ps.batchVersions != nil || ps.batchesPos.Line > 0 {
		if ps.versionField.name == "" {
			r.errs.add(ps.batchesPos, "batches: {versions: ...} needs the version the handshake negotiates; name the member of its result that holds it, as in handshake: {method: initialize, version_field: protocolVersion}")
		}
		for _, v := range ps.batchVersions {
			p.BatchVersions = append(p.BatchVersions, v.name)
		}
	}
	for _, t := range p.Transports {
		if t.Kind != TransportHTTP {
			continue
		}
		if t.SessionHeader != "" && ps.handshake.name == "" {
			r.errs.add(t.Pos, "transport http has session_header %s, the session id a server issues in its answer to the handshake, but the protocol has no handshake; add handshake: followed by the request that opens a session, or remove session_header", t.SessionHeader)
		}
		if t.VersionHeader != "" && ps.versionField.name == "" {
			r.errs.add(t.Pos, "transport http has version_header %s, but the handshake negotiates no version; name the member of its result that holds it, as in handshake: {method: initialize, version_field: protocolVersion}, or remove version_header", t.VersionHeader)
		}
	}
}

// checkVersionField checks that the result of the handshake m has a
// required string member named by ref, and reports whether it has.
func (r *resolver) checkVersionField(m *Method, ref nameRef) bool {
	var obj *Type
	if m.Result != nil {
		obj = m.Result.Underlying()
	}
	if obj == nil || obj.Kind != KindObject {
		r.errs.add(ref.pos, "version_field %s: the result of handshake %s is not an object, so it has no member to hold the negotiated version; give %s an object result with a string field %s", ref.name, m.Name, m.Name, ref.name)
		return false
	}
	f := obj.Field(ref.name)
	if f == nil {
		names := make([]string, 0, len(obj.Fields))
		for _, f := range obj.Fields {
			names = append(names, f.Name)
		}
		r.errs.add(ref.pos, "version_field %q is not a field of the result of handshake %s%s", ref.name, m.Name,
			suggest(ref.name, names, "; name the string field that holds the negotiated version, or add it to the result"))
		return false
	}
	t := f.Type.Underlying()
	str := t != nil && !f.Type.Nullable && !t.Nullable && (t.Kind == KindString || t.Kind == KindEnum && t.EnumBase == KindString)
	switch {
	case !str:
		r.errs.add(ref.pos, "version_field %s of the result of handshake %s is %s, not a string; a negotiated version is a string", ref.name, m.Name, f.Type)
		return false
	case f.Optional:
		r.errs.add(ref.pos, "version_field %s of the result of handshake %s is optional; make it required, since every answer to the handshake names the version", ref.name, m.Name)
		return false
	}
	return true
}
