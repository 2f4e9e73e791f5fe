package openrpc

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/gen"
	"github.com/rpcgen/rpcgen/gen/jsonschema"
	"github.com/rpcgen/rpcgen/idl"
)

// Version is the version of the OpenRPC specification the documents
// follow, written as their openrpc member.
const Version = "1.3.2"

// FileName is the name of the file [Generate] returns, the one the
// OpenRPC specification recommends.
const FileName = "openrpc.json"

// Generate returns the OpenRPC document of p as one file, openrpc.json.
func Generate(p *idl.Protocol) ([]gen.File, error) {
	if p == nil {
		return nil, errors.New("openrpc: no protocol")
	}
	schemas, err := jsonschema.Generate(p)
	if err != nil {
		return nil, err
	}
	return FromSchemas(p, schemas)
}

// FromSchemas is [Generate] for a caller that has run gen/jsonschema on p
// already: schemas are its files, which are only read.
func FromSchemas(p *idl.Protocol, schemas []gen.File) ([]gen.File, error) {
	if p == nil {
		return nil, errors.New("openrpc: no protocol")
	}
	s, err := loadSchemas(p, schemas)
	if err != nil {
		return nil, err
	}
	g := &generator{p: p, s: s}
	doc, err := g.document()
	if err != nil {
		return nil, fmt.Errorf("openrpc: %s: %w", p.Name, err)
	}
	f, err := file(doc)
	if err != nil {
		return nil, fmt.Errorf("openrpc: %s: %w", p.Name, err)
	}
	return []gen.File{f}, nil
}

// generator builds the document of one protocol.
type generator struct {
	p *idl.Protocol
	s *schemas
}

// document returns the whole document.
func (g *generator) document() (*object, error) {
	p := g.p
	version := p.Version
	if version == "" {
		version = "unversioned"
	}
	info := obj().set("title", p.Name).set("version", version)
	info.str("description", strings.TrimSpace(p.Doc))
	// Marked as generated, with the rpcgen version and the IDL file, near
	// the top (where rpcgen generate looks to know the file is its own).
	doc := obj().set("openrpc", Version).set("x-rpcgen-generated", gen.JSONComment(p)).set("info", info)
	g.protocolFacts(doc)
	var methods []any
	for _, m := range p.Methods {
		o, err := g.method(m)
		if err != nil {
			return nil, err
		}
		methods = append(methods, o)
	}
	doc.set("methods", orEmpty(methods))
	components, err := g.components()
	if err != nil {
		return nil, err
	}
	doc.set("components", components)
	return doc, nil
}

// protocolFacts adds to doc the x-rpcgen- members that say what OpenRPC
// cannot: the roles, the framing and transports, cancellation, timeouts.
func (g *generator) protocolFacts(doc *object) {
	p := g.p
	var roles []any
	for _, r := range p.Roles {
		roles = append(roles, obj().set("name", r.Name).str("description", strings.TrimSpace(r.Doc)))
	}
	doc.set("x-rpcgen-roles", roles)
	doc.str("x-rpcgen-lifecycle", strings.TrimSpace(p.Lifecycle))
	doc.set("x-rpcgen-framing", string(p.Framing))
	var transports []any
	for _, t := range p.Transports {
		transports = append(transports, transport(t))
	}
	doc.set("x-rpcgen-transports", orEmpty(transports))
	doc.set("x-rpcgen-id-style", string(p.IDStyle))
	cancel := obj().set("style", string(p.Cancellation)).str("method", p.Cancellation.Method())
	doc.set("x-rpcgen-cancellation", cancel)
	doc.set("x-rpcgen-ordering", string(p.Ordering))
	if h := p.Handshake; h != nil {
		doc.set("x-rpcgen-handshake", obj().set("method", h.Name).str("versionField", p.VersionField))
	}
	batches := obj().set("accepted", !p.NoBatches)
	if p.BatchVersions != nil {
		batches.set("versions", stringList(p.BatchVersions))
	}
	doc.set("x-rpcgen-batches", batches)
	if p.Timeout > 0 {
		doc.set("x-rpcgen-timeout", timeout(p.Timeout, p.OnTimeout))
	}
	if p.IgnoreUnknownNotifications != nil {
		doc.set("x-rpcgen-ignore-unknown-notifications", stringList(p.IgnoreUnknownNotifications))
	}
}

// transport describes one transport and its defaults.
func transport(t idl.Transport) *object {
	o := obj().set("kind", string(t.Kind))
	o.str("command", t.Command)
	if len(t.Args) > 0 {
		o.set("args", stringList(t.Args))
	}
	o.str("host", t.Host)
	if t.Port != 0 {
		o.set("port", int64(t.Port))
	}
	o.str("path", t.Path)
	o.str("sessionHeader", t.SessionHeader)
	o.str("versionHeader", t.VersionHeader)
	o.str("defaultVersion", t.DefaultVersion)
	o.str("description", strings.TrimSpace(t.Doc))
	return o
}

// timeout describes how long a caller waits, and what it does then.
func timeout(d time.Duration, on idl.OnTimeout) *object {
	o := obj().set("milliseconds", d.Milliseconds()).set("cancel", on.Cancel).set("action", string(on.Action))
	return o.str("description", strings.TrimSpace(on.Doc))
}

// method returns the Method Object of m.
func (g *generator) method(m *idl.Method) (*object, error) {
	o := obj().set("name", m.Name)
	o.str("description", describe(m.Doc, m.Deprecated))
	tags := []any{obj().set("name", g.direction(m.From))}
	if m.Kind == idl.Notification {
		tags = append(tags, obj().set("name", "notification"))
	}
	o.set("tags", tags)
	ps, err := g.params(m)
	if err != nil {
		return nil, err
	}
	o.str("paramStructure", ps.structure)
	o.set("params", orEmpty(ps.descriptors))
	if m.Kind == idl.Request {
		schema, err := g.s.method(m, "result")
		if err != nil {
			return nil, err
		}
		o.set("result", obj().set("name", "result").set("schema", schema))
	}
	var errs []any
	for _, e := range m.Errors {
		errs = append(errs, obj().set("$ref", "#/components/errors/"+e.Name))
	}
	if errs != nil {
		o.set("errors", errs)
	}
	examples, err := g.examples(m, ps)
	if err != nil {
		return nil, err
	}
	if examples != nil {
		o.set("examples", examples)
	}
	o.flag("deprecated", m.Deprecated != "")
	o.set("x-rpcgen-from", m.From).set("x-rpcgen-to", g.receiver(m.From))
	o.flag("x-rpcgen-notification", m.Kind == idl.Notification)
	o.flag("x-rpcgen-also-notification", m.AlsoNotification)
	o.flag("x-rpcgen-params-optional", m.ParamsOptional)
	if !ps.exact {
		schema, err := g.paramsSchema(m)
		if err != nil {
			return nil, err
		}
		o.set("x-rpcgen-params", schema)
	}
	if m.Kind == idl.Request && m.Timeout > 0 {
		o.set("x-rpcgen-timeout", timeout(m.Timeout, m.OnTimeout))
	}
	o.flag("x-rpcgen-idempotent", m.Idempotent)
	o.str("x-rpcgen-since", m.Since)
	o.flag("x-rpcgen-proposed", m.Proposed)
	if f := m.NotificationForm; f != nil {
		nf, err := g.method(f)
		if err != nil {
			return nil, err
		}
		o.set("x-rpcgen-notification-form", nf)
	}
	return o, nil
}

// receiver is the role that receives what from sends: the other role, or
// "both" for a method either role sends.
func (g *generator) receiver(from string) string {
	switch from {
	case g.p.Roles[0].Name:
		return g.p.Roles[1].Name
	case g.p.Roles[1].Name:
		return g.p.Roles[0].Name
	}
	return idl.FromBoth
}

// direction is the tag of the methods from sends, e.g. "client to server".
func (g *generator) direction(from string) string {
	if from == idl.FromBoth {
		return "both directions"
	}
	return from + " to " + g.receiver(from)
}

// components returns the Components Object: every named type's schema,
// and every error, with the docs and data schemas of errors, which an
// Error Object cannot hold, under x-rpcgen-errors.
func (g *generator) components() (*object, error) {
	types := obj()
	for _, td := range g.p.Types {
		types.set(td.Name, g.s.typ(td))
	}
	errs, details := obj(), obj()
	for _, e := range g.p.Errors {
		errs.set(e.Name, obj().set("code", e.Code).set("message", e.Message))
		d := obj().str("description", strings.TrimSpace(e.Doc))
		if e.Data != nil {
			schema, err := g.s.value("errors/" + e.Name + ".data.json")
			if err != nil {
				return nil, err
			}
			d.set("dataSchema", schema)
		}
		d.str("since", e.Since).flag("proposed", e.Proposed)
		if len(d.keys) > 0 {
			details.set(e.Name, d)
		}
	}
	c := obj().set("schemas", types).set("errors", errs)
	if len(details.keys) > 0 {
		c.set("x-rpcgen-errors", details)
	}
	return c, nil
}

// describe joins a doc and a deprecation notice into a description.
func describe(doc, deprecated string) string {
	var parts []string
	if d := strings.TrimSpace(doc); d != "" {
		parts = append(parts, d)
	}
	if d := strings.TrimSpace(deprecated); d != "" {
		parts = append(parts, "Deprecated: "+d)
	}
	return strings.Join(parts, "\n\n")
}

// stringList returns list as a JSON array.
func stringList(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

// orEmpty returns list, or an empty array for nil, for members the
// specification requires.
func orEmpty(list []any) []any {
	if list == nil {
		return []any{}
	}
	return list
}
