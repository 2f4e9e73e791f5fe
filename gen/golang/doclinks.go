package golang

import (
	"regexp"
	"strings"

	"github.com/rpcgen/rpcgen/idl"
)

// docLinks maps the names an IDL doc may write as Markdown code, `Name`,
// to the Go doc link that replaces them in comments: a named type, by its
// IDL or Go name, to [GoName]; the wire name of a method one role sends
// to the method of the receiving role's interface, [Plugin.Shutdown].
func (g *generator) docLinks() map[string]string {
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
	return links
}

// codeSpan matches Markdown code without spaces: `name`.
var codeSpan = regexp.MustCompile("`([^`\\s]+)`")

// linkComments rewrites, in the comments of src, the code spans naming a
// declared identifier as Go doc links, and fills again the lines of each
// paragraph it changed; other text is kept.
func linkComments(src []byte, links map[string]string) []byte {
	lines := strings.Split(string(src), "\n")
	var out []string
	for i := 0; i < len(lines); {
		// A paragraph: comment lines of the same indentation, up to a
		// blank comment line, a list item or an indented line.
		indent, ok := commentIndent(lines[i])
		if !ok || plainText(lines[i]) == "" {
			out = append(out, lines[i])
			i++
			continue
		}
		j := i + 1
		for j < len(lines) {
			if in, ok := commentIndent(lines[j]); !ok || in != indent || plainText(lines[j]) == "" || listItem.MatchString(plainText(lines[j])) {
				break
			}
			j++
		}
		para := lines[i:j]
		text := strings.Join(stripped(para), " ")
		linked := codeSpan.ReplaceAllStringFunc(text, func(span string) string {
			if l, ok := links[span[1:len(span)-1]]; ok {
				return l
			}
			return span
		})
		if linked == text || strings.HasPrefix(plainText(para[0]), " ") || listItem.MatchString(plainText(para[0])) {
			out = append(out, para...)
		} else {
			for _, l := range fill(linked, commentWidth, "") {
				out = append(out, indent+"// "+l)
			}
		}
		i = j
	}
	return []byte(strings.Join(out, "\n"))
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
