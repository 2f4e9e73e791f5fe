package jsonstr

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

var samples = []string{
	"", "plain", `quote " and \ backslash`, "<a href='x'>&amp;</a>", "tab\tnew\nline\r\b\f\x00\x1f\x7f",
	"caf\u00e9 \u2028 \u2029 \U0001F600", "bad \xff\xfe utf-8 \xe2\x82", "\u2027\u202a",
	// Three-byte sequences: overlong, a surrogate, the separators' neighbours,
	// truncated, and longer runs of plain text around an escape.
	"\xe0\x9f\xbf \xe0\xa0\x80 \xed\xa0\x80 \xed\x9f\xbf \xe2\x80\xa7\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xaa \xef\xbf\xbf \xe2\x80",
	"abcdefgh<ijklmnop\x7f\x80qrstuvwx\"yz0123456789&", "\xc2\x80\xdf\xbf\xc1\xbf\xc2 \U0001F600\xf0\x9f\x98",
}

// marshal is what encoding/json writes for s.
func marshal(t *testing.T, s string, escapeHTML bool) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

func check(t *testing.T, s string) {
	for _, html := range []bool{true, false} {
		if got, want := string(Append([]byte("x"), s, html)), "x"+marshal(t, s, html); got != want {
			t.Fatalf("Append(%q, escapeHTML=%v) = %s, encoding/json writes %s", s, html, got, want)
		}
	}
}

func TestAppendMatchesEncodingJSON(t *testing.T) {
	for _, s := range samples {
		check(t, s)
	}
}

// TestEveryByteEveryLane checks Append against encoding/json for every
// byte value in every position of a run of plain text longer than two
// words, so that each lane of the word-at-a-time scan sees each byte.
func TestEveryByteEveryLane(t *testing.T) {
	plain := []byte(strings.Repeat("a", 40))
	for c := range 256 {
		for pos := range len(plain) {
			s := append([]byte(nil), plain...)
			s[pos] = byte(c)
			check(t, string(s))
		}
	}
}

// FuzzAppend checks Append against encoding/json on any string.
func FuzzAppend(f *testing.F) {
	for _, s := range samples {
		f.Add(s)
	}
	f.Fuzz(check)
}

// benchText is text for BenchmarkAppend: plain ASCII, ASCII with one
// character in eight needing escaping, and prose in Cyrillic and CJK.
var benchText = map[string]string{
	"ascii":   strings.Repeat("The quick brown fox jumps over the lazy dog. ", 1500),
	"escape":  strings.Repeat("quote\" back\\ nl\n <tag> & ", 2500),
	"unicode": strings.Repeat("Съешь же ещё этих мягких булок 日本語のテキスト, ", 800),
}

func BenchmarkAppend(b *testing.B) {
	for _, name := range []string{"ascii", "escape", "unicode"} {
		s := benchText[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			buf := make([]byte, 0, 2*len(s)+2)
			for b.Loop() {
				buf = Append(buf[:0], s, true)
			}
		})
	}
}
