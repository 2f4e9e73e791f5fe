package idl

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeExample loads the complete example of README.md.
func TestReadmeExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "```yaml\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("no yaml block in README.md")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "common.yaml"), []byte("types:\n  Common: string\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "supex.yaml")
	if err := os.WriteFile(path, []byte(example), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Method("hello") == nil || p.Type("Common") == nil {
		t.Error("example lost its hello method or included type")
	}
}

// TestColumns checks positions inside compact types written in every
// YAML quoting style.
func TestColumns(t *testing.T) {
	head := "protocol: {name: x, roles: {a: , b: }, framing: ndjson}\ntypes:\n"
	tests := []struct {
		line string
		col  int
	}{
		{`  A: map<1, string>`, 10},
		{`  A: "map<1, string>"`, 11},
		{`  A: 'map<1, string>'`, 11},
		{`  A: 'x | ''y'' | map<1, x>'`, 23},
		{`  A: "a\tb"`, 10},
		{`  A: "aé | x"`, 8},
		{`  A: "'é' | map<1, x>"`, 17},
		{"  A:\n    type: \"[]map<1, x>\"", 0},
	}
	for _, tt := range tests {
		_, err := parse("t.yaml", []byte(head+tt.line+"\n"), os.ReadFile)
		var errs Errors
		if !errors.As(err, &errs) || len(errs) == 0 {
			t.Errorf("%s: no error", tt.line)
			continue
		}
		line, col := 3, tt.col
		if col == 0 {
			line, col = 4, 18
		}
		if e := errs[0]; e.Pos.Line != line || e.Pos.Col != col {
			t.Errorf("%s: error at %v (%s), want %d:%d", tt.line, e.Pos, e.Msg, line, col)
		}
	}
}

func TestErrorsFormat(t *testing.T) {
	var l errorList
	l.add(Pos{"b.yaml", 1, 1}, "third")
	l.add(Pos{"a.yaml", 2, 5}, "second")
	l.add(Pos{"a.yaml", 2, 1}, "first")
	l.add(Pos{"a.yaml", 2, 1}, "first")
	want := "a.yaml:2:1: first\na.yaml:2:5: second\nb.yaml:1:1: third"
	if got := l.sorted().Error(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if (&errorList{}).sorted() != nil {
		t.Error("no errors should give nil")
	}
}

func TestTypeString(t *testing.T) {
	p, err := Load("testdata/valid/mcp.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]string{
		"RequestId":    "string | integer",
		"Role":         "'user' | 'assistant'",
		"ContentBlock": "TextContent | ImageContent | ResourceLink",
		"TextContent":  "object",
	}
	for name, want := range tests {
		if got := p.Type(name).Type.String(); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if got := p.Type("TextContent").Type.Field("type").Type.String(); got != "'text'" {
		t.Errorf("const: %q", got)
	}
	if got := p.Type("Annotations").Type.Field("audience").Type.String(); got != "[]Role" {
		t.Errorf("array: %q", got)
	}
}

func TestRoleGoName(t *testing.T) {
	p, err := Load("testdata/valid/hermes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := [2]string{p.Roles[0].GoName, p.Roles[1].GoName}
	if want := [2]string{"Host", "Extension"}; got != want {
		t.Errorf("role Go names %v, want %v", got, want)
	}
	if p.Roles[0].Doc != "The editor; it starts each extension as a child process." {
		t.Errorf("role doc %q", p.Roles[0].Doc)
	}
}
