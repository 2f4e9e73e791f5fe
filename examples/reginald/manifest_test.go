package reginald_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	sjs "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/rpcgen/rpcgen/generated/reginald"
)

// validManifest checks data against the generated Manifest schema.
func validManifest(t *testing.T, data []byte) {
	t.Helper()
	c := sjs.NewCompiler()
	c.DefaultDraft(sjs.Draft2020)
	abs, err := filepath.Abs(filepath.Join("..", "..", "generated", "reginald", "schema", "Manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(abs)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := sjs.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("the Manifest schema refuses %s: %v", data, err)
	}
}

// The manifest of Reginald's example plugin plugins/go (its descriptions
// left out) fits the Manifest schema and decodes into the generated types,
// its task config telling a union of alternatives from a mapped value and
// a plain value as Reginald does.
func TestUpstreamManifest(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "upstream", "plugins-go-manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	validManifest(t, data)
	var m reginald.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if m.Name != "reginald-go" || m.Domain != "go" || m.Executable != "reginald-go" || len(m.Config) != 2 || m.Config[0].Flag == nil {
		t.Fatalf("manifest %+v", m)
	}
	if len(m.Tasks) != 1 || len(m.Tasks[0].Config) != 1 || m.Tasks[0].Config[0].UnionValue == nil {
		t.Fatalf("tasks %+v", m.Tasks)
	}
	alts := m.Tasks[0].Config[0].UnionValue.Alternatives
	if len(alts) != 3 || alts[0].ConfigValue == nil || alts[1].ConfigValue == nil || alts[2].MappedValue == nil || len(alts[2].MappedValue.Values) != 2 {
		t.Errorf("alternatives %+v", alts)
	}
}

// The manifest our plugin prints fits the schema too.
func TestPluginManifest(t *testing.T) {
	data, err := exec.Command(bin.plugin, "-manifest").Output()
	if err != nil {
		t.Fatal(err)
	}
	validManifest(t, data)
}
