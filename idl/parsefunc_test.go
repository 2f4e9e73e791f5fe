package idl

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseFunc reads included files through the function given, never
// from disk.
func TestParseFunc(t *testing.T) {
	files := map[string]string{
		filepath.Join("virtual", "lib", "common.yaml"): "types:\n  Ping: {fields: {seq: integer}}\n",
	}
	var asked []string
	read := func(path string) ([]byte, error) {
		asked = append(asked, path)
		if src, ok := files[path]; ok {
			return []byte(src), nil
		}
		return nil, fs.ErrNotExist
	}
	root := `protocol:
  name: demo
  roles: {client: The caller., server: The callee.}
  framing: ndjson
include: [lib/common.yaml]
methods:
  ping: {from: client, kind: request, params: Ping}
`
	p, err := ParseFunc(filepath.Join("virtual", "demo.yaml"), []byte(root), read)
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0] != filepath.Join("virtual", "lib", "common.yaml") {
		t.Errorf("read asked for %q", asked)
	}
	if p.Methods[0].Params.Ref.Name != "Ping" || p.Types[0].Pos.File != filepath.Join("virtual", "lib", "common.yaml") {
		t.Errorf("Ping not read from the included file: %+v", p.Types[0])
	}
	_, err = ParseFunc(filepath.Join("virtual", "demo.yaml"), []byte(strings.Replace(root, "lib/common", "lib/missing", 1)), read)
	if err == nil || !strings.Contains(err.Error(), `included file "lib/missing.yaml" does not exist`) {
		t.Errorf("missing include: %v", err)
	}
}
