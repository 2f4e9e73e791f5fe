package markdown

import (
	"fmt"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/idl"
)

// duration formats a timeout the way the IDL writes it: "10s", "2m",
// "1m30s", "500ms".
func duration(t time.Duration) string {
	s := t.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// onTimeout returns, as the end of a sentence, what happens when a request
// of caller to callee times out.
func (d *doc) onTimeout(caller, callee string, ot idl.OnTimeout) string {
	acts := []string{caller + " stops waiting with a timeout error"}
	if m := d.p.Cancellation.Method(); ot.Cancel && m != "" {
		acts = append(acts, "sends "+d.cancelRef(m)+" for the request")
	}
	switch ot.Action {
	case idl.ActionClose:
		acts = append(acts, "closes the connection")
	case idl.ActionKill:
		acts = append(acts, "kills the process of "+callee)
	}
	s := acts[0]
	if n := len(acts); n > 1 {
		s = strings.Join(acts[:n-1], ", ") + " and " + acts[n-1]
	}
	s += "."
	if ot.Doc != "" {
		s += " " + sentence(inline(ot.Doc))
	}
	return s
}

// cancelRef returns the cancellation method's name, linked when the IDL
// declares it.
func (d *doc) cancelRef(method string) string {
	if m := d.p.Method(method); m != nil {
		return d.methodLink(m)
	}
	return code(method)
}

// onTimeoutCell returns, briefly, what happens when a request times out.
func (d *doc) onTimeoutCell(ot idl.OnTimeout) string {
	parts := []string{"timeout error"}
	if m := d.p.Cancellation.Method(); ot.Cancel && m != "" {
		parts = append(parts, d.cancelRef(m)+" sent")
	}
	switch ot.Action {
	case idl.ActionClose:
		parts = append(parts, "connection closed")
	case idl.ActionKill:
		parts = append(parts, "process killed")
	}
	s := strings.Join(parts, ", ") + "."
	if ot.Doc != "" {
		s += " " + sentence(inline(ot.Doc))
	}
	return s
}

// sameOnTimeout reports whether two on_timeout settings say the same.
func sameOnTimeout(a, b idl.OnTimeout) bool {
	return a.Cancel == b.Cancel && a.Action == b.Action && a.Doc == b.Doc
}

// timeoutCell returns a method's timeout for the summary table.
func timeoutCell(m *idl.Method) string {
	switch {
	case m.Kind != idl.Request:
		return "—"
	case m.Timeout == 0:
		return "none"
	}
	return duration(m.Timeout)
}

// methodTimeout returns what a method's section says of its timeout:
// only what differs from the protocol's default, which the Lifecycle
// section states once.
func (d *doc) methodTimeout(m *idl.Method, caller, callee string) string {
	p := d.p
	def := d.link("default", secLifecycle)
	switch {
	case m.Timeout == 0 && p.Timeout == 0:
		return "none, the " + def
	case m.Timeout == 0:
		return "none: " + caller + " waits for the response as long as the connection lasts"
	case !sameOnTimeout(m.OnTimeout, p.OnTimeout) || p.Timeout == 0:
		return fmt.Sprintf("%s. When no response arrives in time, %s", duration(m.Timeout), d.onTimeout(caller, callee, m.OnTimeout))
	case m.Timeout == p.Timeout:
		return duration(m.Timeout) + ", the " + def
	}
	return duration(m.Timeout) + "; when it expires, as for the " + def
}

// writeMethods writes the summary table and one section per method.
func (d *doc) writeMethods() {
	p := d.p
	d.heading(secMethods)
	if len(p.Methods) == 0 {
		d.para("The protocol declares no methods.")
		return
	}
	d.paraf("Every request and notification, in the order the IDL declares them. Direction is sender → receiver; %s methods may be sent by either peer.", code("both"))
	var rows [][]string
	for _, m := range p.Methods {
		sum := summary(m.Doc)
		if m.Deprecated != "" {
			sum = strings.TrimSpace("**Deprecated.** " + sum)
		}
		kind := string(m.Kind)
		if m.AlsoNotification {
			kind = "request, notification"
		}
		rows = append(rows, []string{d.methodLink(m), d.direction(m), kind, timeoutCell(m), sum})
		if f := m.NotificationForm; f != nil {
			rows = append(rows, []string{d.methodLink(m), d.direction(f), "notification", "—", summary(f.Doc)})
		}
	}
	d.table([]string{"method", "direction", "kind", "timeout", "summary"}, rows)
	for _, m := range p.Methods {
		d.writeMethod(m)
	}
}

// writeMethod writes the section of one method.
func (d *doc) writeMethod(m *idl.Method) {
	d.heading(m)
	d.deprecated(m.Deprecated)
	d.meta(m.Since, m.Proposed)
	d.para(block(m.Doc))
	if m.Name == d.p.Cancellation.Method() {
		d.para("The protocol's cancellation notification: see " + d.link("Cancellation", secCancellation) + ".")
	}
	items := []string{"- **Direction:** " + d.direction(m)}
	if m.From == idl.FromBoth {
		items[0] += " (either peer may send it)"
	}
	switch {
	case m.Kind == idl.Notification:
		items = append(items, "- **Kind:** notification: nothing answers it")
	case m.AlsoNotification:
		items = append(items, "- **Kind:** request or notification: sent as a request (with an id), the receiver answers with a result or an error; sent as a notification, nothing answers it")
	default:
		items = append(items, "- **Kind:** request: the receiver answers with a result or an error")
	}
	if m.Kind == idl.Request {
		caller, callee := "the caller", "the receiver"
		if m.From != idl.FromBoth {
			caller, callee = roleName(m.From), roleName(d.peer(m.From))
		}
		items = append(items, "- **Timeout:** "+d.methodTimeout(m, caller, callee))
		if m.Idempotent {
			items = append(items, "- **Idempotent:** running it twice has the effect of running it once, so "+caller+" may send it again on a new connection when the connection ended before the answer came")
		}
	}
	d.para(strings.Join(items, "\n"))
	d.writePayload("Params", m.Params, "none: the "+string(m.Kind)+" is sent without `params`.")
	if m.ParamsOptional {
		d.para("The params may be left out.")
	}
	if m.Kind == idl.Request {
		if m.NullResult {
			d.para("**Result:** always `null`; a caller takes any other result as an error.")
		} else {
			d.writePayload("Result", m.Result, "`null`.")
		}
		d.writeMethodErrors(m)
	}
	d.writeExamples(m)
	if f := m.NotificationForm; f != nil {
		d.writeNotificationForm(f)
	}
}

// writeNotificationForm writes the notification form of a request: the
// same wire name, sent the other way with its own params.
func (d *doc) writeNotificationForm(f *idl.Method) {
	d.paraf("**Also a notification:** %s sends %s to %s as a notification too, with params of its own; nothing answers it. %s", roleName(f.From), code(f.Name), roleName(d.peer(f.From)), block(f.Doc))
	d.deprecated(f.Deprecated)
	d.meta(f.Since, f.Proposed)
	d.writePayload("Notification params", f.Params, "none: the notification is sent without `params`.")
	if f.ParamsOptional {
		d.para("The notification's params may be left out.")
	}
	d.writeExamples(f)
}

// writePayload writes the params or result of a method: its type and, for
// an object, its fields table.
func (d *doc) writePayload(label string, t *idl.Type, none string) {
	if t == nil {
		d.paraf("**%s:** %s", label, none)
		return
	}
	def, obj := objectOf(t)
	if obj == nil {
		d.paraf("**%s:** %s", label, d.typeExpr(t))
		return
	}
	if len(obj.Fields) == 0 && obj.Additional == nil {
		d.paraf("**%s:** %s, an object with no members: `{}`.", label, d.typeExpr(t))
		return
	}
	d.paraf("**%s:** %s", label, d.typeExpr(t))
	d.writeFields(def, obj)
}

// writeMethodErrors writes the errors a request may return.
func (d *doc) writeMethodErrors(m *idl.Method) {
	std := d.link("standard errors", secErrors)
	if len(m.Errors) == 0 {
		d.paraf("**Errors:** only the %s.", std)
		return
	}
	d.paraf("**Errors:** besides the %s:", std)
	var rows [][]string
	for _, e := range m.Errors {
		r := d.errorRow(e)
		rows = append(rows, []string{r[0], r[1], r[2], r[4]})
	}
	d.table([]string{"code", "name", "message", "data"}, rows)
}

// writeExamples writes every example of a method as JSON messages.
func (d *doc) writeExamples(m *idl.Method) {
	if len(m.Examples) == 0 {
		return
	}
	id := d.exampleID()
	sender := "either peer"
	if m.From != idl.FromBoth {
		sender = d.direction(m)
	}
	for i, ex := range m.Examples {
		label := "**Example"
		if len(m.Examples) > 1 {
			label += fmt.Sprintf(" %d", i+1)
		}
		label += ".**"
		if ex.Doc != "" {
			label += " " + inline(ex.Doc)
		}
		d.para(label)
		if m.Kind == idl.Notification || ex.Result == nil && ex.Error == nil {
			d.paraf("Notification (%s):", sender)
			d.jsonBlock(requestJSON(m.Name, "", raw(ex.Params)))
			continue
		}
		d.paraf("Request (%s):", sender)
		d.jsonBlock(requestJSON(m.Name, id, raw(ex.Params)))
		if ex.Error != nil {
			d.para("Error response:")
		} else {
			d.para("Response:")
		}
		d.jsonBlock(responseJSON(id, ex))
	}
}
