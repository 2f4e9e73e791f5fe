package markdown

import (
	"strings"
	"testing"
	"time"
)

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Framing and transport": "framing-and-transport",
		"items/get":             "itemsget",
		"$/cancelRequest":       "cancelrequest",
		"full.initialize":       "fullinitialize",
		"odd*name_":             "oddname_",
		"full protocol 1.2.3":   "full-protocol-123",
		"Ünïcode Name":          "ünïcode-name",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSluggerDeduplicates(t *testing.T) {
	var s slugger
	var got []string
	for _, h := range []string{"Item", "item", "Item", "item-1", "Types"} {
		got = append(got, s.anchor(h))
	}
	if want := "item item-1 item-2 item-1-1 types"; strings.Join(got, " ") != want {
		t.Errorf("anchors = %q, want %q", got, want)
	}
}

func TestEscapeAndCell(t *testing.T) {
	for in, want := range map[string]string{
		"plug_in":           "plug_in",
		"Message *bold*":    `Message \*bold\*`,
		"a_b c":             `a\_b c`,
		"<tag> [x]":         `\<tag> \[x\]`,
		"pipes | stay here": "pipes | stay here",
	} {
		if got := escape(in); got != want {
			t.Errorf("escape(%q) = %q, want %q", in, got, want)
		}
	}
	if got, want := cell("a | b\nc\n\nd"), `a \| b c<br>d`; got != want {
		t.Errorf("cell = %q, want %q", got, want)
	}
}

func TestCode(t *testing.T) {
	for in, want := range map[string]string{
		"x":    "`x`",
		"a`b":  "``a`b``",
		"`x`":  "`` `x` ``",
		"a``b": "`a``b`",
	} {
		if got := code(in); got != want {
			t.Errorf("code(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBlock(t *testing.T) {
	in := "  First line.  \n# not a heading\nText\n---\n\n\n```\n# code\n"
	want := "First line.\n\\# not a heading\nText\n\\---\n\n```\n# code\n```"
	if got := block(in); got != want {
		t.Errorf("block = %q, want %q", got, want)
	}
}

func TestSummary(t *testing.T) {
	for in, want := range map[string]string{
		"":                                "",
		"One sentence.":                   "One sentence.",
		"First one. Second one.":          "First one.",
		"Uses e.g. commas. Then":          "Uses e.g. commas.",
		"Wrapped\nline. Next.\n\nAnother": "Wrapped line.",
	} {
		if got := summary(in); got != want {
			t.Errorf("summary(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDuration(t *testing.T) {
	for in, want := range map[time.Duration]string{
		500 * time.Millisecond: "500ms",
		10 * time.Second:       "10s",
		2 * time.Minute:        "2m",
		90 * time.Second:       "1m30s",
		time.Hour:              "1h",
		90 * time.Minute:       "1h30m",
	} {
		if got := duration(in); got != want {
			t.Errorf("duration(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestCommandLine(t *testing.T) {
	got := commandLine("my agent", []string{"--stdio", "", "it's", "-v=2"})
	if want := `'my agent' --stdio '' 'it'\''s' -v=2`; got != want {
		t.Errorf("commandLine = %q, want %q", got, want)
	}
}
