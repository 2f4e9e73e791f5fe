package markdown

import (
	"strconv"
	"strings"
	"unicode"
)

// paragraphs splits doc text into paragraphs (separated by blank lines),
// each with its lines trimmed and joined by single spaces.
func paragraphs(s string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = nil
		}
	}
	for line := range strings.SplitSeq(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			flush()
			continue
		}
		cur = append(cur, line)
	}
	flush()
	return out
}

// block returns doc text for use as a Markdown block outside tables: lines
// keep their breaks but lose surrounding and trailing white space, and runs
// of blank lines become one. Doc text is Markdown, but it may not add
// headings (they would shift the document's anchors): a line that would
// start or underline a heading is escaped, and an unclosed code fence is
// closed.
func block(s string) string {
	var b strings.Builder
	blank, fenced := false, false
	for line := range strings.SplitSeq(strings.ReplaceAll(strings.TrimSpace(s), "\r\n", "\n"), "\n") {
		line = strings.TrimRightFunc(line, unicode.IsSpace)
		if line == "" {
			blank = true
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
			if blank {
				b.WriteByte('\n')
			}
		}
		blank = false
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fenced = !fenced
		case fenced:
		case strings.HasPrefix(trimmed, "#") || strings.Trim(trimmed, "= ") == "" || strings.Trim(trimmed, "- ") == "":
			line = `\` + trimmed
		}
		b.WriteString(line)
	}
	if fenced {
		b.WriteString("\n```")
	}
	return b.String()
}

// inline returns doc text on one line: paragraphs joined with "<br>", for
// table cells and list items.
func inline(s string) string {
	return strings.Join(paragraphs(s), "<br>")
}

// summary returns the first sentence of doc text, on one line.
func summary(s string) string {
	ps := paragraphs(s)
	if len(ps) == 0 {
		return ""
	}
	p := ps[0]
	for i := 0; i+2 < len(p); i++ {
		if p[i] == '.' && p[i+1] == ' ' && unicode.IsUpper(rune(p[i+2])) {
			return p[:i+1]
		}
	}
	return p
}

// sentence returns s with a final period unless it already ends with
// punctuation; it returns "" for an empty s.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s[len(s)-1:], ".!?:") {
		return s
	}
	return s + "."
}

// escape escapes the characters Markdown would otherwise interpret in
// literal text such as an error message or a role name. Identifiers are
// left alone: an underscore inside a word is not emphasis. Pipes are left
// to [cell], since they only matter in tables.
func escape(s string) string {
	if isIdent(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<~", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isIdent reports whether s is a letter followed by letters, digits and
// underscores.
func isIdent(s string) bool {
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r == '_' || r >= '0' && r <= '9')) {
			return false
		}
	}
	return s != ""
}

// code returns s as a Markdown code span, fenced by a run of backticks
// whose length no run inside s has.
func code(s string) string {
	runs := map[int]bool{}
	for i := 0; i < len(s); {
		n := 0
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		if n > 0 {
			runs[n] = true
			i += n
		} else {
			i++
		}
	}
	n := 1
	for runs[n] {
		n++
	}
	fence := strings.Repeat("`", n)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// cell makes s fit in one table cell: line breaks become spaces or
// "<br>", and pipes are escaped.
func cell(s string) string {
	s = inline(s)
	return strings.ReplaceAll(s, "|", `\|`)
}

// writeTable writes a Markdown table with the given header and rows; each
// cell goes through [cell].
func writeTable(b *strings.Builder, header []string, rows [][]string) {
	writeRow(b, header)
	b.WriteString("|")
	for range header {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		writeRow(b, r)
	}
	b.WriteString("\n")
}

// writeRow writes one table row.
func writeRow(b *strings.Builder, cells []string) {
	b.WriteString("|")
	for _, c := range cells {
		if c = cell(c); c != "" {
			b.WriteString(" " + c)
		}
		b.WriteString(" |")
	}
	b.WriteString("\n")
}

// slug returns the anchor GitHub gives a heading whose rendered text is
// text: lower case, without punctuation other than '-' and '_', spaces
// turned into '-'.
func slug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-', unicode.IsLetter(r), unicode.IsDigit(r), unicode.IsNumber(r),
			unicode.Is(unicode.Mn, r), unicode.Is(unicode.Mc, r), unicode.Is(unicode.Me, r),
			unicode.Is(unicode.Pc, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// slugger hands out unique anchors in document order, as GitHub does: the
// second heading with anchor "a" gets "a-1", the third "a-2".
type slugger struct {
	used map[string]bool
}

// anchor returns the unique anchor of the next heading, whose rendered text
// is text.
func (s *slugger) anchor(text string) string {
	if s.used == nil {
		s.used = map[string]bool{}
	}
	base := slug(text)
	a := base
	for i := 1; s.used[a]; i++ {
		a = base + "-" + strconv.Itoa(i)
	}
	s.used[a] = true
	return a
}
