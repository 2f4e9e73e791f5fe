package lsp

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

var (
	update = flag.Bool("update", false, "rewrite testdata/fixture.yaml and the committed LSP IDL")
	strip  = flag.String("strip", "", "rewrite testdata/metaModel.json from this metaModel.json, documentation removed")
)

const (
	// metaModelFile is the LSP 3.17 meta model, structure only.
	metaModelFile = "testdata/metaModel.json"
	// committedIDL is the IDL the importer writes from metaModelFile: the
	// shipped LSP protocol.
	committedIDL = "../../protocols/lsp.yaml"
)

func importFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Import(data)
	if err != nil {
		t.Fatalf("import %s: %v", path, err)
	}
	return out
}

// golden compares got with the file at path, or rewrites it with -update.
func golden(t *testing.T, path string, got []byte, how string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run %s)", err, how)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run %s\n%s", path, how, firstDiff(want, got))
	}
}

// firstDiff shows the first line where want and got differ.
func firstDiff(want, got []byte) string {
	w, g := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl []byte
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if !bytes.Equal(wl, gl) {
			return "line " + itoa(i+1) + ":\n  want: " + string(wl) + "\n  got:  " + string(gl)
		}
	}
	return ""
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestFixture imports a small meta model that uses every construct of the
// meta model once and compares the IDL with testdata/fixture.yaml.
func TestFixture(t *testing.T) {
	golden(t, "testdata/fixture.yaml", withSchema("../../../idl/rpcgen-idl.schema.json", importFile(t, "testdata/fixture.json")), "go test ./importer/lsp -run TestFixture -update")
}

// TestLSPFresh is the freshness check: importing the committed 3.17 meta
// model reproduces the committed IDL byte for byte.
func TestLSPFresh(t *testing.T) {
	golden(t, committedIDL, withSchema("../idl/rpcgen-idl.schema.json", importFile(t, metaModelFile)), "go test ./importer/lsp -run TestLSPFresh -update")
}

// withSchema puts before idl the line that `rpcgen import -schema ref`
// writes, which points editors at the IDL's JSON Schema: the committed
// files carry it, relative to where they are.
func withSchema(ref string, idl []byte) []byte {
	return append([]byte("# yaml-language-server: $schema="+ref+"\n"), idl...)
}

// TestDeterministic imports the same meta model several times, from
// freshly parsed copies, and expects the same bytes each time.
func TestDeterministic(t *testing.T) {
	for _, path := range []string{"testdata/fixture.json", metaModelFile} {
		first := importFile(t, path)
		for range 5 {
			if again := importFile(t, path); !bytes.Equal(first, again) {
				t.Fatalf("%s: two imports differ:\n%s", path, firstDiff(first, again))
			}
		}
	}
}

// TestStrippedMetaModel checks that the committed meta model carries
// structure only: no documentation, and since holds a bare version.
func TestStrippedMetaModel(t *testing.T) {
	data, err := os.ReadFile(metaModelFile)
	if err != nil {
		t.Fatal(err)
	}
	if regexp.MustCompile(`"documentation"\s*:`).Match(data) {
		t.Errorf("%s holds documentation; rewrite it with -strip", metaModelFile)
	}
	bare := regexp.MustCompile(`^\d+\.\d+\.\d+$`)
	for _, m := range regexp.MustCompile(`"since": ?"([^"]*)"`).FindAllSubmatch(data, -1) {
		if !bare.Match(m[1]) {
			t.Errorf("%s: since %q is not a bare version; rewrite it with -strip", metaModelFile, m[1])
		}
	}
}

// TestStrip rewrites testdata/metaModel.json from a full meta model when
// run with -strip path/to/metaModel.json.
func TestStrip(t *testing.T) {
	if *strip == "" {
		t.Skip("rewrites testdata/metaModel.json when run with -strip FILE")
	}
	data, err := os.ReadFile(*strip)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	c := &converter{}
	v = stripDocs(c, v)
	if len(c.errs) > 0 {
		t.Fatal(c.errs)
	}
	out, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.FromSlash(metaModelFile), append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// stripDocs drops every documentation member and keeps only the version
// of every since.
func stripDocs(c *converter, v any) any {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "documentation")
		for k, x := range v {
			if s, ok := x.(string); ok && k == "since" {
				v[k] = c.since(s)
				continue
			}
			v[k] = stripDocs(c, x)
		}
	case []any:
		for i, x := range v {
			v[i] = stripDocs(c, x)
		}
	}
	return v
}
