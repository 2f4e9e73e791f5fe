package idl

import (
	"strconv"

	"github.com/rpcgen/rpcgen/internal/goname"
)

// notificationForm resolves the notification: form of request m, the same
// wire name sent as a notification by the other role with its own params.
func (r *resolver) notificationForm(m *Method, ms *methodSpec) {
	fs, p := ms.notify, r.p
	f := &Method{Name: m.Name, GoName: m.GoName + "Notification", Doc: fs.doc, Deprecated: fs.deprec, Since: fs.since, Proposed: fs.proposed,
		From: fs.from.name, Kind: Notification, ParamsOptional: fs.paramsOpt, RequestForm: m, Pos: ms.notifyPos}
	m.NotificationForm = f
	what := "the notification form of " + strconv.Quote(m.Name)
	switch {
	case m.Kind != Request:
		r.errs.add(ms.notifyPos, "%q is a notification, but notification: gives a request a second form sent the other way; remove notification:, or make %s kind: request", m.Name, m.Name)
	case m.AlsoNotification:
		r.errs.add(ms.notifyPos, "%q has both kind: [request, notification] and notification:, two notification forms; keep kind: [request, notification] when that role sends both with the same params, or kind: request with notification: when the other role sends the notification", m.Name)
	}
	if fs.goName.name != "" {
		if !goname.IsExported(fs.goName.name) {
			r.errs.add(fs.goName.pos, "go_name %q is not an exported Go identifier; start it with an upper-case letter and use only letters, digits and _", fs.goName.name)
		}
		f.GoName = fs.goName.name
	}
	if fs.from.name != "" && p.Roles[1].Name != "" && m.From != "" {
		a, b := p.Roles[0].Name, p.Roles[1].Name
		other := map[string]string{a: b, b: a}[m.From]
		switch {
		case f.From != a && f.From != b && f.From != FromBoth:
			use := other
			if use == "" {
				use = a + " or " + b
			}
			r.errs.add(fs.from.pos, "from: %s is not a role of this protocol; the notification form of a request comes from the role that answers the request, use %s", f.From, use)
		case m.From == FromBoth || f.From == FromBoth || f.From == m.From:
			hint := "from: " + other + " when the role answering the request sends the notification"
			if other == "" {
				hint = "from: with one role on the request and the other role on its notification form"
			}
			r.errs.add(fs.from.pos, "%s is sent by %s, and the request by %s; the two forms of a wire name go opposite ways: use %s, or kind: [request, notification] when one role sends both with the same params", what, senders(f.From), senders(m.From), hint)
		}
	}
	if fs.params != nil {
		f.Params = r.build(fs.params, f.GoName+"Params", "")
		r.later = append(r.later, func() { r.checkParams(f, fs) })
	}
	for _, xs := range fs.examples {
		r.later = append(r.later, func() { f.Examples = append(f.Examples, r.example(f, xs)) })
	}
}

// senders names the roles a from: value stands for, in messages.
func senders(from string) string {
	if from == FromBoth {
		return "both roles"
	}
	return from
}
