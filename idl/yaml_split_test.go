package idl

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// splitInputs returns every IDL of testdata and every adversarial input,
// with a name.
func splitInputs(t *testing.T) map[string][]byte {
	t.Helper()
	in := map[string][]byte{}
	files, err := filepath.Glob("testdata/*/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("testdata/*.yaml")
	proto, _ := filepath.Glob("../protocols/*.yaml")
	for _, f := range append(append(files, more...), proto...) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in[f] = src
	}
	for _, c := range adversarial() {
		in[c.name] = c.src
	}
	in["wide"] = manyTypes(300)
	in["tricky"] = []byte(`protocol:
  name: x
  roles: {a: , b: }
  framing: ndjson
  transports:
  - stdio
  - kind: tcp
    port: 80
    host: h
  doc: |
    a: b
    c: d
# a comment at column 1
types:
  A:
    fields:
      a: string
# a comment at column 1 inside the fields
      b: "integer"
      'c': {type: string,
        doc: "x"}
      d:
        type: string
        doc: a plain scalar
          on two lines
      e: [x, y]
  B: "'p' | 'q'"
  C:
    - one
    - two
  D:
  - three
  - four
  E: {fields: {x: A, y?: B}}
errors:
  Bad: {code: 1, message: m}
  Worse:
    code: 2
    message: >
      folded
      text
methods:
  m:
    from: a
    kind: request
    params: A
    examples:
      - params: {a: s, b: 1, c: t, d: u, e: x}
        result: null
      - params:
          a: s
          b: 1
          c: t
          d: u
          e: y
        result: null
`)
	in["tricky_bad"] = append(in["tricky"], "  n:\n    from: a\n  kind: x\n   bad: [\n"...)
	return in
}

// TestSplitSameResult checks that cutting mappings into pieces of any size
// changes nothing: every input gives the same protocol or the same errors
// as when it is parsed whole.
func TestSplitSameResult(t *testing.T) {
	defer func(n int) { chunkKeys = n }(chunkKeys)
	for name, src := range splitInputs(t) {
		chunkKeys = 1 << 30
		want, wantErr := Parse(name, src)
		for _, n := range []int{1, 2, 3, 7} {
			chunkKeys = n
			got, err := Parse(name, src)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Errorf("%s, pieces of %d keys: errors\n%.3000v\nwant\n%.3000v", name, n, err, wantErr)
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, pieces of %d keys: the protocol differs", name, n)
			}
		}
	}
}

// FuzzSplit checks on any input what TestSplitSameResult checks on known
// ones: parsing in pieces of one or two keys gives what parsing whole
// gives, except that a YAML syntax error may be found elsewhere (the
// parser reports the first one it meets, and a piece may hide the context
// of the first one).
func FuzzSplit(f *testing.F) {
	f.Add([]byte(validHead + "types:\n  A: string\n  B:\n    fields:\n      a: A\n      b?: integer\n"))
	f.Add([]byte("a:\n  b: 1\n  c:\n  - x\n  d: 2\n# c\ne: 3\n"))
	f.Add([]byte("- a: 1\n  b: 2\n  c: 3\n- d\n"))
	noFiles := func(string) ([]byte, error) { return nil, fs.ErrNotExist }
	f.Fuzz(func(t *testing.T, src []byte) {
		defer func(n int) { chunkKeys = n }(chunkKeys)
		chunkKeys = 1 << 30
		want, wantErr := parse("f.yaml", src, noFiles)
		for _, n := range []int{1, 2} {
			chunkKeys = n
			got, err := parse("f.yaml", src, noFiles)
			if syntaxErr := "YAML syntax error"; strings.Contains(fmt.Sprint(wantErr), syntaxErr) {
				if !strings.Contains(fmt.Sprint(err), syntaxErr) {
					t.Fatalf("pieces of %d keys: errors\n%.2000v\nwant a YAML syntax error:\n%.2000v", n, err, wantErr)
				}
				continue
			}
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("pieces of %d keys: errors\n%.2000v\nwant\n%.2000v", n, err, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("pieces of %d keys: the protocol differs", n)
			}
		}
	})
}
