package golang

import (
	"regexp"
	"strings"

	"github.com/rpcgen/rpcgen/idl"
)

// linkSet holds what linkComments turns into Go doc links.
type linkSet struct {
	// spans maps the names an IDL doc may write as Markdown code, `Name`,
	// to the doc link that replaces them.
	spans map[string]string
	// bare holds the package-level names of more than one word
	// (ListToolsResult, ConnectServer) and the role interfaces, which
	// become doc links where they stand as plain words.
	bare map[string]bool
}

// docLinks returns the links of the generated comments. Spans: a named
// type, by its IDL or Go name, to [GoName]; the wire name of a method one
// role sends to the method of the receiving role's interface,
// [Plugin.Shutdown]. Bare: every declared name of several words, and the
// roles.
func (g *generator) docLinks() linkSet {
	links := map[string]string{}
	for _, def := range g.p.Types {
		links[def.Name] = "[" + def.GoName + "]"
		links[def.GoName] = "[" + def.GoName + "]"
	}
	for _, m := range g.p.Methods {
		if m.From == idl.FromBoth {
			continue
		}
		to := g.p.Roles[0]
		if to.Name == m.From {
			to = g.p.Roles[1]
		}
		links[m.Name] = "[" + to.GoName + "." + m.GoName + "]"
	}
	bare := map[string]bool{}
	for _, r := range g.p.Roles {
		bare[r.GoName] = true // the role's interface
	}
	for name := range g.declared {
		if camelWords.MatchString(name) {
			bare[name] = true
		}
	}
	return linkSet{spans: links, bare: bare}
}

// camelWords matches a Go name of two words or more: ListToolsResult,
// DocumentURI, but not URI or Server.
var camelWords = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*[a-z0-9][A-Z][A-Za-z0-9]*$`)

// codeSpan matches Markdown code without spaces: `name`.
var codeSpan = regexp.MustCompile("`([^`\\s]+)`")

// linkComments rewrites, in the comments of src, the code spans naming a
// declared identifier and the first plain mention in a paragraph of a
// declared name of several words as Go doc links, and fills again the
// lines of each paragraph it changed; other text is kept. A comment does
// not link the name it starts with, the name it documents.
func linkComments(src []byte, links linkSet) []byte {
	lines := strings.Split(string(src), "\n")
	// out is lines joined with newlines, as rewritten.
	out := make([]byte, 0, len(src)+len(src)/8)
	first := true
	emit := func(lines ...string) {
		for _, l := range lines {
			if !first {
				out = append(out, '\n')
			}
			first = false
			out = append(out, l...)
		}
	}
	self := ""
	for i := 0; i < len(lines); {
		if _, ok := commentIndent(lines[i]); ok && (i == 0 || !isComment(lines[i-1])) {
			self, _, _ = strings.Cut(plainText(lines[i]), " ")
		}
		// A paragraph: comment lines (indented as the unformatted
		// source has them: not alike), up to a blank comment line, a
		// list item or an indented line (a list item as gofmt indents
		// it).
		indent, ok := commentIndent(lines[i])
		if !ok || plainText(lines[i]) == "" {
			emit(lines[i])
			i++
			continue
		}
		j := i + 1
		for j < len(lines) {
			if !isComment(lines[j]) || plainText(lines[j]) == "" || listItem.MatchString(plainText(lines[j])) || strings.HasPrefix(plainText(lines[j]), " ") {
				break
			}
			j++
		}
		para := lines[i:j]
		text := strings.Join(stripped(para), " ")
		linked := codeSpan.ReplaceAllStringFunc(text, func(span string) string {
			if l, ok := links.spans[span[1:len(span)-1]]; ok {
				return l
			}
			return span
		})
		linked = linkNames(linked, links.bare, self)
		if linked == text || strings.HasPrefix(plainText(para[0]), " ") || listItem.MatchString(plainText(para[0])) {
			emit(para...)
		} else {
			for _, l := range fill(linked, commentWidth, "") {
				emit(indent + "// " + l)
			}
		}
		i = j
	}
	return out
}

// linkNames writes as a doc link the first plain mention in text of each
// name in bare, but for self and the paragraph's first word. A mention is
// a word alone, but for the punctuation around it: not inside a link, a
// code span, quotes, a URL or a path.
func linkNames(text string, bare map[string]bool, self string) string {
	if len(bare) == 0 {
		return text
	}
	words := strings.Split(text, " ")
	done := map[string]bool{self: true}
	quoted := false
	for i, w := range words {
		inQuotes := quoted || strings.Contains(w, `"`)
		quoted = quoted != (strings.Count(w, `"`)%2 == 1)
		if i == 0 || w == "" || inQuotes || strings.ContainsAny(w, "[]`/\\#=<>") {
			continue
		}
		start := strings.IndexFunc(w, func(r rune) bool { return r != '(' })
		if start < 0 {
			continue
		}
		core := strings.TrimRight(w[start:], ".,;:)!?")
		core = strings.TrimSuffix(core, "'s")
		if !bare[core] || done[core] || !strings.HasPrefix(w[start:], core) {
			continue
		}
		done[core] = true
		words[i] = w[:start] + "[" + core + "]" + w[start+len(core):]
	}
	return strings.Join(words, " ")
}

// isComment reports whether line is a comment alone.
func isComment(line string) bool {
	_, ok := commentIndent(line)
	return ok
}

// commentIndent returns what comes before "//" on a line that is a
// comment alone.
func commentIndent(line string) (string, bool) {
	trimmed := strings.TrimLeft(line, "\t ")
	if !strings.HasPrefix(trimmed, "//") {
		return "", false
	}
	return line[:len(line)-len(trimmed)], true
}

// plainText returns the text of a comment line after "// ".
func plainText(line string) string {
	t := strings.TrimPrefix(strings.TrimLeft(line, "\t "), "//")
	return strings.TrimPrefix(t, " ")
}

// stripped returns the texts of comment lines.
func stripped(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = plainText(l)
	}
	return out
}
