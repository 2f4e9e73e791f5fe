package gen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/idl"
)

// TestSource checks how headers name the IDL file: as given, with forward
// slashes; an absolute path relative to the working directory; a path
// with a newline quoted, so that it cannot end the comment holding it.
func TestSource(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ file, want string }{
		{filepath.Join("protocols", "mcp.yaml"), "protocols/mcp.yaml"},
		{filepath.Join("..", "protocols", "mcp.yaml"), "../protocols/mcp.yaml"},
		{filepath.Join(wd, "testdata", "x.yaml"), "testdata/x.yaml"},
		{filepath.Join(filepath.Dir(wd), "protocols", "mcp.yaml"), "../protocols/mcp.yaml"},
		{"a\nb.yaml", `"a\nb.yaml"`},
	} {
		p := &idl.Protocol{Files: []string{tt.file}}
		if got := Source(p); got != tt.want {
			t.Errorf("Source(%q) = %q, want %q", tt.file, got, tt.want)
		}
	}
	p := &idl.Protocol{Files: []string{"a-->b.yaml"}}
	if h := MarkdownHeader(p); strings.Count(h, "-->") != 1 || !strings.HasSuffix(h, " -->\n") {
		t.Errorf("MarkdownHeader = %q; want one comment, closed at its end", h)
	}
	for _, l := range GoHeader(&idl.Protocol{Files: []string{"a\nb.yaml"}}) {
		if !strings.HasPrefix(l, "// ") || strings.Contains(l, "\n") {
			t.Errorf("GoHeader line %q is not one comment line", l)
		}
	}
}
