package depcheck

import (
	"os/exec"
	"strings"
	"testing"
)

// module is this repository's module path.
const module = "github.com/rpcgen/rpcgen"

func TestRuntimeAndGeneratedCodeUseOnlyTheStandardLibrary(t *testing.T) {
	pkgs := []string{
		"../../runtime/...",
		"../../gen/golang/internal/e2e", // a generated package
	}
	args := append([]string{"list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}"}, pkgs...)
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := 0
	for _, dep := range strings.Fields(string(out)) {
		seen++
		if !strings.HasPrefix(dep, module+"/runtime/") && !strings.HasPrefix(dep, module+"/gen/golang/internal/e2e") &&
			dep != module+"/internal/jsonstr" { // standard library only, shared with the generator
			t.Errorf("non-standard dependency %s", dep)
		}
	}
	if seen == 0 {
		t.Fatal("go list found no packages: wrong paths?")
	}
}
