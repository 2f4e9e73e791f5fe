package markdown

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rpcgen/rpcgen/idl"
)

// writeFraming writes the "Framing and transport" section.
func (d *doc) writeFraming() {
	d.heading(secFramingTop)
	d.writeFramingOnly()
	d.writeMessages()
	d.writeTransports()
	d.writeIDs()
	d.writeCancellation()
}

// sample returns a request (or notification) of the protocol, compact,
// and the response to it when an example gives one; nil when the protocol
// has no method. It prefers the first example of a request.
func (d *doc) sample() (req, resp []byte) {
	id := d.exampleID()
	for _, kind := range []idl.MethodKind{idl.Request, idl.Notification} {
		for _, m := range d.p.Methods {
			if m.Kind != kind || len(m.Examples) == 0 {
				continue
			}
			ex := m.Examples[0]
			if kind == idl.Notification {
				return d.compactOrFail(requestJSON(m.Name, "", raw(ex.Params))), nil
			}
			return d.compactOrFail(requestJSON(m.Name, id, raw(ex.Params))), d.compactOrFail(responseJSON(id, ex))
		}
	}
	for _, m := range d.p.Methods {
		if m.Params == nil {
			if m.Kind == idl.Notification {
				id = ""
			}
			return requestJSON(m.Name, id, nil), nil
		}
	}
	return nil, nil
}

// compactOrFail compacts msg, recording an error when it is not JSON.
func (d *doc) compactOrFail(msg []byte) []byte {
	c, err := compact(msg)
	if err != nil {
		d.fail(err)
	}
	return c
}

// writeFramingOnly writes how messages are delimited, with an example.
func (d *doc) writeFramingOnly() {
	d.heading(secFraming)
	req, resp := d.sample()
	switch d.p.Framing {
	case idl.FramingContentLength:
		d.para("Messages are framed with `Content-Length` headers, as in the Language Server Protocol. Each message is a header section, then the JSON-RPC message itself, encoded as UTF-8:")
		d.para("- the header section holds `Content-Length: N`, where N is the length of the JSON body in **bytes** (not characters); each header line ends with `\\r\\n` and an empty line (`\\r\\n`) ends the section;\n" +
			"- the body follows at once and is exactly N bytes long, with no newline after it;\n" +
			"- readers match header names case-insensitively and ignore other headers such as `Content-Type`.")
		if req != nil {
			d.paraf("For example, this request of %d bytes is sent as follows (`\\r\\n` stands for the two bytes carriage return and line feed):", len(req))
			d.b.WriteString("```text\nContent-Length: " + strconv.Itoa(len(req)) + "\\r\\n\n\\r\\n\n" + string(req) + "\n```\n\n")
		}
	case idl.FramingNDJSON:
		d.para("Messages are newline-delimited JSON: each message is one JSON-RPC object, encoded as UTF-8 on a single line and followed by `\\n`.")
		d.para("- A message must not contain a raw line break: write it without indentation (line breaks inside strings are escaped as `\\n` by every JSON encoder).\n" +
			"- Readers accept `\\r\\n` line ends as well and skip blank lines.")
		if req != nil {
			text := "For example, a request"
			lines := string(req) + "\n"
			if resp != nil {
				text += " and its response"
				lines += string(resp) + "\n"
			}
			d.para(text + ", one line each:")
			d.b.WriteString("```text\n" + lines + "```\n\n")
		}
	default:
		d.paraf("Messages are framed with %s.", code(string(d.p.Framing)))
	}
}

// writeMessages writes the shapes of JSON-RPC 2.0 messages.
func (d *doc) writeMessages() {
	d.heading(secMessages)
	d.para("Every message is a JSON-RPC 2.0 object:")
	d.para("- a **request** has `\"jsonrpc\": \"2.0\"`, an `id`, the `method` and, when the method takes any, `params`: an object whose members are the parameters by name; exactly one response answers it;\n" +
		"- a **notification** is a request without `id`, and nothing answers it;\n" +
		"- a **response** has the request's `id` and either `result` or `error`; an error is an object with an integer `code`, a `message` string and, for some errors, `data` (see " + d.link("Errors", secErrors) + ").")
	both := ""
	if d.sendsRequests(d.p.Roles[0].Name) && d.sendsRequests(d.p.Roles[1].Name) {
		both = ", in both directions,"
	}
	d.para("Several requests may be in flight at once" + both + " and responses may arrive in any order: match them to requests by `id`. Notifications may arrive while a request waits for its response.")
}

// sendsRequests reports whether the role named role sends any request.
func (d *doc) sendsRequests(role string) bool {
	for _, m := range d.p.Methods {
		if m.Kind == idl.Request && m.SentBy(role) {
			return true
		}
	}
	return false
}

// writeTransports writes every transport with its defaults.
func (d *doc) writeTransports() {
	p := d.p
	d.heading(secTransports)
	first, second := roleName(p.Roles[0].Name), roleName(p.Roles[1].Name)
	if len(p.Transports) == 0 {
		d.paraf("The IDL names no transport: any reliable, ordered byte stream between %s and %s carries the protocol.", first, second)
		return
	}
	d.paraf("The protocol runs over any of these; the defaults are what a peer uses unless it is configured otherwise.")
	var rows [][]string
	for _, t := range p.Transports {
		def, how := "", ""
		switch t.Kind {
		case idl.TransportStdio:
			how = fmt.Sprintf("%s reads messages from its standard input and writes them to its standard output; standard error is not part of the protocol (it is free for logs).", second)
		case idl.TransportSubprocess:
			if t.Command != "" {
				def = code(commandLine(t.Command, t.Args))
				how = fmt.Sprintf("%s starts %s as a child process, by default with this command line, and talks to it over the child's standard input and output.", first, second)
			} else {
				how = fmt.Sprintf("%s starts %s as a child process (the command is configured, there is no default) and talks to it over the child's standard input and output.", first, second)
			}
		case idl.TransportTCP:
			host := t.Host
			if host == "" {
				host = "localhost"
			}
			def = code(hostPort(host, t.Port))
			how = fmt.Sprintf("%s listens on a TCP port and %s connects to it.", second, first)
		case idl.TransportUnix:
			if t.Path != "" {
				def = code(t.Path)
			}
			how = fmt.Sprintf("%s listens on a Unix domain socket and %s connects to it.", second, first)
		case idl.TransportHTTP:
			def, how = d.httpTransport(t)
		}
		if t.Doc != "" {
			how += " " + sentence(t.Doc)
		}
		rows = append(rows, []string{code(string(t.Kind)), def, how})
	}
	d.table([]string{"transport", "default", "how"}, rows)
}

// hostPort joins a host and a port, bracketing IPv6 addresses.
func hostPort(host string, port int) string {
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return host + ":" + strconv.Itoa(port)
}

// commandLine writes a command and its arguments as a shell would read
// them, quoting words that need it.
func commandLine(command string, args []string) string {
	words := []string{shellQuote(command)}
	for _, a := range args {
		words = append(words, shellQuote(a))
	}
	return strings.Join(words, " ")
}

// shellQuote quotes s for a POSIX shell when it holds anything but safe
// characters.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// writeIDs writes the kind of request ids the peers send.
func (d *doc) writeIDs() {
	d.heading(secIDs)
	if d.p.IDStyle == idl.IDString {
		d.para("Peers send string ids, such as `\"1\"`, `\"2\"`, each unique among the requests its sender has not yet seen answered. Each peer picks the ids of its own requests independently of the other.")
	} else {
		d.para("Peers send integer ids: each peer numbers its own requests 1, 2, 3, … independently of the other, so both may use the same id at once.")
	}
	d.para("A peer accepts both string and integer ids, and answers each request with its id exactly as received.")
}

// writeCancellation writes how a caller cancels a request.
func (d *doc) writeCancellation() {
	p := d.p
	d.heading(secCancellation)
	method := p.Cancellation.Method()
	if method == "" {
		d.para("The protocol has no cancellation message. A caller that stops waiting for a response (after a timeout, for example) drops the response if it arrives later.")
		return
	}
	ref := code(method)
	if m := p.Method(method); m != nil {
		ref = d.methodLink(m)
	}
	id := d.exampleID()
	switch p.Cancellation {
	case idl.CancelLSP:
		d.paraf("To cancel a request it sent, a peer sends the notification %s (as in the Language Server Protocol) with params `{\"id\": <id>}`, the id of the request:", ref)
		d.jsonBlock(requestJSON(method, "", object(member{"id", []byte(id)})))
		d.para("The receiver stops working on the request and still answers it: with its result if it was already done, otherwise with an error, code -32800 `RequestCancelled`. Cancelling a request that was already answered does nothing.")
	case idl.CancelMCP:
		d.paraf("To cancel a request it sent, a peer sends the notification %s (as in the Model Context Protocol) with params `requestId`, the id of the request, and an optional `reason` string:", ref)
		d.jsonBlock(requestJSON(method, "", object(member{"requestId", []byte(id)}, member{"reason", []byte(`"timed out"`)})))
		d.para("The receiver stops working on the request and sends no response to it; the caller no longer waits for one. Cancelling a request that was already answered does nothing.")
	}
}

// writeLifecycle writes the lifecycle text, its diagram and the default
// timeout.
func (d *doc) writeLifecycle() {
	p := d.p
	d.heading(secLifecycle)
	d.para(block(p.Lifecycle))
	d.writeSequence()
	if m := p.Handshake; m != nil {
		d.paraf("**Handshake:** %s. A session starts with this request and is established once it has been answered with a result. A server may close a connection that has not completed it in time, or to make room for other connections.",
			d.methodLink(m))
		if p.VersionField != "" {
			d.paraf("**Negotiated version:** the member %s of the handshake's result names the protocol version of the session.", code(p.VersionField))
		}
	}
	if p.NoBatches {
		d.para("**Batches:** not accepted. A JSON-RPC batch is answered with a single -32600 Invalid Request and none of its elements is handled; send each message on its own.")
	}
	if vs := p.BatchVersions; vs != nil {
		var quoted []string
		for _, v := range vs {
			quoted = append(quoted, code(v))
		}
		d.paraf("**Batches:** accepted only once the handshake has negotiated version %s. Before its answer, so that the handshake is never part of a batch, and under any other version, a JSON-RPC batch is answered with a single -32600 Invalid Request and none of its elements is handled; send each message on its own.", strings.Join(quoted, " or "))
	}
	if p.Timeout == 0 {
		d.para("**Default timeout:** none. Unless its section gives a timeout, a request waits for its response as long as the connection lasts.")
	} else {
		d.paraf("**Default timeout:** %s. Unless its section says otherwise, when a request gets no response within %s, %s",
			duration(p.Timeout), duration(p.Timeout), d.onTimeout("the caller", "the peer", p.OnTimeout))
	}
	var rows [][]string
	for _, m := range p.Methods {
		if m.Kind != idl.Request || m.Timeout == p.Timeout && (m.Timeout == 0 || sameOnTimeout(m.OnTimeout, p.OnTimeout)) {
			continue
		}
		then := "—"
		switch {
		case m.Timeout != 0 && p.Timeout != 0 && sameOnTimeout(m.OnTimeout, p.OnTimeout):
			then = "as by default"
		case m.Timeout != 0:
			then = d.onTimeoutCell(m.OnTimeout)
		}
		rows = append(rows, []string{d.methodLink(m), timeoutCell(m), then})
	}
	if len(rows) > 0 {
		d.para("These requests have their own timeout:")
		d.table([]string{"request", "timeout", "on timeout"}, rows)
	}
}

// httpTransport returns the default and the description of an http
// transport.
func (d *doc) httpTransport(t idl.Transport) (def, how string) {
	p := d.p
	first, second := roleName(p.Roles[0].Name), roleName(p.Roles[1].Name)
	def = code(t.Path)
	if t.Port != 0 {
		def = code(hostPort("localhost", t.Port) + t.Path)
	}
	how = fmt.Sprintf("%s serves one HTTP endpoint and %s POSTs each message to it, reading the answer as JSON or as a stream of server-sent events; a GET opens a stream for the messages %s starts, and DELETE ends a session.", second, first, second)
	if t.SessionHeader != "" {
		how += fmt.Sprintf(" The answer to %s opens a session, whose id every later request carries in the %s header.", d.methodLink(p.Handshake), code(t.SessionHeader))
	} else {
		how += " There are no sessions: every request stands alone."
	}
	if t.VersionHeader != "" {
		how += fmt.Sprintf(" Requests after the handshake carry the negotiated version in the %s header", code(t.VersionHeader))
		if t.DefaultVersion != "" {
			how += fmt.Sprintf("; one without it is taken as %s", code(t.DefaultVersion))
		}
		how += "."
	}
	return def, how
}
