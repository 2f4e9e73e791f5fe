package jsonrpc

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncate(t *testing.T) {
	long := strings.Repeat("é", MaxEchoBytes) // 2 bytes each
	cases := []struct {
		name, in, want string
	}{
		{"short", "initialize", "initialize"},
		{"exactly the limit", strings.Repeat("a", MaxEchoBytes), strings.Repeat("a", MaxEchoBytes)},
		{"over the limit", strings.Repeat("a", MaxEchoBytes+1), strings.Repeat("a", MaxEchoBytes) + "… (257 bytes)"},
		{"cut at a rune boundary", long, strings.Repeat("é", MaxEchoBytes/2) + "… (512 bytes)"},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
	}
	for _, c := range cases {
		got := Truncate(c.in)
		if got != c.want {
			t.Errorf("%s: Truncate = %q, want %q", c.name, got, c.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("%s: Truncate returned invalid UTF-8 %q", c.name, got)
		}
	}
	huge := strings.Repeat("x", 10<<20)
	if got := Truncate(huge); len(got) > MaxEchoBytes+32 {
		t.Errorf("Truncate of 10 MiB returned %d bytes", len(got))
	}
}
