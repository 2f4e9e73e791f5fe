// Package breaking compares two versions of a resolved protocol and reports
// the changes that break its users, in the manner of buf breaking: changes
// that break peers on the wire ([Wire]), and changes that leave the wire as
// it was but break Go code written against the generated package ([Go]).
//
// Both peers of a protocol upgrade on their own, so a message must stay
// readable both ways: by a peer built from the old IDL when one built from
// the new wrote it, and the reverse. Generated readers drop members they do
// not declare and refuse missing required members and values a closed enum
// does not list: adding an optional member is fine, adding a required one
// (in params or in a result) breaks, and so does adding a value to a closed
// enum or removing one. README.md beside this file lists the rules and the
// reasons.
package breaking

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/rpcgen/rpcgen/idl"
)

// Finding is one breaking change.
type Finding struct {
	Rule  string // a name from [Rules], such as "METHOD_REMOVED"
	Class Class
	// Pos is where the change is: in the new protocol, or in the old one
	// (Old) for what was removed.
	Pos     idl.Pos
	Old     bool
	Message string
}

// Compare returns the breaking changes from old to cur, wire changes first,
// then by position (new positions before old ones).
func Compare(old, cur *idl.Protocol) []Finding {
	c := &comparer{
		old: old, cur: cur,
		seen:    map[[2]*idl.TypeDef]bool{},
		renamed: map[*idl.TypeDef]bool{},
		usedOld: map[*idl.TypeDef]bool{},
		usedNew: map[*idl.TypeDef]bool{},
	}
	c.protocol()
	c.methods()
	c.errors()
	c.types()
	slices.SortFunc(c.findings, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(classOrder(a.Class), classOrder(b.Class)),
			compareBool(a.Old, b.Old),
			cmp.Compare(a.Pos.File, b.Pos.File),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Col, b.Pos.Col),
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Message, b.Message),
		)
	})
	return slices.Compact(c.findings)
}

func classOrder(c Class) int {
	if c == Wire {
		return 0
	}
	return 1
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// comparer holds the state of one comparison.
type comparer struct {
	old, cur *idl.Protocol
	findings []Finding
	// seen holds the pairs of type definitions compared already: each is
	// compared once, wherever it is used, and cycles end.
	seen map[[2]*idl.TypeDef]bool
	// renamed holds the old named types reported as renamed, which are
	// not also reported as removed.
	renamed map[*idl.TypeDef]bool
	// usedOld and usedNew hold the type definitions that methods and
	// errors carry, directly or not.
	usedOld, usedNew map[*idl.TypeDef]bool
	// unused is set while comparing named types no method or error
	// carries: only changes that break Go code count, in the Go class.
	unused bool
}

// add records a finding of rule at pos (in the old protocol when old).
func (c *comparer) add(rule string, pos idl.Pos, old bool, format string, args ...any) {
	r, ok := rules[rule]
	if !ok {
		panic("breaking: unknown rule " + rule)
	}
	class := r.Class
	if c.unused && class == Wire {
		if !r.GoToo {
			return
		}
		class = Go
	}
	c.findings = append(c.findings, Finding{Rule: rule, Class: class, Pos: pos, Old: old, Message: fmt.Sprintf(format, args...)})
}

// protocol compares what protocol: declares.
func (c *comparer) protocol() {
	o, n := c.old, c.cur
	if o.GoPackage != n.GoPackage {
		c.add("PACKAGE_CHANGED", n.Pos, false, "the Go package %s is now %s (protocol %q)", o.GoPackage, n.GoPackage, n.Name)
	}
	for i, or := range o.Roles {
		if nr := n.Roles[c.roleIndex(or.Name)]; or.GoName != nr.GoName {
			c.add("ROLE_RENAMED", nr.Pos, false, "role %q (Go %s) is now %q (Go %s)", or.Name, or.GoName, nr.Name, nr.GoName)
		}
		if j := c.roleIndex(or.Name); i == 0 && j != 0 {
			c.add("PROTOCOL_ROLES_SWAPPED", n.Roles[j].Pos, false, "role %q started the connection, now %q does", or.Name, n.Roles[0].Name)
		}
	}
	if o.Framing != n.Framing {
		c.add("PROTOCOL_FRAMING_CHANGED", n.Pos, false, "framing changed from %s to %s", o.Framing, n.Framing)
	}
	if o.IDStyle != n.IDStyle {
		c.add("PROTOCOL_IDS_CHANGED", n.Pos, false, "request ids changed from %s to %s", o.IDStyle, n.IDStyle)
	}
	if o.Cancellation != n.Cancellation {
		c.add("PROTOCOL_CANCELLATION_CHANGED", n.Pos, false, "cancellation changed from %s to %s", o.Cancellation, n.Cancellation)
	}
	if o.NoBatches != n.NoBatches || !slices.Equal(o.BatchVersions, n.BatchVersions) {
		c.add("PROTOCOL_BATCHES_CHANGED", n.Pos, false, "batches changed from %s to %s", batches(o), batches(n))
	}
	if methodName(o.Handshake) != methodName(n.Handshake) || o.VersionField != n.VersionField {
		c.add("PROTOCOL_HANDSHAKE_CHANGED", n.Pos, false, "handshake changed from %s to %s", handshake(o), handshake(n))
	}
	for _, ot := range o.Transports {
		i := slices.IndexFunc(n.Transports, func(t idl.Transport) bool { return t.Kind == ot.Kind })
		if i < 0 {
			c.add("TRANSPORT_REMOVED", ot.Pos, true, "transport %s was removed", ot.Kind)
			continue
		}
		nt := n.Transports[i]
		for _, d := range []struct{ what, o, n string }{
			{"port", port(ot.Port), port(nt.Port)},
			{"path", quoted(ot.Path), quoted(nt.Path)},
			{"session header", quoted(ot.SessionHeader), quoted(nt.SessionHeader)},
			{"version header", quoted(ot.VersionHeader), quoted(nt.VersionHeader)},
			{"default version", quoted(ot.DefaultVersion), quoted(nt.DefaultVersion)},
		} {
			if d.o != d.n {
				c.add("TRANSPORT_CHANGED", nt.Pos, false, "transport %s: %s changed from %s to %s", nt.Kind, d.what, d.o, d.n)
			}
		}
	}
}

func quoted(s string) string {
	if s == "" {
		return "none"
	}
	return fmt.Sprintf("%q", s)
}

func port(n int) string {
	if n == 0 {
		return "none"
	}
	return fmt.Sprint(n)
}

func batches(p *idl.Protocol) string {
	switch {
	case p.NoBatches:
		return "never"
	case p.BatchVersions != nil:
		return fmt.Sprintf("under versions %q", p.BatchVersions)
	}
	return "always"
}

func methodName(m *idl.Method) string {
	if m == nil {
		return ""
	}
	return m.Name
}

func handshake(p *idl.Protocol) string {
	switch {
	case p.Handshake == nil:
		return "none"
	case p.VersionField != "":
		return fmt.Sprintf("%q (version in %q)", p.Handshake.Name, p.VersionField)
	}
	return fmt.Sprintf("%q", p.Handshake.Name)
}

// methods compares methods and notification forms by wire name.
func (c *comparer) methods() {
	for _, om := range c.old.Methods {
		i := slices.IndexFunc(c.cur.Methods, func(m *idl.Method) bool { return m.Name == om.Name })
		if i < 0 {
			c.add("METHOD_REMOVED", om.Pos, true, "%s %q was removed", om.Kind, om.Name)
			continue
		}
		nm := c.cur.Methods[i]
		c.method(om, nm, fmt.Sprintf("%s %q", nm.Kind, nm.Name))
		switch of, nf := om.NotificationForm, nm.NotificationForm; {
		case of != nil && nf == nil:
			c.add("METHOD_REMOVED", of.Pos, true, "the notification form of %q was removed", om.Name)
		case of != nil:
			c.method(of, nf, fmt.Sprintf("the notification form of %q", nm.Name))
		}
	}
}

// method compares one method (or notification form) with its new version.
func (c *comparer) method(om, nm *idl.Method, what string) {
	if from, to := c.roleIndex(om.From), roleIndex(c.cur, nm.From); from != to {
		c.add("METHOD_DIRECTION_CHANGED", nm.Pos, false, "%s was sent by %s, now by %s", what, roleText(c.old, om.From), roleText(c.cur, nm.From))
	}
	if om.Kind != nm.Kind || om.AlsoNotification != nm.AlsoNotification {
		c.add("METHOD_KIND_CHANGED", nm.Pos, false, "%s changed kind from %s to %s", what, kind(om), kind(nm))
	}
	if om.GoName != nm.GoName {
		c.add("METHOD_GO_NAME_CHANGED", nm.Pos, false, "%s: Go name %s is now %s", what, om.GoName, nm.GoName)
	}
	if om.ParamsOptional != nm.ParamsOptional {
		c.add("PARAMS_OPTIONALITY_CHANGED", nm.Pos, false, "the params of %s %s", what, becameOptional(nm.ParamsOptional))
	}
	if om.Params != nil || nm.Params != nil {
		c.typ(orEmpty(om.Params), orEmpty(nm.Params), place{"the params of " + what, nm.Pos})
	}
	switch {
	case om.Kind != nm.Kind:
		// A notification has no result: the kind change says it all.
	case om.Result != nil && nm.Result != nil:
		c.typ(om.Result, nm.Result, place{"the result of " + what, nm.Pos})
	case om.Result != nil || nm.Result != nil:
		c.add("FIELD_TYPE_CHANGED", nm.Pos, false, "the result of %s changed from %s to %s", what, result(om), result(nm))
	case om.NullResult != nm.NullResult:
		c.add("RESULT_NULL_CHANGED", nm.Pos, false, "the result of %s changed from %s to %s", what, result(om), result(nm))
	}
}

// roleIndex is the place of the role a method's From names, 2 for both:
// role names are not on the wire, so a renamed role changes no direction.
func roleIndex(p *idl.Protocol, from string) int {
	switch from {
	case idl.FromBoth:
		return 2
	case p.Roles[0].Name:
		return 0
	}
	return 1
}

// roleIndex is the place in the new protocol of the old role named from
// (2 for both): the role of the same name, else the role at the same place,
// renamed.
func (c *comparer) roleIndex(from string) int {
	if i := slices.IndexFunc(c.cur.Roles[:], func(r idl.Role) bool { return r.Name == from }); i >= 0 {
		return i
	}
	return roleIndex(c.old, from)
}

// roleText describes the sender a method's From names.
func roleText(p *idl.Protocol, from string) string {
	switch roleIndex(p, from) {
	case 2:
		return "both roles"
	case 0:
		return "the first role, " + from
	}
	return "the second role, " + from
}

func kind(m *idl.Method) string {
	if m.AlsoNotification {
		return "request or notification"
	}
	return string(m.Kind)
}

func becameOptional(optional bool) string {
	if optional {
		return "became optional"
	}
	return "became required"
}

func result(m *idl.Method) string {
	switch {
	case m.Result != nil:
		return describe(m.Result)
	case m.NullResult:
		return `"null"`
	}
	return "none"
}

// orEmpty returns t, or noParams for absent params.
func orEmpty(t *idl.Type) *idl.Type {
	if t == nil {
		return noParams
	}
	return t
}

// errors compares the error catalogues by name.
func (c *comparer) errors() {
	for _, oe := range c.old.Errors {
		if oe.Standard {
			continue
		}
		i := slices.IndexFunc(c.cur.Errors, func(e *idl.ErrorDef) bool { return e.Name == oe.Name })
		if i < 0 {
			j := slices.IndexFunc(c.cur.Errors, func(e *idl.ErrorDef) bool { return e.Code == oe.Code })
			if j >= 0 {
				ne := c.cur.Errors[j]
				c.add("ERROR_RENAMED", ne.Pos, false, "error %s (code %d) is now %s", oe.Name, oe.Code, ne.Name)
			} else {
				c.add("ERROR_REMOVED", oe.Pos, true, "error %s (code %d) was removed", oe.Name, oe.Code)
			}
			continue
		}
		ne := c.cur.Errors[i]
		if oe.Code != ne.Code {
			c.add("ERROR_CODE_CHANGED", ne.Pos, false, "error %s changed code from %d to %d", ne.Name, oe.Code, ne.Code)
		}
		if oe.Data != nil && ne.Data != nil {
			c.typ(oe.Data, ne.Data, place{"the data of error " + ne.Name, ne.Pos})
		}
	}
}

// types reports the named types removed, and compares those that no
// method or error carries for what breaks Go code.
func (c *comparer) types() {
	c.unused = true
	defer func() { c.unused = false }()
	for _, od := range c.old.Types {
		if od.Inline {
			continue
		}
		i := slices.IndexFunc(c.cur.Types, func(d *idl.TypeDef) bool { return d.Name == od.Name })
		if i < 0 {
			if !c.renamed[od] {
				c.add("TYPE_REMOVED", od.Pos, true, "type %s was removed", od.Name)
			}
			continue
		}
		nd := c.cur.Types[i]
		// Where methods and errors carry both, their differences were
		// found there.
		if !c.seen[[2]*idl.TypeDef{od, nd}] && !(c.usedOld[od] && c.usedNew[nd]) {
			c.typ(&idl.Type{Kind: idl.KindRef, Ref: od}, &idl.Type{Kind: idl.KindRef, Ref: nd}, place{"type " + nd.Name, nd.Pos})
		}
	}
}
