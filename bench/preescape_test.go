package bench

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// ceilingStrings are strings the ceiling's codec must carry unchanged.
var ceilingStrings = []string{
	"", "plain", `"quoted" \ back\slash`, "line\nfeed\ttab\rreturn\x00\x01\x1f", "<a href=\"x\">&amp;</a>",
	"sep\u2028arator\u2029", "Привет, 世界 🚀", escapeText(300, 3), sourceFile(2000),
}

// TestCeilingCodec checks that what appendEscaped writes decodes with
// encoding/json to the original, and that unescape reads what encoding/json
// writes (which escapes <, >, & and U+2028 as \u sequences).
func TestCeilingCodec(t *testing.T) {
	for _, s := range ceilingStrings {
		checkCeilingCodec(t, s)
	}
}

func checkCeilingCodec(t *testing.T, s string) {
	t.Helper()
	enc := appendEscaped([]byte{'"'}, s)
	enc = append(enc, '"')
	var back string
	if err := json.Unmarshal(enc, &back); err != nil || back != s {
		t.Errorf("appendEscaped(%q) = %s, which decodes to %q, %v", s, enc, back, err)
	}
	if got := unescape(enc[1 : len(enc)-1]); got != s {
		t.Errorf("unescape(appendEscaped(%q)) = %q", s, got)
	}
	std, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := unescape(std[1 : len(std)-1]); got != s {
		t.Errorf("unescape(%s) = %q, want %q", std, got, s)
	}
}

// FuzzCeilingCodec checks the ceiling's codec on any valid UTF-8 text.
func FuzzCeilingCodec(f *testing.F) {
	for _, s := range ceilingStrings[:7] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // encoding/json would replace the invalid bytes
		}
		checkCeilingCodec(t, s)
	})
}

// TestPayloads checks that the rows' payloads hold what they promise.
func TestPayloads(t *testing.T) {
	esc := escapeText(1<<10, 0)
	for _, c := range escapeSpecials {
		if !strings.Contains(esc, c) {
			t.Errorf("the escape text lacks %q", c)
		}
	}
	doc := sourceDocument(1)
	if n := len(doc.Text); n < 100_000 || n > 101_000 || !utf8.ValidString(doc.Text) {
		t.Errorf("the didOpen source is %d bytes (valid UTF-8: %v), want about 100 KB", n, utf8.ValidString(doc.Text))
	}
	for _, c := range []string{"вычисляет", "計算", "处理", "🚀", `\"`, `\\`, "\t"} {
		if !strings.Contains(doc.Text, c) {
			t.Errorf("the didOpen source lacks %q", c)
		}
	}
}
