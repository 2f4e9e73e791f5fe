package lsp

import "strings"

// errorEnums are the enumerations whose values are JSON-RPC error codes.
var errorEnums = []string{"ErrorCodes", "LSPErrorCodes"}

// jsonrpcCodes are the codes every rpcgen protocol already has.
var jsonrpcCodes = map[string]bool{"-32700": true, "-32600": true, "-32601": true, "-32602": true, "-32603": true}

// errorForData names the error that carries each errorData type. The meta
// model gives a request's error data but not the code that comes with it:
// the specification's InitializeErrorCodes (not in the meta model) gives 1
// for initialize, and LSPErrorCodes' ServerCancelled goes with the pull
// diagnostics' cancellation data.
var errorForData = map[string]struct {
	name string
	code string // "" when an error enumeration defines it
}{
	"InitializeError":                  {name: "UnknownProtocolVersion", code: "1"},
	"DiagnosticServerCancellationData": {name: "ServerCancelled"},
}

// errors builds the error catalogue: the values of errorEnums other than
// JSON-RPC's own codes, then the errors of errorForData that no
// enumeration defines, each with the data type that goes with it.
func (c *converter) errors() *mapping {
	data := map[string]string{}
	var extra []string
	for _, r := range c.mm.Requests {
		if r.ErrorData == nil || r.ErrorData.Kind != "reference" {
			continue
		}
		e := errorForData[r.ErrorData.Name]
		if e.name == "" || data[e.name] != "" {
			continue
		}
		data[e.name] = r.ErrorData.Name
		if e.code != "" {
			extra = append(extra, r.ErrorData.Name)
		}
	}
	out := &mapping{}
	for _, name := range errorEnums {
		for _, e := range c.mm.Enumerations {
			if e.Name != name {
				continue
			}
			for _, v := range e.Values {
				if jsonrpcCodes[string(v.Value)] {
					continue
				}
				out.set(v.Name, c.errorEntry(v.Name, string(v.Value), data[v.Name], v.Meta))
			}
		}
	}
	for _, d := range extra {
		e := errorForData[d]
		out.set(e.name, c.errorEntry(e.name, e.code, d, Meta{}))
	}
	return out
}

func (c *converter) errorEntry(name, code, data string, meta Meta) *mapping {
	m := (&mapping{}).
		set("code", scalar{text: code, verbatim: true}).
		set("message", str(words(name)))
	c.addMeta(m, link(c.errorAnchor(data)), meta)
	if data != "" {
		m.set("data", str(data))
	}
	return m
}

func (c *converter) errorAnchor(data string) string {
	if data == "InitializeError" {
		return "initialize"
	}
	return "errorCodes"
}

// words spells a CamelCase name as a sentence: ServerNotInitialized →
// "Server not initialized".
func words(name string) string {
	var b strings.Builder
	for i, r := range name {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
