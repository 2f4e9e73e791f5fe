package idl

import "strconv"

// notificationForm decodes the notification: form of the request named
// name: the same wire name sent as a notification, with its own sender
// and params.
func (d *decoder) notificationForm(n *node, name nameRef) *methodSpec {
	f := &methodSpec{name: name, kind: nameRef{string(Notification), n.pos}}
	what := "the notification form of " + strconv.Quote(name.name)
	o, ok := d.keys(n, what, "from", "doc", "deprecated", "params", "params?", "examples", "go_name", "since", "proposed",
		"kind", "result", "errors", "timeout", "on_timeout", "notification")
	if !ok {
		return f
	}
	for _, k := range []string{"result", "errors", "timeout", "on_timeout"} {
		if o.has(k) {
			d.errs.add(o.keyPos(k), "%s has %s, but nothing answers or waits for a notification; remove %s, or move it to the request", what, k, k)
		}
	}
	if o.has("kind") {
		d.errs.add(o.keyPos("kind"), "%s has a kind, but it is always a notification; remove kind:", what)
	}
	if o.has("notification") {
		d.errs.add(o.keyPos("notification"), "%s has a notification form of its own; remove it", what)
	}
	if !o.has("from") {
		d.errs.add(n.pos, "%s has no from; add from: with the role that sends the notification", what)
	}
	f.from = d.name(o.get("from"), "from")
	f.doc = d.optStr(o, "doc", "doc")
	f.deprec = d.optStr(o, "deprecated", "deprecated")
	f.metaSpec = d.meta(o)
	if v := o.get("go_name"); v != nil {
		f.goName = d.name(v, "go_name")
	}
	if o.has("params") && o.has("params?") {
		d.errs.add(o.keyPos("params?"), "%s has both params and params?; keep params: when params are always sent, params?: when they may be left out", what)
	}
	if v := o.get("params"); v != nil {
		f.params = d.typeSpec(v, ctxInline)
	} else if v := o.get("params?"); v != nil {
		f.params, f.paramsOpt = d.typeSpec(v, ctxInline), true
	}
	if v := o.get("examples"); v != nil {
		if v.kind != nSeq {
			d.errs.add(v.pos, "examples must be a list of mappings with params")
		} else {
			for _, it := range v.items {
				f.examples = append(f.examples, d.example(it))
			}
		}
	}
	return f
}
