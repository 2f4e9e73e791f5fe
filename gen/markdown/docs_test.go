package markdown

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/idl"
)

// shipped returns the protocols the repository ships, protocols/*.yaml.
func shipped(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "protocols", "*.yaml"))
	if err != nil || len(files) < 6 {
		t.Fatalf("found %d shipped protocols (%v)", len(files), err)
	}
	return files
}

// allInputs returns the test inputs and the shipped protocols.
func allInputs(t *testing.T) []string { return append(inputs(t), shipped(t)...) }

var arrowRE = regexp.MustCompile(`^    (R[01])(->>|-->>|-\))(R[01]): (.+)$`)

// checkSequence checks a lifecycle diagram against the protocol: the two
// roles in order, every request and notification declared and sent by the
// role that sends it in the diagram, every answer right after its request
// and going back.
func checkSequence(t *testing.T, in string, p *idl.Protocol, body string) {
	t.Helper()
	lines := strings.Split(body, "\n")
	want := []string{"sequenceDiagram", "    participant R0 as " + p.Roles[0].Name, "    participant R1 as " + p.Roles[1].Name}
	if len(lines) < 3 || !slices.Equal(lines[:3], want) {
		t.Errorf("%s: diagram starts %q, want %q", in, lines[:min(3, len(lines))], want)
		return
	}
	role := map[string]string{"R0": p.Roles[0].Name, "R1": p.Roles[1].Name}
	var prev []string // the previous arrow: from, arrow, to
	for _, line := range lines[3:] {
		if line == "    Note over R0,R1: session established" {
			if p.Handshake == nil {
				t.Errorf("%s: session established without a handshake", in)
			}
			prev = nil
			continue
		}
		a := arrowRE.FindStringSubmatch(line)
		if a == nil || a[1] == a[3] {
			t.Errorf("%s: diagram line %q is not an arrow between the two roles", in, line)
			continue
		}
		from, arrow, to, text := a[1], a[2], a[3], a[4]
		if arrow == "-->>" {
			if prev == nil || prev[1] != "->>" || prev[0] != to || prev[2] != from {
				t.Errorf("%s: answer %q follows no request going the other way", in, line)
			}
			prev = nil
			continue
		}
		m := p.Method(text)
		switch {
		case m == nil:
			t.Errorf("%s: diagram sends %q, which the IDL does not declare", in, text)
		case !m.SentBy(role[from]):
			t.Errorf("%s: diagram has %s send %q, which the IDL has %s send", in, role[from], text, m.From)
		case (arrow == "->>") != (m.Kind == idl.Request):
			t.Errorf("%s: %q drawn with %s but is a %s", in, text, arrow, m.Kind)
		}
		prev = a[1:4]
	}
}

// sequenceOf returns the body of the one Mermaid block of a document.
func sequenceOf(t *testing.T, in, doc string) string {
	t.Helper()
	var bodies []string
	for _, b := range parse(t, doc).blocks {
		if b.info == "mermaid" {
			bodies = append(bodies, b.body)
		}
	}
	if len(bodies) != 1 {
		t.Fatalf("%s: %d Mermaid blocks, want 1", in, len(bodies))
	}
	return bodies[0]
}

func TestSequenceEveryProtocol(t *testing.T) {
	for _, in := range allInputs(t) {
		p, doc := generate(t, in)
		checkSequence(t, in, p, sequenceOf(t, in, doc))
		if i, j := strings.Index(doc, "```mermaid"), strings.Index(doc, "\n## Methods"); i < strings.Index(doc, "\n## Lifecycle") || i > j {
			t.Errorf("%s: the diagram is not in the Lifecycle section", in)
		}
	}
}

func TestSequenceMCP(t *testing.T) {
	in := filepath.Join("..", "..", "protocols", "mcp.yaml")
	_, doc := generate(t, in)
	want := `sequenceDiagram
    participant R0 as client
    participant R1 as server
    R0->>R1: initialize
    R1-->>R0: InitializeResult
    R0-)R1: notifications/initialized
    Note over R0,R1: session established
    R0->>R1: resources/list
    R1-->>R0: ListResourcesResult
    R1->>R0: sampling/createMessage
    R0-->>R1: CreateMessageResponse`
	if got := sequenceOf(t, in, doc); got != want {
		t.Errorf("MCP diagram:\n%s\nwant:\n%s", got, want)
	}
}

func TestSequenceShutdownAndExit(t *testing.T) {
	for name, want := range map[string][]string{
		"lsp": {
			"    R0->>R1: initialize", "    R0-)R1: initialized", "    Note over R0,R1: session established",
			"    R0->>R1: shutdown", "    R1-->>R0: null", "    R0-)R1: exit",
		},
		"reginald": {"    R0->>R1: handshake", "    R0->>R1: shutdown", "    R0-)R1: exit"},
		"hermes":   {"    R0->>R1: initialize", "    R0->>R1: shutdown", "    R1-->>R0: ShutdownResult"},
	} {
		in := filepath.Join("..", "..", "protocols", name+".yaml")
		_, doc := generate(t, in)
		lines := strings.Split(sequenceOf(t, in, doc), "\n")
		at := 0
		for _, w := range want {
			i := slices.Index(lines[at:], w)
			if i < 0 {
				t.Errorf("%s: diagram lacks %q after line %d:\n%s", name, w, at, strings.Join(lines, "\n"))
				break
			}
			at += i + 1
		}
		if lines[len(lines)-1] != want[len(want)-1] {
			t.Errorf("%s: diagram ends with %q, want %q", name, lines[len(lines)-1], want[len(want)-1])
		}
	}
}

func TestFollowsHandshake(t *testing.T) {
	for _, c := range []struct {
		note, handshake string
		want            bool
	}{
		{"initialized", "initialize", true},
		{"notifications/initialized", "initialize", true},
		{"helloed", "hello", true},
		{"initialize", "initialize", false},
		{"notifications/cancelled", "initialize", false},
		{"initialized", "x/", false},
	} {
		if got := followsHandshake(c.note, c.handshake); got != c.want {
			t.Errorf("followsHandshake(%q, %q) = %v", c.note, c.handshake, got)
		}
	}
}

func TestMermaidText(t *testing.T) {
	if got := mermaidText("a#b;c\nd"); got != "a#35;b#59;c d" {
		t.Errorf("mermaidText = %q", got)
	}
}

// contentsAnchors returns the anchors the contents list links to: the
// links between the Contents label and the first section.
func contentsAnchors(t *testing.T, in, doc string) map[string]bool {
	t.Helper()
	start := strings.Index(doc, "\n**Contents**\n")
	end := strings.Index(doc, "\n## ")
	if start < 0 || end < start {
		t.Fatalf("%s: no contents before the first section", in)
	}
	anchors := map[string]bool{}
	for _, m := range linkRE.FindAllStringSubmatch(doc[start:end], -1) {
		anchors[m[2]] = true
	}
	return anchors
}

func TestContentsReachesEveryHeading(t *testing.T) {
	for _, in := range allInputs(t) {
		_, doc := generate(t, in)
		p := parse(t, doc)
		got := contentsAnchors(t, in, doc)
		for a := range got {
			if _, ok := p.anchors[a]; !ok {
				t.Errorf("%s: contents links to #%s, which no heading has", in, a)
			}
		}
		for _, h := range p.headings {
			if h.level > 1 && !got[h.anchor] {
				t.Errorf("%s: contents does not reach heading %q (#%s)", in, h.text, h.anchor)
			}
		}
	}
}

var anyLinkRE = regexp.MustCompile(`\[((?:[^\[\]\\]|\\.)*)\]\([^)\s]*\)`)

// shownParagraphs returns the paragraphs of a document as displayed: blocks
// between blank lines, each list item on its own, leaving out code
// blocks, tables and headings.
func shownParagraphs(doc string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, rendered(anyLinkRE.ReplaceAllString(strings.Join(cur, " "), "$1")))
			cur = nil
		}
	}
	fenced := false
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			fenced = !fenced
			flush()
		case fenced:
		case line == "", strings.HasPrefix(line, "|"), strings.HasPrefix(line, "#"):
			flush()
		case strings.HasPrefix(line, "- "):
			flush()
			cur = []string{line[2:]}
		default:
			cur = append(cur, line)
		}
	}
	flush()
	return out
}

// checkRepeats reports every paragraph of prose longer than 80 characters
// that a document holds more than twice. A paragraph without a space (a
// bare link) is not prose.
func checkRepeats(t *testing.T, in, doc string) {
	t.Helper()
	seen := map[string]int{}
	for _, p := range shownParagraphs(doc) {
		if len(p) > 80 && strings.Contains(p, " ") {
			seen[p]++
		}
	}
	for p, n := range seen {
		if n > 2 {
			t.Errorf("%s: paragraph written %d times: %.120q", in, n, p)
		}
	}
}

func TestNoRepeatedParagraph(t *testing.T) {
	for _, in := range allInputs(t) {
		_, doc := generate(t, in)
		checkRepeats(t, in, doc)
	}
	committed, err := filepath.Glob(filepath.Join("..", "..", "generated", "*", "README.md"))
	if err != nil || len(committed) < 6 {
		t.Fatalf("found %d generated references (%v)", len(committed), err)
	}
	for _, f := range committed {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkRepeats(t, f, string(b))
	}
}

func TestParagraphs(t *testing.T) {
	doc := "# T\n\nOne [link](#a) and `code`\nwrapped.\n\n- item **one**\n- item two\n\n```json\n{}\n```\n\n| a |\n|---|\n| b |\n"
	want := []string{"One link and code wrapped.", "item one", "item two"}
	if got := shownParagraphs(doc); !slices.Equal(got, want) {
		t.Errorf("shownParagraphs = %q, want %q", got, want)
	}
}
