// Package markdown generates the Markdown reference of a protocol: one
// README.md describing its roles, framing, transports, lifecycle, methods,
// errors and types, for implementers of either role.
package markdown

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rpcgen/rpcgen/gen"
	"github.com/rpcgen/rpcgen/idl"
)

// FileName is the name of the single file [Generate] returns.
const FileName = "README.md"

// Generate returns the protocol's reference document as the single file
// "README.md".
func Generate(p *idl.Protocol) ([]gen.File, error) {
	if p == nil {
		return nil, errors.New("markdown: nil protocol")
	}
	d := newDoc(p)
	d.write()
	if d.err != nil {
		return nil, fmt.Errorf("markdown: protocol %s: %w", p.Name, d.err)
	}
	out := strings.TrimRight(d.b.String(), "\n") + "\n"
	return []gen.File{{Path: FileName, Content: []byte(out)}}, nil
}

// Keys of the headings that are not a method, error or type.
const (
	secTitle        = "title"
	secOverview     = "overview"
	secFramingTop   = "framing and transport"
	secFraming      = "framing"
	secMessages     = "messages"
	secTransports   = "transports"
	secIDs          = "ids"
	secCancellation = "cancellation"
	secLifecycle    = "lifecycle"
	secMethods      = "methods"
	secErrors       = "errors"
	secTypes        = "types"
)

// heading is one heading of the document, planned before writing so links
// can point forward.
type heading struct {
	key    any    // a sec* constant, *idl.Method, *idl.ErrorDef or *idl.TypeDef
	level  int    // 1 to 3
	text   string // the Markdown written after the hashes
	anchor string
}

// doc is the document being written.
type doc struct {
	p        *idl.Protocol
	b        strings.Builder
	headings []heading
	byKey    map[any]int // index into headings
	next     int         // index of the next heading to write
	uses     map[*idl.TypeDef][]use
	err      error // first error met while writing
}

// newDoc plans every heading of p's document, in document order, and
// indexes who uses each type.
func newDoc(p *idl.Protocol) *doc {
	d := &doc{p: p, byKey: map[any]int{}}
	s := &slugger{}
	add := func(key any, level int, text, plain string) {
		d.byKey[key] = len(d.headings)
		d.headings = append(d.headings, heading{key: key, level: level, text: text, anchor: s.anchor(plain)})
	}
	title := p.Name + " protocol"
	if p.Version != "" {
		title += " " + p.Version
	}
	add(secTitle, 1, escape(title), title)
	add(secOverview, 2, "Overview", "Overview")
	add(secFramingTop, 2, "Framing and transport", "Framing and transport")
	add(secFraming, 3, "Framing", "Framing")
	add(secMessages, 3, "Messages", "Messages")
	add(secTransports, 3, "Transports", "Transports")
	add(secIDs, 3, "Request ids", "Request ids")
	add(secCancellation, 3, "Cancellation", "Cancellation")
	add(secLifecycle, 2, "Lifecycle", "Lifecycle")
	add(secMethods, 2, "Methods", "Methods")
	for _, m := range p.Methods {
		add(m, 3, code(m.Name), m.Name)
	}
	add(secErrors, 2, "Errors", "Errors")
	for _, e := range p.Errors {
		add(e, 3, e.Name, e.Name)
	}
	add(secTypes, 2, "Types", "Types")
	for _, t := range p.Types {
		add(t, 3, t.Name, t.Name)
	}
	d.uses = indexUses(p)
	return d
}

// fail records the first error met while writing.
func (d *doc) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// heading writes the heading planned for key; headings must be written in
// the planned order, or the anchors would not match.
func (d *doc) heading(key any) {
	i, ok := d.byKey[key]
	if !ok || i != d.next {
		d.fail(fmt.Errorf("heading %v written out of order", key))
		return
	}
	d.next++
	h := d.headings[i]
	d.b.WriteString(strings.Repeat("#", h.level) + " " + h.text + "\n\n")
}

// anchor returns the anchor of key's heading.
func (d *doc) anchor(key any) string {
	i, ok := d.byKey[key]
	if !ok {
		d.fail(fmt.Errorf("no heading for %v", key))
		return ""
	}
	return d.headings[i].anchor
}

// link returns a link with the given Markdown text to key's heading.
func (d *doc) link(text string, key any) string {
	return "[" + text + "](#" + d.anchor(key) + ")"
}

// typeLink returns a link to a type's section.
func (d *doc) typeLink(t *idl.TypeDef) string { return d.link(t.Name, t) }

// methodLink returns a link to a method's section.
func (d *doc) methodLink(m *idl.Method) string { return d.link(code(m.Name), m) }

// errorLink returns a link to an error's section.
func (d *doc) errorLink(e *idl.ErrorDef) string { return d.link(e.Name, e) }

// para writes a paragraph (or any block) followed by a blank line; empty
// text writes nothing.
func (d *doc) para(text string) {
	if text = strings.TrimSpace(text); text != "" {
		d.b.WriteString(text + "\n\n")
	}
}

// paraf writes a formatted paragraph.
func (d *doc) paraf(format string, args ...any) { d.para(fmt.Sprintf(format, args...)) }

// table writes a table.
func (d *doc) table(header []string, rows [][]string) { writeTable(&d.b, header, rows) }

// deprecated writes a deprecation notice when why is not empty.
func (d *doc) deprecated(why string) {
	if why != "" {
		d.para("> **Deprecated:** " + inline(why))
	}
}

// meta writes since which protocol version a declaration exists and
// whether it is only proposed, when the IDL says so.
func (d *doc) meta(since string, proposed bool) {
	d.para(metaText(since, proposed))
}

// metaText is the text [doc.meta] writes, or "".
func metaText(since string, proposed bool) string {
	var parts []string
	if since != "" {
		parts = append(parts, "**Since:** "+escape(since)+".")
	}
	if proposed {
		parts = append(parts, "**Proposed:** not yet part of the protocol's stable release.")
	}
	return strings.Join(parts, " ")
}

// write writes the whole document.
func (d *doc) write() {
	p := d.p
	d.b.WriteString(gen.MarkdownHeader(p) + "\n")
	d.heading(secTitle)
	d.para(block(p.Doc))
	d.paraf("_Generated by rpcgen from %s. Do not edit: change the IDL and regenerate._", code(filepath.Base(rootFile(p))))
	d.writeContents()
	d.writeOverview()
	d.writeFraming()
	d.writeLifecycle()
	d.writeMethods()
	d.writeErrors()
	d.writeTypes()
	if d.err == nil && d.next != len(d.headings) {
		d.fail(fmt.Errorf("%d headings planned but %d written", len(d.headings), d.next))
	}
}

// writeContents writes the contents: one item per section, followed by
// links to every heading under it, the types in alphabetical order.
func (d *doc) writeContents() {
	var items []string
	for i := 0; i < len(d.headings); i++ {
		h := d.headings[i]
		if h.level != 2 {
			continue
		}
		item := "- " + d.link(h.text, h.key)
		var subs []heading
		for i+1 < len(d.headings) && d.headings[i+1].level > 2 {
			i++
			subs = append(subs, d.headings[i])
		}
		if h.key == secTypes {
			slices.SortStableFunc(subs, func(a, b heading) int {
				return strings.Compare(strings.ToLower(a.text), strings.ToLower(b.text))
			})
		}
		var links []string
		for _, s := range subs {
			links = append(links, d.link(s.text, s.key))
		}
		if len(links) > 0 {
			item += ": " + strings.Join(links, " · ")
		}
		items = append(items, item)
	}
	d.para("**Contents**")
	d.para(strings.Join(items, "\n"))
}

// rootFile returns the path of the protocol's root IDL file.
func rootFile(p *idl.Protocol) string {
	if len(p.Files) > 0 {
		return p.Files[0]
	}
	return p.Pos.File
}

// writeOverview writes the roles and what each sends.
func (d *doc) writeOverview() {
	p := d.p
	d.heading(secOverview)
	d.paraf("Two peers talk JSON-RPC 2.0 over one connection. %s starts the connection: it %s (see %s).",
		roleName(p.Roles[0].Name), d.howStarted(), d.link("Transports", secTransports))
	var rows [][]string
	for _, r := range p.Roles {
		var reqs, notes []string
		for _, m := range p.Methods {
			if f := m.NotificationForm; f != nil && f.SentBy(r.Name) {
				notes = append(notes, d.methodLink(m))
			}
			if !m.SentBy(r.Name) {
				continue
			}
			if m.Kind == idl.Request {
				reqs = append(reqs, d.methodLink(m))
			} else {
				notes = append(notes, d.methodLink(m))
			}
		}
		rows = append(rows, []string{"**" + escape(r.Name) + "**", inline(r.Doc), strings.Join(reqs, ", "), strings.Join(notes, ", ")})
	}
	d.table([]string{"role", "description", "requests it sends", "notifications it sends"}, rows)
	d.para("Each peer handles what the other sends and answers every request it receives, with a result or an error; a request for a method it does not implement gets error -32601 (" + d.errorLinkByCode(-32601, "MethodNotFound") + ").")
	if pre := p.IgnoreUnknownNotifications; len(pre) > 0 {
		var names []string
		for _, s := range pre {
			names = append(names, code(s))
		}
		what := "whose method starts with " + strings.Join(names, " or ")
		if slices.Contains(pre, "") {
			what = "of any method"
		}
		d.paraf("A notification %s that the receiver does not know or implement is dropped silently.", what)
	}
	if p.Ordering == idl.OrderNotificationsFirst {
		d.para("A receiver handles notifications one at a time, in the order they arrive, and starts a request only once the notifications received before it have been handled; requests may run concurrently with each other and with later notifications.")
	}
}

// howStarted says how the first role reaches the second, from the
// transports: "starts `agent` as a child process", "connects to
// `runtime`", or "starts `agent` or connects to it".
func (d *doc) howStarted() string {
	spawn, dial := false, false
	for _, t := range d.p.Transports {
		switch t.Kind {
		case idl.TransportSubprocess, idl.TransportStdio:
			spawn = true
		case idl.TransportTCP, idl.TransportUnix, idl.TransportHTTP:
			dial = true
		}
	}
	second := roleName(d.p.Roles[1].Name)
	switch {
	case spawn && !dial:
		return "starts " + second + " as a child process"
	case dial && !spawn:
		return "connects to " + second
	}
	return "starts " + second + " or connects to it"
}

// errorLinkByCode links to the error with the given code, or writes name
// when the protocol has none.
func (d *doc) errorLinkByCode(code int64, name string) string {
	if e := d.p.ErrorByCode(code); e != nil {
		return d.errorLink(e)
	}
	return name
}

// roleName writes a role name in running text, as code so that it reads
// as a name without an article: "`editor` starts the connection".
func roleName(name string) string { return code(name) }

// direction returns who sends m to whom, e.g. "editor → agent" or "both".
func (d *doc) direction(m *idl.Method) string {
	if m.From == idl.FromBoth {
		return "both"
	}
	return escape(m.From) + " → " + escape(d.peer(m.From))
}

// peer returns the name of the role that is not role.
func (d *doc) peer(role string) string {
	if d.p.Roles[0].Name == role {
		return d.p.Roles[1].Name
	}
	return d.p.Roles[0].Name
}
