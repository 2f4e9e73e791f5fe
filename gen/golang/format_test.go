package golang

import (
	"bytes"
	"go/format"
	"reflect"
	"sync/atomic"
	"testing"
)

// TestFormatPiecesSameBytes checks that formatting the files of every test
// IDL and of a synthetic protocol in pieces gives the bytes formatting
// them whole gives, and that every cut lies between top-level
// declarations (none falls back to formatting whole). The pieces are
// small, so that each file is cut many times.
func TestFormatPiecesSameBytes(t *testing.T) {
	types, methods := 60, 30
	if !raceEnabled {
		types, methods = 300, 100
	}
	protocols := testProtocols(t, types, methods)
	for name, p := range protocols {
		var cut atomic.Int32
		both := func(src []byte) ([]byte, error) {
			want, err := format.Source(src)
			if err != nil {
				return nil, err
			}
			pieces := cutTopLevel(src, 2<<10)
			if len(pieces) < 2 {
				return want, nil
			}
			got, ok := formatPieces(pieces)
			switch {
			case !ok:
				t.Errorf("%s: a file cut in %d pieces was not formatted in pieces", name, len(pieces))
			case !bytes.Equal(got, want):
				t.Errorf("%s: formatted in %d pieces, a file differs from the file formatted whole", name, len(pieces))
			}
			cut.Add(1)
			return want, nil
		}
		if _, err := generateWith(p, Options{}, passes{format: both, split: splitCodec}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if cut.Load() == 0 && name == "synthetic" {
			t.Errorf("%s: no file was cut", name)
		}
	}
}

// TestFormatPiecesCutElsewhere checks that a source cut inside a function
// body, a raw string or a comment is formatted whole, as go/format
// formats it, and that cuts between declarations, doc comments and a
// floating comment give the same bytes too.
func TestFormatPiecesCutElsewhere(t *testing.T) {
	for name, src := range map[string]string{
		"body":       "package p\n\nfunc f() {\nx := 1\n\nfunc() {}()\n_ = x\n}\n\nfunc g() {}\n",
		"raw string": "package p\n\nvar s = `a\n\nfunc f() {}\n`\n\nvar t = 1\n",
		"comment":    "package p\n\n/* a\n\nfunc f() {}\n*/\n\nvar t = 1\n",
		"top level":  "package p\n\nimport \"fmt\"\n\nvar   a   = 1 // one\n\n// Doc of g.\nfunc g() { fmt.Println( a ) }\n\n// floating\n\ntype T struct{A int `json:\"a\"`\nBee string}\n\n\nconst (\nx = 1\nyy = 2\n)\n",
	} {
		want, err := format.Source([]byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pieces := cutTopLevel([]byte(src), 1)
		if len(pieces) < 2 {
			t.Fatalf("%s: not cut", name)
		}
		got, err := formatSource([]byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: formatSource gives\n%s\nwant\n%s", name, got, want)
		}
		joined, ok := formatPieces(pieces)
		if topLevel := name == "top level"; ok != topLevel {
			t.Errorf("%s: formatted in pieces: %v, want %v", name, ok, topLevel)
		}
		if ok && !bytes.Equal(joined, want) {
			t.Errorf("%s: formatted in pieces gives\n%s\nwant\n%s", name, joined, want)
		}
		if string(bytes.Join(pieces, []byte("\n"))) != src {
			t.Errorf("%s: the pieces joined by a newline are not the source", name)
		}
	}
}

// TestFlushSameBytes checks that rendering a file's declarations a few at
// a time, as they are added, gives the bytes rendering it whole gives, on
// every test IDL and a synthetic protocol.
func TestFlushSameBytes(t *testing.T) {
	for name, p := range testProtocols(t, 120, 60) {
		whole, err := generateWith(p, Options{}, passes{format: formatSource, split: splitCodec})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, every := range []int{1, 7} {
			for _, parts := range []bool{false, true} {
				var whole2 atomic.Int32
				format := func(src []byte) ([]byte, error) {
					whole2.Add(1)
					return formatSource(src)
				}
				got, err := generateWith(p, Options{}, passes{format: format, split: splitCodec, flushEvery: every, formatParts: parts})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if len(got) != len(whole) {
					t.Fatalf("%s, every %d, parts %v: %d files, want %d", name, every, parts, len(got), len(whole))
				}
				for i := range got {
					if got[i].Path != whole[i].Path || !bytes.Equal(got[i].Content, whole[i].Content) {
						t.Errorf("%s, every %d, parts %v: %s differs from the file rendered whole", name, every, parts, got[i].Path)
					}
				}
				// Flushed at every declaration, no file is formatted
				// whole: every part formatted on its own.
				if n := whole2.Load(); parts && every == 1 && n != 0 {
					t.Errorf("%s, every %d: %d files formatted whole, want 0", name, every, n)
				}
			}
		}
	}
}

// TestJoinPartsFallsBackWhole checks that a file a part of which does not
// format on its own (a cut inside a function body) is formatted whole,
// with the same bytes.
func TestJoinPartsFallsBackWhole(t *testing.T) {
	head := []byte("// Code generated. DO NOT EDIT.\n\npackage p\n\nimport (\n\t\"fmt\"\n)\n")
	raw := []string{"\nfunc f() {\n\tfmt.Println( 1)\n", "\n\tfmt.Println(2 )\n}\n", "\nvar  x = 1\n"}
	var src []byte
	var parts []*part
	for _, r := range raw {
		src = append(src, r...)
		parts = append(parts, startPart([]byte(r), linkSet{}, true))
	}
	want, err := format.Source(append(append([]byte(nil), head...), src...))
	if err != nil {
		t.Fatal(err)
	}
	whole := 0
	got, top, err := joinParts(head, parts, linkSet{}, func(src []byte) ([]byte, error) {
		whole++
		return formatSource(src)
	})
	if err != nil {
		t.Fatal(err)
	}
	if whole != 1 || top != nil {
		t.Errorf("formatted whole %d times, want 1; scanned %v, want nil", whole, top)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestJoinPartsScansAsWhole checks that the declarations joinParts puts
// together from the scans of a file's parts are what scanning the joined
// file finds, on the files the codec is split from (every test IDL and a
// synthetic protocol), cut into parts of about 2 KiB.
func TestJoinPartsScansAsWhole(t *testing.T) {
	for name, p := range testProtocols(t, 60, 30) {
		sources, err := splitSources(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, src := range sources {
			pieces := cutTopLevel(src, 2<<10)
			var parts []*part
			for _, piece := range pieces[1:] {
				parts = append(parts, startPart(piece, linkSet{}, true))
			}
			got, top, err := joinParts(pieces[0], parts, linkSet{}, formatSource)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !bytes.Equal(got, src) {
				t.Fatalf("%s: the joined parts are not the file", name)
			}
			want, err := scanDecls(src)
			if err != nil {
				t.Fatal(err)
			}
			if top == nil || !reflect.DeepEqual(*top, want) {
				t.Errorf("%s: the parts' declarations differ from the file's (%d pieces)", name, len(pieces))
			}
		}
	}
}
