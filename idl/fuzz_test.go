package idl

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics and that every error it reports
// about the input points inside it.
func FuzzParse(f *testing.F) {
	f.Add([]byte("protocol:\n  name: x\n  roles: {a: , b: }\n  framing: ndjson\n"))
	f.Add([]byte("types:\n  T: \"'a' | 'b'\"\n"))
	f.Add([]byte("protocol:\n  name: x\n  roles: {a: , b: }\n  framing: ndjson\n  handshake: hi\nmethods:\n  hi: {from: a, kind: request, result: string}\n  bye: {from: a, kind: notification}\n"))
	f.Add([]byte("protocol:\n  name: x\n  roles: {a: , b: }\n  framing: ndjson\n  ignore_unknown_notifications: [\"$/\"]\nmethods:\n  s: {from: a, kind: [request, notification], params?: \"[]integer\", result: \"null\"}\n"))
	f.Add([]byte("types:\n  L: {fields: {uri: string}}\n  K: {fields: {target: string}}\n  D: L | []L\n  R: D | []K | []string | []any\n  S: \"[]L | []L\"\n"))
	noFiles := func(string) ([]byte, error) { return nil, fs.ErrNotExist }
	f.Fuzz(func(t *testing.T, src []byte) {
		_, err := parse("fuzz.yaml", src, noFiles)
		if err == nil {
			return
		}
		var errs Errors
		if !errors.As(err, &errs) {
			t.Fatalf("Parse returned %T (%v); want Errors", err, err)
		}
		if len(errs) == 0 {
			t.Fatal("Parse returned an empty Errors")
		}
		lines := strings.Split(string(src), "\n")
		for _, e := range errs {
			if e.Pos.File != "fuzz.yaml" {
				t.Fatalf("%v: error about another file", e)
			}
			if e.Pos.Line < 1 || e.Pos.Line > len(lines) {
				t.Fatalf("%v: line outside the input (%d lines)", e, len(lines))
			}
			line := strings.TrimSuffix(lines[e.Pos.Line-1], "\r")
			if n := len([]rune(line)); e.Pos.Col < 1 || e.Pos.Col > n+1 {
				t.Fatalf("%v: column outside line %d (%d characters)", e, e.Pos.Line, n)
			}
			if e.Msg == "" {
				t.Fatalf("%v: empty message", e)
			}
		}
	})
}
