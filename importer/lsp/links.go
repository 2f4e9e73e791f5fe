package lsp

import (
	_ "embed"
	"strings"
)

// SpecURL is the published LSP 3.17 specification; each type and method
// links to its section.
const SpecURL = "https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/"

// anchors.txt lists the anchors (the name attributes) of the 3.17
// specification's sections, one a line, so that every emitted link points
// at a section that exists.
//
//go:embed anchors.txt
var anchorList string

var specAnchors = func() map[string]bool {
	m := map[string]bool{}
	for _, a := range strings.Fields(anchorList) {
		m[a] = true
	}
	return m
}()

// methodAnchors are the methods whose section does not follow the rule
// "the method name without $/, with / replaced by _".
var methodAnchors = map[string]string{
	"textDocument/semanticTokens/full":       "semanticTokens_fullRequest",
	"textDocument/semanticTokens/full/delta": "semanticTokens_deltaRequest",
	"textDocument/semanticTokens/range":      "semanticTokens_rangeRequest",
	"workspace/semanticTokens/refresh":       "semanticTokens_refreshRequest",
	"workspace/diagnostic/refresh":           "diagnostic_refresh",
	"workspace/codeLens/refresh":             "codeLens_refresh",
	"workspaceSymbol/resolve":                "workspace_symbolResolve",
}

// typeAnchors are the types the specification defines in a section named
// after something else.
var typeAnchors = map[string]string{
	"LSPErrorCodes":      "errorCodes",
	"ProgressToken":      "progress",
	"MarkupKind":         "markupContent",
	"TraceValues":        "traceValue",
	"TextDocumentFilter": "documentFilter",
}

// methodAnchor is the anchor of a method's section, or "" when the
// specification has none (proposed methods).
func methodAnchor(method string) string {
	a, ok := methodAnchors[method]
	if !ok {
		a = strings.ReplaceAll(strings.TrimPrefix(method, "$/"), "/", "_")
	}
	if !specAnchors[a] {
		return ""
	}
	return a
}

// camel is the specification's anchor spelling of a type name: leading
// underscores dropped, the leading run of capitals lowered except a capital
// that starts the next word (LSPAny → lspAny, URI → uri, Hover → hover).
func camel(name string) string {
	name = strings.TrimLeft(name, "_")
	b := []byte(name)
	for i := 0; i < len(b) && b[i] >= 'A' && b[i] <= 'Z'; i++ {
		if i > 0 && i+1 < len(b) && b[i+1] >= 'a' && b[i+1] <= 'z' {
			break
		}
		b[i] += 'a' - 'A'
	}
	return string(b)
}

// link is the URL of an anchor's section, or of the specification when
// anchor is "".
func link(anchor string) string {
	if anchor == "" {
		return SpecURL
	}
	return SpecURL + "#" + anchor
}

// typeAnchor is the anchor of the section that defines a type: its own
// (typeAnchors, else its camel-cased name), else the section of the first
// method, then the first type, in meta-model order, that refers to it
// directly and has a section; "" when none has.
func (c *converter) typeAnchor(name string) string {
	if a, ok := c.anchors[name]; ok {
		return a
	}
	c.anchors[name] = "" // breaks cycles while the referrers are searched
	a := typeAnchors[name]
	if a == "" && specAnchors[camel(name)] {
		a = camel(name)
	}
	if a == "" {
		for _, r := range c.referrers[name] {
			if r.method != "" {
				a = methodAnchor(r.method)
			} else {
				a = c.typeAnchor(r.typ)
			}
			if a != "" {
				break
			}
		}
	}
	c.anchors[name] = a
	return a
}

// referrer is a method or a type that mentions a type.
type referrer struct{ method, typ string }

// indexReferrers records, for every type name, the methods and then the
// types that mention it, in meta-model order.
func (c *converter) indexReferrers() {
	var methods, types []mention
	for _, r := range c.mm.Requests {
		methods = append(methods, mention{referrer{method: r.Method}, append(append([]*Type{}, r.Params.Types...), r.Result)})
	}
	for _, n := range c.mm.Notifications {
		methods = append(methods, mention{referrer{method: n.Method}, n.Params.Types})
	}
	for _, s := range c.mm.Structures {
		ts := append(append([]*Type{}, s.Extends...), s.Mixins...)
		for _, p := range s.Properties {
			ts = append(ts, p.Type)
		}
		types = append(types, mention{referrer{typ: s.Name}, ts})
	}
	for _, a := range c.mm.TypeAliases {
		types = append(types, mention{referrer{typ: a.Name}, []*Type{a.Type}})
	}
	for _, m := range append(methods, types...) {
		seen := map[string]bool{}
		for _, t := range m.types {
			walkRefs(t, func(name string) {
				if !seen[name] {
					seen[name] = true
					c.referrers[name] = append(c.referrers[name], m.by)
				}
			})
		}
	}
}

// mention is a method or type and the types it is written with.
type mention struct {
	by    referrer
	types []*Type
}

// walkRefs calls f with every type name t mentions.
func walkRefs(t *Type, f func(string)) {
	if t == nil {
		return
	}
	switch t.Kind {
	case "reference":
		f(t.Name)
	case "array":
		walkRefs(t.Element, f)
	case "map":
		walkRefs(t.Key, f)
		walkRefs(t.Value, f)
	case "and", "or", "tuple":
		for _, it := range t.Items {
			walkRefs(it, f)
		}
	case "literal":
		for _, p := range t.Literal.Properties {
			walkRefs(p.Type, f)
		}
	}
}
