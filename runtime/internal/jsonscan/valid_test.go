package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzValid checks Valid against json.Valid, and that CheckValue ends a
// valid value where SkipValue does.
func FuzzValid(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"text":"a\"b\\\\c\u00e9\ud83d\ude00"}}`,
		`[1,-0.5e+3,true,false,null,{},[],{"a":[{"b":""}]}]`,
		` "x" `, `{"a":1,}`, `[1,]`, `{"a" 1}`, `01`, `1.`, `-`, `1e`, `"\x"`, "\"\x01\"", `"\u12G4"`,
		`{"a":1}}`, `[[[]]`, `tru`, `nulll`, "\"\xff\xfe\"", `{"a":"12345678\"12345678"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := 0; i <= len(b); i++ {
			if got, want := PlainRun(b, i), naivePlainRun(b, i); got != want {
				t.Fatalf("PlainRun(%q, %d) = %d, want %d", b, i, got, want)
			}
		}
		want := json.Valid(b)
		if got := Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid says %v", b, got, want)
		}
		if !want {
			return
		}
		i := SkipSpace(b, 0)
		end, ok := CheckValue(b, i)
		if !ok || end != SkipValue(b, i) {
			t.Fatalf("CheckValue(%q) = %d, %v; SkipValue ends at %d", b, end, ok, SkipValue(b, i))
		}
	})
}

// TestValidDepth checks the nesting limit is encoding/json's, both ways.
func TestValidDepth(t *testing.T) {
	for _, depth := range []int{1, 63, 64, 65, 300, MaxDepth - 1, MaxDepth, MaxDepth + 1, 3 * MaxDepth} {
		for _, open := range []string{"[", `{"a":`} {
			closing := "]"
			if open != "[" {
				closing = "}"
			}
			b := []byte(strings.Repeat(open, depth) + "1" + strings.Repeat(closing, depth))
			if got, want := Valid(b), json.Valid(b); got != want {
				t.Errorf("depth %d of %q: Valid = %v, json.Valid = %v", depth, open, got, want)
			}
		}
	}
}

// TestPlainRun checks the eight- and sixteen-byte tests against a
// byte-by-byte one for every byte value in every position.
func TestPlainRun(t *testing.T) {
	for _, n := range []int{7, 8, 15, 16, 24, 33} {
		for pos := 0; pos < n; pos++ {
			for c := 0; c < 256; c++ {
				b := []byte(strings.Repeat("abcdefgh", 5)[:n])
				b[pos] = byte(c)
				want := n
				if c < 0x20 || c == '"' || c == '\\' {
					want = pos
				}
				if got := PlainRun(b, 0); got != want {
					t.Fatalf("byte %#x at %d of %d: PlainRun = %d, want %d", c, pos, n, got, want)
				}
			}
		}
	}
}

// naivePlainRun is PlainRun byte by byte.
func naivePlainRun(b []byte, i int) int {
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c == '"' || c == '\\' {
			return i
		}
	}
	return i
}

// TestPlainRunFirstOfTwo puts two special bytes in the same words:
// PlainRun finds the first.
func TestPlainRunFirstOfTwo(t *testing.T) {
	specials := []byte{0, 0x1f, '"', '\\'}
	for _, n := range []int{8, 16, 24} {
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				for _, c := range specials {
					for _, d := range specials {
						b := []byte(strings.Repeat("\x80bcdefgh", 3)[:n])
						b[p], b[q] = c, d
						if got := PlainRun(b, 0); got != p {
							t.Fatalf("%q: PlainRun = %d, want %d", b, got, p)
						}
					}
				}
			}
		}
	}
}

// FuzzUnquoteString checks UnquoteString against encoding/json: the same
// text for every valid literal, and false for anything else.
func FuzzUnquoteString(f *testing.F) {
	for _, s := range []string{
		`"plain ascii"`, `"caf\u00e9 \"q\" \\ \/ \b\f\n\r\t"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00\ud83d"`,
		`"\ud83d\u0041"`, `"\ud83dx"`, "\"\xff\xc3(\"", `"Привет, 世界 🙂"`, `"\u0000"`, `"a"b"`, `"\"`, `"`, `abc`,
		"\"\x1f\"", `"\q"`, `"\u12"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := UnquoteString(b)
		var want string
		err := json.Unmarshal(b, &want)
		valid := err == nil && len(b) > 0 && b[0] == '"' && b[len(b)-1] == '"'
		if ok != valid {
			t.Fatalf("UnquoteString(%q) ok = %v; encoding/json: %q, %v", b, ok, want, err)
		}
		if ok && got != want {
			t.Fatalf("UnquoteString(%q) = %q, encoding/json gives %q", b, got, want)
		}
	})
}

// TestSkipString checks escaped quotes and runs of backslashes, also
// where escapes are dense (JSON text in a string) and cross the eight-byte
// words SkipString then reads, and where they stop for a long plain run.
func TestSkipString(t *testing.T) {
	dense := `{\"query\":\"memory leak\",\"hits\":[{\"id\":1,\"title\":\"a \\\"b\\\" c\"}]}`
	for _, s := range []string{`""`, `"a"`, `"\""`, `"\\"`, `"\\\""`, `"\\\\"`, `"x\\\"y\\"`,
		`"` + dense + `"`, `"\"` + strings.Repeat("a", 7) + `\\"`, `"\"` + strings.Repeat("a", 8) + `\\"`,
		`"\"` + strings.Repeat("a", 6) + `\"\\\\\\"`, `"\"` + strings.Repeat(`\\`, 9) + `"`,
		`"\"` + strings.Repeat("plain text ", 10) + `\"` + strings.Repeat("x", 100) + `"`,
		`"\"abcdefg\\` + `"`, `"\"abcdef\\\"` + `"`} {
		for _, after := range []string{`,"z"`, `,"\"z"`, ""} {
			b := []byte(s + after)
			if got := SkipString(b, 0); got != len(s) {
				t.Errorf("SkipString(%s) = %d, want %d", b, got, len(s))
			}
		}
		if end, ok := CheckString([]byte(s), 0); !ok || end != len(s) {
			t.Errorf("%s is not one valid string literal (%d, %v)", s, end, ok)
		}
	}
}

// FuzzSkipString checks SkipString against CheckString on every valid
// string literal, followed by nothing or by more JSON.
func FuzzSkipString(f *testing.F) {
	for _, s := range []string{`"a\"b"`, `"\"\\\"\\\\\"x\"y"`, `"\"` + strings.Repeat(`ab\"`, 20) + `"`, `"\"` + strings.Repeat("abcdefgh", 6) + `\\\""`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] != '"' {
			return
		}
		end, ok := CheckString(b, 0)
		if !ok {
			return
		}
		if got := SkipString(b, 0); got != end {
			t.Fatalf("SkipString(%q) = %d, want %d", b, got, end)
		}
		more := append(b[:end:end], `,"\\\"z"]`...)
		if got := SkipString(more, 0); got != end {
			t.Fatalf("SkipString(%q) = %d, want %d", more, got, end)
		}
	})
}

// TestUnquoteOneAllocation: a literal with escapes is decoded into one
// buffer that becomes the string, so it costs one allocation however
// many escapes, surrogates or non-ASCII runs it holds. Only invalid
// UTF-8, each byte of which becomes three, may grow the buffer once.
func TestUnquoteOneAllocation(t *testing.T) {
	long := strings.Repeat("text with no escapes, ", 20)
	for _, tc := range []struct {
		literal string
		allocs  float64
	}{
		{`"{\"query\":\"memory leak\",\"total\":1225,\"hits\":[{\"id\":4000}]}"`, 1},
		{`"caf\u00e9 \"q\" \\ \/ \b\f\n\r\t"`, 1},
		{`"\ud83d\ude00 and a lone \ud83d"`, 1},
		{`"Привет, 世界 🙂\n` + long + `\t"`, 1},
		{`"` + long + `\"` + long + `"`, 1},
		{"\"ab\xffc\\n\"", 2},
	} {
		b := []byte(tc.literal)
		if n := testing.AllocsPerRun(50, func() { _, _ = UnquoteString(b) }); n > tc.allocs {
			t.Errorf("UnquoteString(%.40q…): %v allocations, want %v", tc.literal, n, tc.allocs)
		}
	}
}
