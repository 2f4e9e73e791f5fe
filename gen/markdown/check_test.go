package markdown

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/rpcgen/rpcgen/idl"
)

// parsed is what the structural tests read from a generated document.
type parsed struct {
	headings []parsedHeading
	anchors  map[string]string // anchor → rendered heading text
	links    []parsedLink
	tables   [][][]string // table → row → cells (delimiter rows left out)
	blocks   []fence
}

type parsedHeading struct {
	level  int
	text   string // rendered text
	anchor string
}

type parsedLink struct {
	line   int
	text   string // rendered text
	anchor string
}

type fence struct {
	info string
	body string
}

var (
	headingRE = regexp.MustCompile(`^(#{1,6}) (.+)$`)
	linkRE    = regexp.MustCompile(`\[((?:[^\[\]\\]|\\.)*)\]\(#([^)\s]*)\)`)
	delimRE   = regexp.MustCompile(`^\|(?:---\|)+$`)
)

// parse reads headings, internal links, tables and fenced blocks from a
// Markdown document, the way GitHub would, for the subset the generator
// writes.
func parse(t *testing.T, doc string) *parsed {
	t.Helper()
	p := &parsed{anchors: map[string]string{}}
	occurrences := map[string]int{}
	lines := strings.Split(doc, "\n")
	var table [][]string
	var cells int
	endTable := func() {
		if table != nil {
			p.tables = append(p.tables, table)
			table = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if info, ok := strings.CutPrefix(line, "```"); ok {
			endTable()
			var body []string
			for i++; i < len(lines) && lines[i] != "```"; i++ {
				body = append(body, lines[i])
			}
			if i == len(lines) {
				t.Fatalf("unterminated code fence opened before line %d", len(lines))
			}
			p.blocks = append(p.blocks, fence{info, strings.Join(body, "\n")})
			continue
		}
		if strings.HasPrefix(line, "|") {
			row := splitRow(line)
			switch {
			case table == nil:
				if i+1 >= len(lines) || !delimRE.MatchString(lines[i+1]) {
					t.Errorf("line %d: table header without delimiter row: %q", i+1, line)
				}
				cells = len(row)
				table = [][]string{row}
			case delimRE.MatchString(line):
				if len(table) != 1 || len(row) != cells {
					t.Errorf("line %d: misplaced or mis-sized delimiter row", i+1)
				}
			default:
				if len(row) != cells {
					t.Errorf("line %d: row has %d cells, header has %d: %q", i+1, len(row), cells, line)
				}
				table = append(table, row)
			}
		} else {
			endTable()
		}
		if m := headingRE.FindStringSubmatch(line); m != nil {
			text := rendered(m[2])
			a := githubSlug(text)
			for base := a; ; {
				if _, used := occurrences[a]; !used {
					break
				}
				occurrences[base]++
				a = base + "-" + strconv.Itoa(occurrences[base])
			}
			occurrences[a] = 0
			p.headings = append(p.headings, parsedHeading{len(m[1]), text, a})
			p.anchors[a] = text
		}
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			p.links = append(p.links, parsedLink{i + 1, rendered(m[1]), m[2]})
		}
	}
	endTable()
	return p
}

// splitRow splits a table row into cells as GitHub does: a backslash
// escapes the next character, any other pipe separates cells.
func splitRow(line string) []string {
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line):
			cur.WriteByte(c)
			cur.WriteByte(line[i+1])
			i++
		case c == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	// The leading pipe makes an empty first piece; a trailing pipe ends the
	// last cell.
	if len(cells) > 0 {
		cells = cells[1:]
	}
	if rest := strings.TrimSpace(cur.String()); rest != "" {
		cells = append(cells, rest)
	}
	return cells
}

// rendered returns the text of inline Markdown as displayed: code spans
// without their backticks, escapes resolved, emphasis markers dropped.
func rendered(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			b.WriteByte(s[i+1])
			i += 2
		case c == '`':
			n := 0
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			fence := s[i : i+n]
			end := strings.Index(s[i+n:], fence)
			if end < 0 {
				b.WriteString(fence)
				i += n
				continue
			}
			content := s[i+n : i+n+end]
			if len(content) > 1 && content[0] == ' ' && content[len(content)-1] == ' ' {
				content = content[1 : len(content)-1]
			}
			b.WriteString(content)
			i += 2*n + end
		case c == '*':
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// githubSlug is GitHub's heading anchor: lower case, only letters, marks,
// numbers, connector punctuation, hyphens and spaces kept, spaces turned
// into hyphens.
func githubSlug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.Pc):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// proseLinks are link texts that deliberately differ from the heading
// they point to.
var proseLinks = map[string]bool{"standard errors": true, "default": true}

func TestLinksResolve(t *testing.T) {
	for _, in := range inputs(t) {
		_, doc := generate(t, in)
		p := parse(t, doc)
		if len(p.links) == 0 {
			t.Fatalf("%s: no internal links found", in)
		}
		for _, l := range p.links {
			text, ok := p.anchors[l.anchor]
			switch {
			case !ok:
				t.Errorf("%s:%d: link [%s](#%s) points to no heading", in, l.line, l.text, l.anchor)
			case text != l.text && !proseLinks[l.text]:
				t.Errorf("%s:%d: link [%s](#%s) points to heading %q", in, l.line, l.text, l.anchor, text)
			}
		}
	}
}

func TestAnchorsMatchPlan(t *testing.T) {
	for _, in := range inputs(t) {
		pr := load(t, in)
		d := newDoc(pr)
		d.write()
		if d.err != nil {
			t.Fatal(d.err)
		}
		p := parse(t, d.b.String())
		if len(p.headings) != len(d.headings) {
			t.Fatalf("%s: %d headings in the document, %d planned", in, len(p.headings), len(d.headings))
		}
		for i, h := range p.headings {
			if h.anchor != d.headings[i].anchor || h.level != d.headings[i].level {
				t.Errorf("%s: heading %q has anchor %q, level %d; planned %q, level %d", in, h.text, h.anchor, h.level, d.headings[i].anchor, d.headings[i].level)
			}
		}
	}
}

func TestTablesParse(t *testing.T) {
	for _, in := range inputs(t) {
		_, doc := generate(t, in)
		if p := parse(t, doc); len(p.tables) == 0 {
			t.Errorf("%s: no tables found", in)
		}
	}
}

// decode parses JSON text into a generic value.
func decode(t *testing.T, what, text string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%s: invalid JSON: %v\n%s", what, err, text)
	}
	return v
}

func TestExamplesParseAndAppear(t *testing.T) {
	for _, in := range inputs(t) {
		pr, doc := generate(t, in)
		p := parse(t, doc)
		var msgs []map[string]any
		for _, b := range p.blocks {
			switch b.info {
			case "json":
				v := decode(t, in, b.body)
				if m, ok := v.(map[string]any); ok && m["jsonrpc"] == "2.0" {
					msgs = append(msgs, m)
				}
			case "text":
				checkFramedExample(t, in, b.body)
			case "mermaid":
				checkSequence(t, in, pr, b.body)
			default:
				t.Errorf("%s: code block of unexpected kind %q", in, b.info)
			}
		}
		has := func(pred func(map[string]any) bool) bool {
			for _, m := range msgs {
				if pred(m) {
					return true
				}
			}
			return false
		}
		var methods []*idl.Method
		for _, m := range pr.Methods {
			methods = append(methods, m)
			if m.NotificationForm != nil {
				methods = append(methods, m.NotificationForm)
			}
		}
		for _, m := range methods {
			for i, ex := range m.Examples {
				var params any
				if ex.Params != nil {
					params = decode(t, m.Name, string(ex.Params.JSON))
				}
				if !has(func(msg map[string]any) bool {
					got, present := msg["params"]
					_, hasID := msg["id"]
					asRequest := m.Kind == "request" && (!m.AlsoNotification || ex.Result != nil || ex.Error != nil)
					return msg["method"] == m.Name && hasID == asRequest &&
						present == (ex.Params != nil) && equalJSON(got, params)
				}) {
					t.Errorf("%s: %s example %d: request not in the document", in, m.Name, i+1)
				}
				switch {
				case ex.Error != nil:
					if !has(func(msg map[string]any) bool {
						e, _ := msg["error"].(map[string]any)
						return e != nil && e["code"] == float64(ex.Error.Error.Code) && e["message"] == ex.Error.Message
					}) {
						t.Errorf("%s: %s example %d: error response not in the document", in, m.Name, i+1)
					}
				case m.Kind == "request":
					var result any
					if ex.Result != nil {
						result = decode(t, m.Name, string(ex.Result.JSON))
					}
					if !has(func(msg map[string]any) bool {
						got, ok := msg["result"]
						return ok && equalJSON(got, result)
					}) {
						t.Errorf("%s: %s example %d: response not in the document", in, m.Name, i+1)
					}
				}
			}
		}
	}
}

// equalJSON reports whether two decoded JSON values are equal.
func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// checkFramedExample checks a text block showing framed messages: every
// message line is JSON, and a Content-Length header counts the bytes of
// the body that follows.
func checkFramedExample(t *testing.T, in, body string) {
	t.Helper()
	lines := strings.Split(body, "\n")
	for i, line := range lines {
		if n, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strings.CutSuffix(n, `\r\n`)
			if i+2 >= len(lines) || lines[i+1] != `\r\n` {
				t.Errorf("%s: Content-Length header not followed by an empty line and a body", in)
				continue
			}
			if want, err := strconv.Atoi(n); err != nil || want != len(lines[i+2]) {
				t.Errorf("%s: Content-Length %s, body has %d bytes", in, n, len(lines[i+2]))
			}
			continue
		}
		if strings.HasPrefix(line, "{") {
			decode(t, in, line)
		}
	}
}

// firstCells returns the set of first cells of every table.
func firstCells(p *parsed) map[string]bool {
	out := map[string]bool{}
	for _, tb := range p.tables {
		for _, row := range tb[1:] {
			if len(row) > 0 {
				out[row[0]] = true
			}
		}
	}
	return out
}

func TestEverythingAppears(t *testing.T) {
	for _, in := range inputs(t) {
		pr, doc := generate(t, in)
		p := parse(t, doc)
		headings := map[string]int{}
		for _, h := range p.headings {
			headings[h.text]++
		}
		cells := firstCells(p)
		want := func(ok bool, format string, args ...any) {
			t.Helper()
			if !ok {
				t.Errorf("%s: "+format, append([]any{in}, args...)...)
			}
		}
		for _, m := range pr.Methods {
			want(headings[m.Name] > 0, "no section for method %s", m.Name)
			want(cells["[`"+strings.ReplaceAll(m.Name, "|", `\|`)+"`](#"+newDoc(pr).anchor(m)+")"], "method %s missing from the summary table", m.Name)
		}
		for _, e := range pr.Errors {
			want(headings[e.Name] > 0, "no section for error %s", e.Name)
			want(cells[strconv.FormatInt(e.Code, 10)], "error %s missing from the error tables", e.Name)
		}
		for _, def := range pr.Types {
			want(headings[def.Name] > 0, "no section for type %s", def.Name)
			tp := def.Type
			for _, f := range tp.Fields {
				want(cells[strings.ReplaceAll(code(f.Name), "|", `\|`)], "field %s.%s missing from the tables", def.Name, f.Name)
			}
			for _, v := range tp.Values {
				want(cells[strings.ReplaceAll(code(enumJSON(v)), "|", `\|`)], "value %v of %s missing from the tables", v.Value, def.Name)
			}
			for _, v := range tp.Variants {
				if v.Tag != "" {
					want(cells[code(jsonString(v.Tag))], "variant %s of %s missing from the tables", v.Tag, def.Name)
				}
			}
		}
		for _, tr := range pr.Transports {
			want(cells[code(string(tr.Kind))], "transport %s missing", tr.Kind)
		}
		for _, r := range pr.Roles {
			want(cells["**"+escape(r.Name)+"**"], "role %s missing from the overview", r.Name)
		}
	}
}
