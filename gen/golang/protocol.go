package golang

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/gen"
	"github.com/rpcgen/rpcgen/idl"
	"github.com/rpcgen/rpcgen/internal/version"
)

// protocolFile declares the package doc, the method names, Options and
// the helpers the roles share.
func (g *generator) protocolFile(f *file) error {
	for _, l := range g.packageDoc().lines() {
		if l == "" {
			l = "//"
		}
		f.PackageComment(l)
	}
	check := jen.Null()
	for _, l := range runtimeCheckDoc {
		check.Comment(l).Line()
	}
	f.add(check.Const().Id("_").Op("=").Qual(jsonrpcPkg, version.Runtime()))
	if len(g.p.Methods) > 0 {
		var defs []jen.Code
		for _, m := range g.p.Methods {
			kind := string(m.Kind)
			if m.AlsoNotification {
				kind = "request or notification"
			}
			what := fmt.Sprintf("Method%s is the %s %s, %s", m.GoName, kind, m.Name, g.sentBy(m))
			if f := m.NotificationForm; f != nil {
				what += fmt.Sprintf(", and the notification of the same name, %s (handled by %s)", g.sentBy(f), f.GoName)
			}
			c := doc(what + ".").add(metaText(m.Since, m.Proposed)).deprecated(m.Deprecated)
			if g.isCancellation(m) {
				c.paras[len(c.paras)-1] += " The connection sends and consumes it itself."
			}
			defs = append(defs, c.code().Id("Method"+m.GoName).Op("=").Lit(m.Name))
		}
		f.add(jen.Comment("The methods and notifications of the protocol, by wire name.").Line().Const().Defs(defs...))
	}
	g.options(f)
	g.transportDefaults(f)
	return nil
}

// runtimeCheckDoc explains the constant that ties generated code to the
// runtime versions it compiles with.
var runtimeCheckDoc = []string{
	"This package needs the runtime of rpcgen " + gen.Version + " or later. If the line",
	"below does not compile, the github.com/rpcgen/rpcgen module in go.mod is",
	"older than the rpcgen that wrote this package: upgrade it with",
	"go get github.com/rpcgen/rpcgen@" + gen.Version + " (or later), or regenerate the",
	"package with the rpcgen version go.mod names.",
}

// sentBy says who sends m, as in "sent by Editor to Agent".
func (g *generator) sentBy(m *idl.Method) string {
	if m.From == idl.FromBoth {
		return "sent by either side"
	}
	from, to := g.p.Roles[0], g.p.Roles[1]
	if m.From == to.Name {
		from, to = to, from
	}
	return fmt.Sprintf("sent by %s to %s", from.GoName, to.GoName)
}

// packageDoc is the doc comment of the generated package.
func (g *generator) packageDoc() *comment {
	p := g.p
	first := fmt.Sprintf("Package %s is the Go API of the %s protocol", g.pkg, p.Name)
	if p.Version != "" {
		first += ", version " + p.Version
	}
	c := doc(first + ". " + sentence(p.Doc))
	if p.Lifecycle != "" {
		c.add(p.Lifecycle)
	}
	r0, r1 := p.Roles[0], p.Roles[1]
	c.add("# Roles")
	c.addf("%s (role %s) starts the connection%s. %s (role %s) is the other side%s.",
		r0.GoName, r0.Name, roleDesc(r0.Doc), r1.GoName, r1.Name, roleDesc(r1.Doc))
	switch {
	case g.deaf(0) && g.deaf(1):
		c.addf("Neither role receives requests or notifications yet, so neither has an interface: Connect%[1]s and Connect%[2]s connect the two, and a request sent either way is answered with -32601 Method not found.", r0.GoName, r1.GoName)
	case g.deaf(0) || g.deaf(1):
		served, deaf := r1, r0
		if g.deaf(1) {
			served, deaf = r0, r1
		}
		c.addf("%[1]s is an interface holding the requests and notifications it answers; %[2]s receives none, so it has no interface. To play %[1]s, implement %[1]s (embedding Unimplemented%[1]s keeps the implementation compiling when the protocol grows) and pass it, with the stream to the other side, to Connect%[1]s. To play %[2]s, pass the stream to Connect%[2]s; the %[1]s it returns calls the other side, and a request sent to %[2]s is answered with -32601 Method not found. New%[1]sHandler and New%[1]sRemote build the two halves of %[1]s on their own.", served.GoName, deaf.GoName)
	default:
		c.addf("Each role is an interface holding the requests and notifications it answers. To play %[1]s, implement %[1]s (embedding Unimplemented%[1]s keeps the implementation compiling when the protocol grows) and pass it, with the stream to the other side, to Connect%[1]s; the %[2]s it returns calls the other side. Playing %[2]s is alike, with Connect%[2]s. New%[1]sHandler and New%[1]sRemote build the two halves on their own.", r1.GoName, r0.GoName)
	}
	c.add("# Wire")
	c.add(g.wireDoc())
	return c
}

// roleDesc turns a role's doc into a clause: ": the program that ...".
func roleDesc(text string) string {
	text = strings.TrimSuffix(strings.TrimSpace(text), ".")
	if text == "" {
		return ""
	}
	return ": " + lowerFirst(text)
}

// wireDoc describes framing, transports, ids, cancellation and timeouts.
func (g *generator) wireDoc() string {
	p := g.p
	var s []string
	if p.Framing == idl.FramingContentLength {
		s = append(s, "Messages are framed by Content-Length headers, as in LSP.")
	} else {
		s = append(s, "Messages are framed as newline-delimited JSON, one message per line.")
	}
	var ts []string
	for _, t := range p.Transports {
		d := string(t.Kind)
		switch t.Kind {
		case idl.TransportSubprocess:
			if t.Command != "" {
				d += " (" + strings.Join(append([]string{t.Command}, t.Args...), " ") + ")"
			}
		case idl.TransportTCP:
			d += fmt.Sprintf(" (%s:%d)", t.Host, t.Port)
		case idl.TransportUnix, idl.TransportHTTP:
			if t.Path != "" {
				d += " (" + t.Path + ")"
			}
		}
		ts = append(ts, d)
	}
	if len(ts) > 0 {
		s = append(s, "It runs over "+andList(ts)+".")
	}
	s = append(s, fmt.Sprintf("Request ids are %ss.", p.IDStyle))
	if m := p.Cancellation.Method(); m != "" {
		s = append(s, fmt.Sprintf("A caller that gives up on a request sends %s.", m))
	}
	if p.Timeout > 0 {
		s = append(s, fmt.Sprintf("A caller waits %s for the response to a request%s, unless the method's doc says otherwise.", formatDuration(p.Timeout), timeoutThen(p.OnTimeout)))
		if d := sentence(p.OnTimeout.Doc); d != "" {
			s = append(s, d)
		}
	}
	return strings.Join(s, " ")
}

// options declares Options and the defaults Connect functions apply.
func (g *generator) options(f *file) {
	p := g.p
	var fill []jen.Code
	var what []string
	fr := "NDJSON"
	if p.Framing == idl.FramingContentLength {
		fr = "ContentLength"
	}
	what = append(what, string(p.Framing)+" framing")
	fill = append(fill, setIf(jen.Id("opts").Dot("Framing").Op("==").Nil(), "Framing", jen.Qual(framingPkg, fr)))
	switch p.Cancellation {
	case idl.CancelLSP, idl.CancelMCP:
		name := map[idl.Cancellation]string{idl.CancelLSP: "CancelLSP", idl.CancelMCP: "CancelMCP"}[p.Cancellation]
		what = append(what, strings.ToUpper(string(p.Cancellation))+" cancellation")
		fill = append(fill, setIf(jen.Id("opts").Dot("Cancellation").Op("==").Qual(jsonrpcPkg, "CancelNone"), "Cancellation", jen.Qual(jsonrpcPkg, name)))
	}
	if m := p.Handshake; m != nil {
		what = append(what, fmt.Sprintf("the handshake %s", m.Name))
		fill = append(fill, setIf(jen.Id("opts").Dot("Handshake").Op("==").Lit(""), "Handshake", jen.Id(nameConst(m))))
	}
	if p.VersionField != "" {
		what = append(what, fmt.Sprintf("the negotiated protocol version read from %s of the handshake's result", p.VersionField))
		fill = append(fill, setIf(jen.Id("opts").Dot("VersionField").Op("==").Lit(""), "VersionField", jen.Lit(p.VersionField)))
	}
	if p.NoBatches {
		what = append(what, "no JSON-RPC batches")
		fill = append(fill, jen.Id("opts").Dot("RejectBatches").Op("=").True())
	}
	if p.BatchVersions != nil {
		var versions []jen.Code
		for _, v := range p.BatchVersions {
			versions = append(versions, jen.Lit(v))
		}
		what = append(what, fmt.Sprintf("JSON-RPC batches only under version %s", orList(p.BatchVersions)))
		fill = append(fill, setIf(jen.Id("opts").Dot("BatchVersions").Op("==").Nil(), "BatchVersions", jen.Index().String().Values(versions...)))
	}
	if p.Ordering == idl.OrderNotificationsFirst {
		what = append(what, "requests handled after the notifications read before them")
		fill = append(fill, jen.Id("opts").Dot("OrderRequestsAfterNotifications").Op("=").True())
	}
	if len(p.IgnoreUnknownNotifications) > 0 {
		var prefixes []jen.Code
		var quoted []string
		for _, pre := range p.IgnoreUnknownNotifications {
			prefixes = append(prefixes, jen.Lit(pre))
			quoted = append(quoted, fmt.Sprintf("%q", pre))
		}
		what = append(what, "unknown notifications starting with "+orList(quoted)+" dropped silently")
		fill = append(fill, setIf(jen.Id("opts").Dot("IgnoreNotifications").Op("==").Nil(), "IgnoreNotifications", jen.Index().String().Values(prefixes...)))
	}
	if p.IDStyle == idl.IDString {
		what = append(what, "string request ids")
		fill = append(fill, setIf(jen.Id("opts").Dot("IDs").Op("==").Qual(jsonrpcPkg, "IntegerIDs"), "IDs", jen.Qual(jsonrpcPkg, "StringIDs")))
	}
	timeouts := g.timeouts()
	if timeouts != nil {
		what = append(what, "the default timeouts of its requests")
		fill = append(fill, setIf(jen.Id("opts").Dot("Timeout").Op("==").Nil(), "Timeout", jen.Id("requestTimeout")))
	}
	var idempotent []jen.Code
	for _, m := range p.Methods {
		if m.Kind == idl.Request && m.Idempotent {
			idempotent = append(idempotent, jen.Id(nameConst(m)))
		}
	}
	if idempotent != nil {
		what = append(what, "the requests that may be sent again")
		fill = append(fill, setIf(jen.Id("opts").Dot("Idempotent").Op("==").Nil(), "Idempotent", jen.Id("idempotent")))
	}
	r0, r1 := p.Roles[0].GoName, p.Roles[1].GoName
	f.add(doc(fmt.Sprintf("Options returns the protocol's connection options: %s. Connect%s and Connect%s fill in the zero fields of the options they are given with these.", andList(what), r0, r1)).code().
		Func().Id("Options").Params().Qual(jsonrpcPkg, "Options").Block(
		jen.Return(jen.Id("withDefaults").Call(jen.Qual(jsonrpcPkg, "Options").Values())),
	))
	f.add(doc("withDefaults fills in the zero fields of opts from the protocol.").code().
		Func().Id("withDefaults").Params(jen.Id("opts").Qual(jsonrpcPkg, "Options")).Qual(jsonrpcPkg, "Options").Block(
		append(fill, jen.Return(jen.Id("opts")))...,
	))
	if idempotent != nil {
		f.add(doc("idempotent reports whether a request for method has the effect of one when run twice, so that it may be sent again on a new connection.").code().
			Func().Id("idempotent").Params(jen.Id("method").String()).Bool().Block(
			jen.Switch(jen.Id("method")).Block(jen.Case(idempotent...).Block(jen.Return(jen.True()))),
			jen.Return(jen.False()),
		))
	}
	if timeouts != nil {
		f.add(doc("requestTimeout returns the default timeout of a request for method.").code().
			Func().Id("requestTimeout").Params(jen.Id("method").String()).Qual(jsonrpcPkg, "Timeout").Block(timeouts...))
	}
}

// transportDefaults declares the defaults the protocol's transports give:
// the command that starts the second role, its TCP address, its socket.
func (g *generator) transportDefaults(f *file) {
	r0, r1 := g.p.Roles[0].GoName, g.p.Roles[1].GoName
	var consts []jen.Code
	for _, t := range g.p.Transports {
		switch {
		case t.Kind == idl.TransportSubprocess && t.Command != "":
			var argv []jen.Code
			for _, a := range append([]string{t.Command}, t.Args...) {
				argv = append(argv, jen.Lit(a))
			}
			f.add(doc(fmt.Sprintf("DefaultCommand returns the command line %s runs to start %s unless told another: %s.", r0, r1, strings.Join(append([]string{t.Command}, t.Args...), " "))).code().
				Func().Id("DefaultCommand").Params().Index().String().Block(jen.Return(jen.Index().String().Values(argv...))))
		case t.Kind == idl.TransportTCP:
			consts = append(consts, doc(fmt.Sprintf("DefaultTCPAddress is where %s listens and %s dials unless told another.", r1, r0)).code().
				Id("DefaultTCPAddress").Op("=").Lit(net.JoinHostPort(t.Host, strconv.Itoa(t.Port))))
		case t.Kind == idl.TransportUnix && t.Path != "":
			consts = append(consts, doc(fmt.Sprintf("DefaultUnixPath is the Unix socket %s listens on and %s dials unless told another.", r1, r0)).code().
				Id("DefaultUnixPath").Op("=").Lit(t.Path))
		case t.Kind == idl.TransportHTTP:
			if t.Port != 0 {
				consts = append(consts, doc(fmt.Sprintf("DefaultHTTPAddress is where %s serves HTTP and %s connects unless told another.", r1, r0)).code().
					Id("DefaultHTTPAddress").Op("=").Lit(net.JoinHostPort("localhost", strconv.Itoa(t.Port))))
			}
			g.httpProtocol(f, t)
		}
	}
	if len(consts) > 0 {
		f.add(jen.Comment("The protocol's default addresses; callers may use others.").Line().Const().Defs(consts...))
	}
}

// setIf is "if cond { opts.field = value }".
func setIf(cond jen.Code, field string, value jen.Code) jen.Code {
	return jen.If(cond).Block(jen.Id("opts").Dot(field).Op("=").Add(value))
}

// timeouts returns the body of requestTimeout, or nil when no request has
// a timeout.
func (g *generator) timeouts() []jen.Code {
	p := g.p
	def := timeoutOf(p.Timeout, p.OnTimeout)
	some := p.Timeout > 0
	type group struct {
		t       timeout
		methods []jen.Code
	}
	var groups []*group
	for _, m := range p.Methods {
		if m.Kind != idl.Request {
			continue
		}
		t := timeoutOf(m.Timeout, m.OnTimeout)
		some = some || m.Timeout > 0
		if t == def {
			continue
		}
		var gr *group
		for _, x := range groups {
			if x.t == t {
				gr = x
			}
		}
		if gr == nil {
			gr = &group{t: t}
			groups = append(groups, gr)
		}
		gr.methods = append(gr.methods, jen.Id("Method"+m.GoName))
	}
	if !some {
		return nil
	}
	var cases []jen.Code
	for _, gr := range groups {
		cases = append(cases, jen.Case(gr.methods...).Block(jen.Return(gr.t.code())))
	}
	var body []jen.Code
	if len(cases) > 0 {
		body = append(body, jen.Switch(jen.Id("method")).Block(cases...))
	}
	return append(body, jen.Return(def.code()))
}

// timeout is a request's timeout as the runtime takes it.
type timeout struct {
	after  time.Duration
	cancel bool
	action idl.TimeoutAction
}

func timeoutOf(d time.Duration, ot idl.OnTimeout) timeout {
	if d == 0 {
		return timeout{}
	}
	action := ot.Action
	if action == "" {
		action = idl.ActionError
	}
	return timeout{after: d, cancel: ot.Cancel, action: action}
}

// code writes t as a jsonrpc.Timeout literal.
func (t timeout) code() jen.Code {
	var fields []jen.Code
	if t.after > 0 {
		fields = append(fields, jen.Id("After").Op(":").Add(duration(t.after)))
	}
	if t.cancel {
		fields = append(fields, jen.Id("Cancel").Op(":").True())
	}
	switch t.action {
	case idl.ActionClose:
		fields = append(fields, jen.Id("Action").Op(":").Qual(jsonrpcPkg, "TimeoutClose"))
	case idl.ActionKill:
		fields = append(fields, jen.Id("Action").Op(":").Qual(jsonrpcPkg, "TimeoutKill"))
	}
	return jen.Qual(jsonrpcPkg, "Timeout").Values(fields...)
}

// formatDuration writes d for people: "1m" rather than "1m0s".
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// duration writes d as Go code, such as 10 * time.Second.
func duration(d time.Duration) jen.Code {
	units := []struct {
		d    time.Duration
		name string
	}{{time.Hour, "Hour"}, {time.Minute, "Minute"}, {time.Second, "Second"}, {time.Millisecond, "Millisecond"}, {time.Microsecond, "Microsecond"}}
	for _, u := range units {
		if d%u.d == 0 {
			if d == u.d {
				return jen.Qual("time", u.name)
			}
			return jen.Lit(int(d/u.d)).Op("*").Qual("time", u.name)
		}
	}
	return jen.Qual("time", "Duration").Call(jen.Lit(int(d)))
}

// httpProtocol declares HTTP, how the protocol runs over HTTP, for the
// streamhttp server and client.
func (g *generator) httpProtocol(f *file, t idl.Transport) {
	p := g.p
	r0, r1 := p.Roles[0].GoName, p.Roles[1].GoName
	text := []string{fmt.Sprintf("HTTP describes how the protocol runs over HTTP: %s serves the endpoint %s and %s posts its messages to it.", r1, t.Path, r0)}
	fields := []jen.Code{line("Path", jen.Lit(t.Path))}
	m := p.Handshake
	if m != nil {
		fields = append(fields, line("Handshake", jen.Id(nameConst(m))))
	}
	switch {
	case t.SessionHeader != "":
		text = append(text, fmt.Sprintf("The answer to %s opens a session, whose id every later request carries in the %s header.", m.Name, t.SessionHeader))
		fields = append(fields, line("SessionHeader", jen.Lit(t.SessionHeader)))
	default:
		text = append(text, "There are no sessions: every request stands alone.")
	}
	if t.VersionHeader != "" {
		v := fmt.Sprintf("Requests after %s carry the negotiated version, %s of its result, in the %s header", m.Name, p.VersionField, t.VersionHeader)
		if t.DefaultVersion != "" {
			v += fmt.Sprintf("; one without it is taken as %s", t.DefaultVersion)
		}
		text = append(text, v+".")
		fields = append(fields, line("VersionHeader", jen.Lit(t.VersionHeader)))
	}
	if p.VersionField != "" {
		fields = append(fields, line("VersionField", jen.Lit(p.VersionField)))
	}
	if t.DefaultVersion != "" {
		fields = append(fields, line("DefaultVersion", jen.Lit(t.DefaultVersion)))
	}
	if t.Doc != "" {
		text = append(text, sentence(t.Doc))
	}
	text = append(text, fmt.Sprintf("streamhttp.NewHandler serves %s with it and streamhttp.Dial reaches one.", r1))
	f.add(doc(strings.Join(text, " ")).code().Var().Id("HTTP").Op("=").Qual(httpPkg, "Protocol").Values(append(fields, jen.Line())...))
}

// line is one line "name: value," of a multi-line composite literal.
func line(name string, value jen.Code) jen.Code {
	return jen.Line().Id(name).Op(":").Add(value)
}
