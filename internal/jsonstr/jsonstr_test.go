package jsonstr

import (
	"bytes"
	"encoding/json"
	"testing"
)

var samples = []string{
	"", "plain", `quote " and \ backslash`, "<a href='x'>&amp;</a>", "tab\tnew\nline\r\b\f\x00\x1f\x7f",
	"caf\u00e9 \u2028 \u2029 \U0001F600", "bad \xff\xfe utf-8 \xe2\x82", "\u2027\u202a",
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

// FuzzAppend checks Append against encoding/json on any string.
func FuzzAppend(f *testing.F) {
	for _, s := range samples {
		f.Add(s)
	}
	f.Fuzz(check)
}
