package golang

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"
)

// commentWidth is the width of comment text, after "// ".
const commentWidth = 76

// comment is a doc comment being built, one paragraph at a time.
type comment struct {
	paras []string
}

// doc returns a comment whose first paragraph is text.
func doc(text string) *comment {
	c := &comment{}
	c.add(text)
	return c
}

// add appends the paragraph text, unless it is empty.
func (c *comment) add(text string) *comment {
	if text = strings.TrimSpace(text); text != "" {
		c.paras = append(c.paras, text)
	}
	return c
}

// addf appends a formatted paragraph.
func (c *comment) addf(format string, args ...any) *comment {
	return c.add(fmt.Sprintf(format, args...))
}

// deprecated appends the "Deprecated:" paragraph Go tools recognise.
func (c *comment) deprecated(why string) *comment {
	if why = strings.TrimSpace(why); why != "" {
		c.add("Deprecated: " + why)
	}
	return c
}

// lines returns the comment's lines, without "//".
func (c *comment) lines() []string {
	var out []string
	for i, p := range c.paras {
		if i > 0 {
			out = append(out, "")
		}
		out = append(out, wrap(p, commentWidth)...)
	}
	return out
}

// code returns the comment as a statement ending with a new line, to be
// followed by the declaration it documents.
func (c *comment) code() *jen.Statement {
	s := jen.Null()
	for _, l := range c.lines() {
		if l == "" {
			s.Comment("//").Line()
		} else {
			s.Comment(l).Line()
		}
	}
	return s
}

// listItem matches the start of a list item in IDL docs.
var listItem = regexp.MustCompile(`^([-*+]|[0-9]+[.)])\s`)

// wrap splits text into lines of at most width characters. Lines of the
// same paragraph are joined and re-wrapped; blank lines, list items and
// indented (code) lines are kept.
func wrap(text string, width int) []string {
	var out, para []string
	indent := ""
	flush := func() {
		if len(para) > 0 {
			out = append(out, fill(strings.Join(para, " "), width, indent)...)
			para, indent = nil, ""
		}
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRightFunc(line, unicode.IsSpace)
		trimmed := strings.TrimLeftFunc(line, unicode.IsSpace)
		switch {
		case trimmed == "":
			flush()
			if len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
		case trimmed != line && len(para) == 0:
			out = append(out, "  "+strings.ReplaceAll(line, "\t", "    "))
		case listItem.MatchString(trimmed):
			flush()
			para, indent = []string{"  " + trimmed}, "    "
		default:
			para = append(para, trimmed)
		}
	}
	flush()
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// fill breaks one paragraph into lines at spaces; continuation lines start
// with indent.
func fill(text string, width int, indent string) []string {
	var lines []string
	lead := text[:len(text)-len(strings.TrimLeft(text, " "))]
	var cur strings.Builder
	n := 0 // runes in cur
	for _, w := range strings.Fields(text) {
		wn := utf8.RuneCountInString(w)
		switch {
		case cur.Len() == 0:
			cur.WriteString(lead)
			cur.WriteString(w)
			n = len(lead) + wn
		case n+1+wn > width:
			lines = append(lines, cur.String())
			cur.Reset()
			cur.WriteString(indent)
			cur.WriteString(w)
			n = utf8.RuneCountInString(indent) + wn
		default:
			cur.WriteByte(' ')
			cur.WriteString(w)
			n += 1 + wn
		}
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// lead starts the doc of name with the IDL's doc, in Go's "Name ..."
// style: as it is when it starts with the name; "Item is a thing." from "A
// thing."; "Item says how it runs." from "How it runs."; "Item opens it."
// from "Opens it."; "Item holds the parts of it." from "Parts of it.". A
// doc that is a bare URL follows "Item is described at". With no doc, and
// for an enum whose doc starts otherwise, fallback leads: a sentence of
// our own (an enum's lists its values).
func lead(name, fallback, text string, enum bool) string {
	text = strings.TrimSpace(text)
	switch {
	case text == "":
		return fallback
	case strings.HasPrefix(text, name+" "):
		return text
	case !strings.ContainsAny(text, " \t\n") && endsWithURL(text):
		return name + " is described at " + text
	}
	first, rest, _ := strings.Cut(text, " ")
	second, _, _ := strings.Cut(rest, " ")
	switch {
	case slices.Contains(articles, first), slices.Contains(participles, first):
		return name + " is " + lowerFirst(text)
	case slices.Contains(whWords, first):
		return name + " says " + lowerFirst(text)
	case strings.HasSuffix(first, "s") && slices.Contains(objectStarts, strings.ToLower(second)):
		return name + " " + lowerFirst(text)
	case slices.Contains(quantifiers, first):
		return name + " holds " + lowerFirst(text)
	case enum:
		return fallback + "\n\n" + text
	}
	return name + " holds the " + lowerFirst(text)
}

// Words by which lead tells how a doc starts.
var (
	articles     = []string{"A", "An", "The", "One", "Exactly"}
	participles  = []string{"Put", "Sent", "Used", "Given", "Returned", "Kept", "Made", "Found", "Passed", "Held", "Shown", "Written"}
	whWords      = []string{"What", "Whether", "How", "Where", "When", "Who", "Why", "Which"}
	quantifiers  = []string{"All", "Every", "Each", "Some", "Any", "No", "Both"}
	objectStarts = []string{"a", "an", "the", "one", "that", "whether", "what", "which", "how", "who", "where", "when", "why", "its", "their", "each", "every", "all", "any", "no", "some", "this", "these", "those"}
)

// lowerFirst lower-cases the first letter of text when its first word is
// an ordinary capitalised word ("The" but not "HL7" or "JSON").
func lowerFirst(text string) string {
	r, size := utf8.DecodeRuneInString(text)
	if !unicode.IsUpper(r) {
		return text
	}
	for _, c := range text[size:] {
		if !unicode.IsLetter(c) {
			break
		}
		if !unicode.IsLower(c) {
			return text
		}
	}
	return string(unicode.ToLower(r)) + text[size:]
}

// sentence ends text with a period unless it ends with punctuation or
// with a URL (which a period would seem to extend).
func sentence(text string) string {
	text = strings.TrimSpace(text)
	if text == "" || strings.ContainsAny(text[len(text)-1:], ".!?:") || endsWithURL(text) {
		return text
	}
	return text + "."
}

// endsWithURL reports whether the last word of text is an http(s) URL.
func endsWithURL(text string) bool {
	last := text[strings.LastIndexAny(text, " \t\n")+1:]
	return strings.HasPrefix(last, "https://") || strings.HasPrefix(last, "http://")
}

// orList joins items as "a, b or c".
func orList(items []string) string {
	return joinList(items, "or")
}

// andList joins items as "a, b and c".
func andList(items []string) string {
	return joinList(items, "and")
}

func joinList(items []string, conj string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}
