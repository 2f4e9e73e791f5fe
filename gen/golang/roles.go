package golang

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/idl"
)

// handled returns the methods role i answers: those the other role sends,
// and those either sends, except the protocol's cancellation
// notification, which the connection sends and consumes itself.
func (g *generator) handled(i int) []*idl.Method {
	other := g.p.Roles[1-i].Name
	var out []*idl.Method
	for _, m := range g.p.Methods {
		if (m.From == other || m.From == idl.FromBoth) && !g.isCancellation(m) {
			out = append(out, m)
		}
		if f := m.NotificationForm; f != nil && f.From == other {
			out = append(out, f)
		}
	}
	return out
}

// nameConst is the name of the constant holding m's wire name; a
// notification form shares its request's.
func nameConst(m *idl.Method) string {
	if m.RequestForm != nil {
		return "Method" + m.RequestForm.GoName
	}
	return "Method" + m.GoName
}

// isCancellation reports whether m is the protocol's cancellation
// notification.
func (g *generator) isCancellation(m *idl.Method) bool {
	return m.Kind == idl.Notification && m.Name == g.p.Cancellation.Method()
}

// remoteType returns the name of the type New<Role>Remote returns: the
// role's interface, or <Role>Remote when some of its requests may also
// be sent as notifications.
func remoteType(role idl.Role, methods []*idl.Method) string {
	for _, m := range methods {
		if m.AlsoNotification {
			return role.GoName + "Remote"
		}
	}
	return role.GoName
}

// deaf reports whether role i receives no request and no notification:
// it has no interface, Unimplemented struct, remote stub or handler, and
// its Connect function takes no implementation.
func (g *generator) deaf(i int) bool {
	return len(g.handled(i)) == 0
}

// roleFile declares role i's interface, Unimplemented struct, remote
// stub, handler and Connect function; a role receiving nothing gets only
// its Connect function.
func (g *generator) roleFile(f *file, i int) error {
	role, other := g.p.Roles[i], g.p.Roles[1-i]
	if g.deaf(i) {
		g.connect(f, i)
		return nil
	}
	name := role.GoName
	methods := g.handled(i)

	c := doc(fmt.Sprintf("%s is the %s side of the protocol%s.", name, role.Name, roleDesc(role.Doc)))
	c.addf("Its methods are the requests and notifications %s sends it.", other.GoName)
	c.paras[len(c.paras)-1] += fmt.Sprintf(" Serve an implementation with Connect%s or New%sHandler, embedding Unimplemented%s to keep compiling when methods are added; call the %s at the other end of a connection with New%sRemote.", name, name, name, role.Name, name)
	var decls []jen.Code
	for j, m := range methods {
		d := jen.Null()
		if j > 0 {
			d.Line()
		}
		decls = append(decls, d.Add(g.methodDoc(m).code()).Id(m.GoName).Params(g.params(m, true)...).Add(g.results(m)))
	}
	f.add(c.code().Type().Id(name).Interface(decls...))

	g.unimplemented(f, role, methods)
	g.remote(f, role, methods)
	g.handler(f, role, methods)
	g.connect(f, i)
	return nil
}

// methodDoc documents m as a method of a role's interface.
func (g *generator) methodDoc(m *idl.Method) *comment {
	verb := "handles the notification"
	if m.Kind == idl.Request {
		verb = "answers the request"
	}
	if m.AlsoNotification {
		verb = "answers the request, or handles the notification,"
	}
	if m.RequestForm != nil {
		verb = "handles the notification form of"
	}
	c := doc(strings.TrimSpace(fmt.Sprintf("%s %s %s. %s", m.GoName, verb, m.Name, sentence(m.Doc))))
	if m.AlsoNotification {
		c.add("Sent as a notification, its result is dropped.")
	}
	if m.NullResult {
		c.add("Its result is always null.")
	}
	if m.Params != nil && paramsByNil(m) {
		c.addf("params is nil when %s.", g.nilParams(m))
	}
	if m.Kind == idl.Request {
		switch {
		case m.Timeout > 0 && !g.defaultTimeout(m):
			c.add(g.timeoutDoc(m))
		case m.Timeout == 0 && g.p.Timeout > 0:
			c.add("It has no timeout: the caller waits for the response until its context ends.")
		}
		var errs []string
		for _, e := range m.Errors {
			errs = append(errs, errorRef(e))
		}
		if len(errs) > 0 {
			c.addf("Besides the standard JSON-RPC errors, it may fail with %s.", orList(errs))
		}
	}
	return c.add(metaText(m.Since, m.Proposed)).deprecated(m.Deprecated)
}

// timeoutDoc says how long the caller of m waits and what it does then;
// the package doc gives the protocol's on_timeout doc, so a method whose
// doc is the same leaves it out.
func (g *generator) timeoutDoc(m *idl.Method) string {
	s := fmt.Sprintf("The caller waits %s for the response", formatDuration(m.Timeout)) + timeoutThen(m.OnTimeout)
	if g.p.Timeout > 0 && m.OnTimeout.Doc == g.p.OnTimeout.Doc {
		return s + "."
	}
	return s + ". " + sentence(m.OnTimeout.Doc)
}

// defaultTimeout reports whether m times out as the package doc says every
// request does unless said otherwise, so that its doc need not repeat it.
func (g *generator) defaultTimeout(m *idl.Method) bool {
	p := g.p
	return p.Timeout > 0 && m.Timeout == p.Timeout && m.OnTimeout.Cancel == p.OnTimeout.Cancel &&
		m.OnTimeout.Action == p.OnTimeout.Action && m.OnTimeout.Doc == p.OnTimeout.Doc
}

// timeoutThen says what a caller does when a request times out, after
// ", then": ", then sends the cancellation notification"; "" when it only
// gives up.
func timeoutThen(ot idl.OnTimeout) string {
	var then []string
	if ot.Cancel {
		then = append(then, "sends the cancellation notification")
	}
	switch ot.Action {
	case idl.ActionClose:
		then = append(then, "closes the connection")
	case idl.ActionKill:
		then = append(then, "kills this process")
	}
	if len(then) == 0 {
		return ""
	}
	return ", then " + andList(then)
}

// params returns the parameters of m's Go method; named says whether to
// name them.
func (g *generator) params(m *idl.Method, named bool) []jen.Code {
	id := func(s string) *jen.Statement {
		if named {
			return jen.Id(s)
		}
		return jen.Null()
	}
	out := []jen.Code{id("ctx").Qual("context", "Context")}
	if m.Params != nil {
		out = append(out, id("params").Add(paramsType(m)))
	}
	return out
}

// paramsType is the Go type of m's params argument: a pointer, or a
// slice, map or json.RawMessage, whose nil stands for no params.
func paramsType(m *idl.Method) *jen.Statement {
	if nilable(m.Params) {
		return baseType(m.Params)
	}
	return jen.Op("*").Add(baseType(m.Params))
}

// paramsByNil reports whether m's params argument may be nil: the params
// may be absent or null.
func paramsByNil(m *idl.Method) bool {
	return m.ParamsOptional || nullable(m.Params)
}

// nilParams says when m's params argument is nil.
func (g *generator) nilParams(m *idl.Method) string {
	what := "the " + string(m.Kind)
	if m.AlsoNotification {
		what = "the message"
	}
	switch {
	case m.ParamsOptional && nullable(m.Params):
		return what + " comes without params or with null params"
	case m.ParamsOptional:
		return what + " comes without params"
	}
	return what + " comes with null params"
}

// results returns the results of m's Go method.
func (g *generator) results(m *idl.Method) jen.Code {
	if m.Kind == idl.Request && m.Result != nil {
		return jen.Params(resultType(m.Result), jen.Error())
	}
	return jen.Error()
}

// resultType is the Go type a request returns its result as.
func resultType(t *idl.Type) *jen.Statement {
	if byPointer(t) {
		return jen.Op("*").Add(baseType(t))
	}
	return goType(t, false)
}

// byPointer reports whether a result or error data of type t is passed
// by pointer: objects, unions and tuples are.
func byPointer(t *idl.Type) bool {
	k := kindOf(t)
	return k == idl.KindObject || k == idl.KindUnion || k == idl.KindTuple
}

// zeroResult is the zero value of a result of type t, as Go code.
func zeroResult(t *idl.Type) jen.Code {
	if byPointer(t) || pointer(t, false) || nilable(t) {
		return jen.Nil()
	}
	k := kindOf(t)
	if k == idl.KindEnum {
		k = t.Underlying().EnumBase
	}
	return zero(k)
}

// unimplemented declares Unimplemented<Role>.
func (g *generator) unimplemented(f *file, role idl.Role, methods []*idl.Method) {
	name := "Unimplemented" + role.GoName
	f.add(doc(fmt.Sprintf("%s answers every request with a -32601 Method not found error and ignores every notification. Embed it in implementations of %s.", name, role.GoName)).code().
		Type().Id(name).Struct())
	for _, m := range methods {
		var body jen.Code = jen.Return(jen.Nil())
		c := doc(fmt.Sprintf("%s ignores the notification.", m.GoName))
		if m.Kind == idl.Request {
			c = doc(fmt.Sprintf("%s answers with a -32601 Method not found error.", m.GoName))
			nf := jen.Qual(jsonrpcPkg, "MethodNotFound").Call(jen.Id(nameConst(m)))
			if m.Result != nil {
				body = jen.Return(zeroResult(m.Result), nf)
			} else {
				body = jen.Return(nf)
			}
		}
		f.add(c.code().Func().Params(jen.Id(name)).Id(m.GoName).Params(g.params(m, false)...).Add(g.results(m)).Block(body))
	}
}

// remote declares the stub calling a remote role, and its constructor.
func (g *generator) remote(f *file, role idl.Role, methods []*idl.Method) {
	name := role.GoName
	typ := "remote" + name
	ret := remoteType(role, methods)
	if ret != name {
		var decls []jen.Code
		for _, m := range methods {
			if m.AlsoNotification {
				decls = append(decls, doc(fmt.Sprintf("Notify%s sends %s as a notification: no response comes back.", m.GoName, m.Name)).code().
					Id("Notify"+m.GoName).Params(g.params(m, true)...).Error())
			}
		}
		f.add(doc(fmt.Sprintf("%s is the %s at the other end of a connection: it has the methods of %s, and a Notify method for each request that may also be sent as a notification.", ret, role.Name, name)).code().
			Type().Id(ret).Interface(append([]jen.Code{jen.Id(name)}, decls...)...))
	}
	f.add(doc(fmt.Sprintf("New%sRemote returns the %s at the other end of c: its methods send their request or notification through c.", name, role.Name)).code().
		Func().Id("New" + name + "Remote").Params(jen.Id("c").Qual(jsonrpcPkg, "Caller")).Id(ret).Block(
		jen.Return(jen.Id(typ).Values(jen.Id("c"))),
	))
	f.add(doc(fmt.Sprintf("%s implements %s by calling the peer.", typ, ret)).code().
		Type().Id(typ).Struct(jen.Id("c").Qual(jsonrpcPkg, "Caller")))
	for _, m := range methods {
		var body []jen.Code
		var params jen.Code = jen.Nil()
		if m.Params != nil {
			params = jen.Id("params")
			if nullable(m.Params) && !m.ParamsOptional {
				// nil is sent as "params": null, which the method accepts.
				body = append(body,
					jen.Var().Id("sent").Any().Op("=").Add(impl("NullValue")),
					jen.If(jen.Id("params").Op("!=").Nil()).Block(jen.Id("sent").Op("=").Id("params")),
				)
				params = jen.Id("sent")
			}
		}
		call := func(result jen.Code) *jen.Statement {
			return jen.Id("r").Dot("c").Dot("Call").Call(jen.Id("ctx"), jen.Id(nameConst(m)), params, result)
		}
		notify := jen.Return(jen.Id("r").Dot("c").Dot("Notify").Call(jen.Id("ctx"), jen.Id(nameConst(m)), params))
		if m.AlsoNotification {
			f.add(jen.Func().Params(jen.Id("r").Id(typ)).Id("Notify" + m.GoName).Params(g.params(m, true)...).Error().Block(append(body[:len(body):len(body)], notify)...))
		}
		switch {
		case m.Kind == idl.Notification:
			body = append(body, notify)
		case m.NullResult:
			body = append(body,
				jen.Var().Id("result").Qual(jsonPkg, "RawMessage"),
				jen.If(jen.Err().Op(":=").Add(call(jen.Op("&").Id("result"))), jen.Err().Op("!=").Nil()).Block(
					jen.Return(jen.Err()),
				),
				jen.Return(impl("ExpectNull").Call(jen.Id(nameConst(m)), jen.Id("result"))),
			)
		case m.Result == nil:
			body = append(body, jen.Return(call(jen.Nil())))
		case byPointer(m.Result) && !nullable(m.Result):
			body = append(body,
				jen.Var().Id("result").Add(baseType(m.Result)),
				jen.If(jen.Err().Op(":=").Add(call(jen.Op("&").Id("result"))), jen.Err().Op("!=").Nil()).Block(
					jen.Return(jen.Nil(), jen.Err()),
				),
				jen.Return(jen.Op("&").Id("result"), jen.Nil()),
			)
		default:
			target := jen.Op("&").Id("result")
			if byPointer(m.Result) {
				// null is nil; anything else goes to the type's own decoder.
				target = impl("Result").Call(target)
			}
			body = append(body,
				jen.Var().Id("result").Add(resultType(m.Result)),
				jen.Err().Op(":=").Add(call(target)),
				jen.Return(jen.Id("result"), jen.Err()),
			)
		}
		f.add(jen.Func().Params(jen.Id("r").Id(typ)).Id(m.GoName).Params(g.params(m, true)...).Add(g.results(m)).Block(body...))
	}
}

// handler declares New<Role>Handler, which serves an implementation.
func (g *generator) handler(f *file, role idl.Role, methods []*idl.Method) {
	name := role.GoName
	var cases []jen.Code
	for _, m := range methods {
		body, args := g.decodeParams(m)
		if guard := wrongForm(m); guard != nil {
			// The other form of the wire name goes the other way: this
			// side does not have it.
			body = append([]jen.Code{jen.If(guard).Block(jen.Return(jen.Nil(), jen.Qual(jsonrpcPkg, "MethodNotFound").Call(jen.Id("req").Dot("Method"))))}, body...)
		}
		call := jen.Id("impl").Dot(m.GoName).Call(args...)
		if m.Kind == idl.Request && m.Result != nil {
			body = append(body, jen.Return(call))
		} else {
			body = append(body, jen.Return(jen.Nil(), call))
		}
		cases = append(cases, jen.Case(jen.Id(nameConst(m))).Block(body...))
	}
	var sw jen.Code = jen.Null()
	if len(cases) > 0 {
		sw = jen.Switch(jen.Id("req").Dot("Method")).Block(cases...)
	}
	f.add(doc(fmt.Sprintf("New%[1]sHandler returns a handler serving impl as the %[2]s: it decodes the params of each request or notification, calls the method of impl it names and answers with the result. Params that do not decode are answered with -32602 naming the member at fault, and methods %[1]s does not have with -32601.", name, role.Name)).code().
		Func().Id("New"+name+"Handler").Params(jen.Id("impl").Id(name)).Qual(jsonrpcPkg, "Handler").Block(
		jen.Return(jen.Qual(jsonrpcPkg, "HandlerFunc").Call(
			jen.Func().Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("req").Op("*").Qual(jsonrpcPkg, "Request")).Params(jen.Any(), jen.Error()).Block(
				sw,
				jen.Return(jen.Nil(), jen.Qual(jsonrpcPkg, "MethodNotFound").Call(jen.Id("req").Dot("Method"))),
			),
		)),
	))
}

// wrongForm returns, for a wire name sent one way as a request and the
// other as a notification, the condition under which a message of that
// name is in the form this side does not receive; nil for other methods.
func wrongForm(m *idl.Method) jen.Code {
	switch {
	case m.RequestForm != nil:
		return jen.Op("!").Id("req").Dot("IsNotification").Call()
	case m.NotificationForm != nil:
		return jen.Id("req").Dot("IsNotification").Call()
	}
	return nil
}

// decodeParams returns the statements decoding m's params in a handler,
// and the arguments of the call to the implementation.
func (g *generator) decodeParams(m *idl.Method) (body, args []jen.Code) {
	args = []jen.Code{jen.Id("ctx")}
	if m.Params == nil {
		return nil, args
	}
	decodeInto := func(v jen.Code) jen.Code {
		return jen.If(jen.Err().Op(":=").Id("req").Dot("DecodeParams").Call(v), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Err()),
		)
	}
	if !paramsByNil(m) && kindOf(m.Params) == idl.KindObject {
		// Absent params decode as {}: a missing required field is
		// reported by name.
		body = append(body, jen.Var().Id("params").Add(baseType(m.Params)), decodeInto(jen.Op("&").Id("params")))
		return body, append(args, jen.Op("&").Id("params"))
	}
	missing := jen.Return(jen.Nil(), impl("MissingParams").Call())
	switch {
	case m.ParamsOptional:
	case nullable(m.Params):
		body = append(body, jen.If(jen.Op("!").Id("req").Dot("HasParams").Call()).Block(missing))
	default:
		body = append(body, jen.If(jen.Id("req").Dot("Params").Op("==").Nil()).Block(missing))
	}
	if nilable(m.Params) {
		body = append(body, jen.Var().Id("params").Add(baseType(m.Params)))
		if paramsByNil(m) {
			body = append(body, jen.If(jen.Id("req").Dot("Params").Op("!=").Nil()).Block(decodeInto(jen.Op("&").Id("params"))))
		} else {
			body = append(body, decodeInto(jen.Op("&").Id("params")))
		}
		return body, append(args, jen.Id("params"))
	}
	if !paramsByNil(m) {
		body = append(body, jen.Var().Id("params").Add(baseType(m.Params)), decodeInto(jen.Op("&").Id("params")))
		return body, append(args, jen.Op("&").Id("params"))
	}
	body = append(body,
		jen.Var().Id("params").Op("*").Add(baseType(m.Params)),
		jen.If(jen.Id("req").Dot("Params").Op("!=").Nil()).Block(
			jen.Id("params").Op("=").New(baseType(m.Params)),
			decodeInto(jen.Id("params")),
		),
	)
	return body, append(args, jen.Id("params"))
}

// connect declares Connect<Role> for role i. It takes the role's
// implementation unless the role receives nothing, and returns the other
// role's remote unless that one receives nothing.
func (g *generator) connect(f *file, i int) {
	role, other := g.p.Roles[i], g.p.Roles[1-i]
	name := role.GoName
	params := []jen.Code{jen.Id("stream").Qual("io", "ReadWriteCloser")}
	body := []jen.Code{jen.Id("opts").Op("=").Id("withDefaults").Call(jen.Id("opts"))}
	var c *comment
	if g.deaf(i) {
		c = doc(fmt.Sprintf("Connect%s runs the %s on stream, the connection to the %s, and returns the connection%s. Zero fields of opts take the protocol's defaults (see Options).", name, role.Name, other.Name, otherEnd(g.deaf(1-i), other.Name))).
			addf("The %s receives no requests or notifications: unless opts.Handler says otherwise, a request from the %s is answered with a -32601 Method not found error.", role.Name, other.Name)
	} else {
		c = doc(fmt.Sprintf("Connect%s runs impl as the %s on stream, the connection to the %s, and returns the connection%s. Zero fields of opts take the protocol's defaults (see Options), and impl, unless nil, becomes the handler.", name, role.Name, other.Name, otherEnd(g.deaf(1-i), other.Name)))
		params = append(params, jen.Id("impl").Id(name))
		body = append(body, jen.If(jen.Id("impl").Op("!=").Nil()).Block(
			jen.Id("opts").Dot("Handler").Op("=").Id("New"+name+"Handler").Call(jen.Id("impl")),
		))
	}
	params = append(params, jen.Id("opts").Qual(jsonrpcPkg, "Options"))
	body = append(body, jen.Id("conn").Op(":=").Qual(jsonrpcPkg, "NewConn").Call(jen.Id("stream"), jen.Id("opts")))
	results := []jen.Code{jen.Op("*").Qual(jsonrpcPkg, "Conn")}
	if g.deaf(1 - i) {
		body = append(body, jen.Return(jen.Id("conn")))
	} else {
		results = append(results, jen.Id(remoteType(other, g.handled(1-i))))
		body = append(body, jen.Return(jen.Id("conn"), jen.Id("New"+other.GoName+"Remote").Call(jen.Id("conn"))))
	}
	f.add(c.add("Close the connection, or let the peer close it, to end the session.").code().
		Func().Id("Connect" + name).Params(params...).Params(results...).Block(body...))
}

// otherEnd completes the doc of a Connect function: what it returns
// besides the connection.
func otherEnd(deaf bool, other string) string {
	if deaf {
		return ""
	}
	return fmt.Sprintf(" and the %s at its other end", other)
}
