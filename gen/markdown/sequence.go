package markdown

import (
	"strings"

	"github.com/rpcgen/rpcgen/idl"
)

// Wire names of the closing messages the diagram shows when the IDL
// declares them: a request asking the peer to get ready to stop, then a
// notification telling it to stop.
const (
	shutdownName = "shutdown"
	exitName     = "exit"
)

// writeSequence writes the lifecycle of a session as a Mermaid sequence
// diagram, from what the IDL declares alone: the two roles, the handshake
// and its answer, the notifications named after the handshake that its
// sender follows it with (initialize, then initialized), the first request
// each role sends (its first notification when it sends no request), and
// shutdown and exit.
func (d *doc) writeSequence() {
	p := d.p
	ids := map[string]string{p.Roles[0].Name: "R0", p.Roles[1].Name: "R1"}
	lines := []string{"sequenceDiagram"}
	for _, r := range p.Roles {
		lines = append(lines, "    participant "+ids[r.Name]+" as "+mermaidText(r.Name))
	}
	// sender returns who sends m in the diagram: its role, or the first
	// role for a method either peer may send.
	sender := func(m *idl.Method) string {
		if m.From == idl.FromBoth {
			return p.Roles[0].Name
		}
		return m.From
	}
	send := func(m *idl.Method) {
		from, to := ids[sender(m)], ids[d.peer(sender(m))]
		if m.Kind == idl.Notification {
			lines = append(lines, "    "+from+"-)"+to+": "+mermaidText(m.Name))
			return
		}
		lines = append(lines, "    "+from+"->>"+to+": "+mermaidText(m.Name),
			"    "+to+"-->>"+from+": "+mermaidText(resultLabel(m)))
	}
	shown := map[*idl.Method]bool{}
	if h := p.Handshake; h != nil {
		send(h)
		shown[h] = true
		for _, m := range p.Methods {
			if m.Kind == idl.Notification && sender(m) == sender(h) && followsHandshake(m.Name, h.Name) {
				send(m)
				shown[m] = true
			}
		}
		lines = append(lines, "    Note over R0,R1: session established")
	}
	closing := []*idl.Method{p.Method(shutdownName), p.Method(exitName)}
	for _, m := range closing {
		if m != nil {
			shown[m] = true
		}
	}
	for _, r := range p.Roles {
		m := firstOf(p, idl.Request, r.Name, shown)
		if m == nil {
			m = firstOf(p, idl.Notification, r.Name, shown)
		}
		if m != nil {
			send(m)
		}
	}
	for _, m := range closing {
		if m != nil {
			send(m)
		}
	}
	d.para("The messages of a session, in order, with one request (or notification) each role sends as an example. Solid arrows are requests, dashed arrows their answers, open arrows notifications.")
	d.b.WriteString("```mermaid\n" + strings.Join(lines, "\n") + "\n```\n\n")
}

// firstOf returns the first method of the kind that the IDL declares role
// alone sends, else the first either peer sends, leaving out those in
// skip; nil when there is none.
func firstOf(p *idl.Protocol, kind idl.MethodKind, role string, skip map[*idl.Method]bool) *idl.Method {
	var both *idl.Method
	for _, m := range p.Methods {
		if m.Kind != kind || skip[m] {
			continue
		}
		if m.From == role {
			return m
		}
		if m.From == idl.FromBoth && both == nil {
			both = m
		}
	}
	return both
}

// followsHandshake reports whether the notification named note is named
// after the handshake method: the last segment of its wire name is the
// handshake's last segment put in the past, as initialized after
// initialize.
func followsHandshake(note, handshake string) bool {
	last := func(s string) string { return s[strings.LastIndex(s, "/")+1:] }
	h := last(handshake)
	past := h + "ed"
	if strings.HasSuffix(h, "e") {
		past = h + "d"
	}
	return h != "" && last(note) == past
}

// resultLabel is the text of a request's answer in the diagram: the name
// of its result type, or what it is.
func resultLabel(m *idl.Method) string {
	switch {
	case m.NullResult || m.Result == nil:
		return "null"
	case m.Result.Kind == idl.KindRef && m.Result.Ref != nil:
		return m.Result.Ref.Name
	}
	return "result"
}

// mermaidText escapes text for a Mermaid message or participant label:
// '#' and ';' become entity codes, since Mermaid reads them as such and as
// a statement end, and line breaks become spaces.
func mermaidText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '#':
			b.WriteString("#35;")
		case ';':
			b.WriteString("#59;")
		case '\n', '\r':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
