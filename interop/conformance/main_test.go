package conformance_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// bin holds the programs the tests talk to, built once by TestMain.
var bin struct {
	specserver, extension, runtime, agent string
}

// TestMain builds the programs, then runs the tests under goleak. It does
// what examples/internal/exampletest.Main does: that package is internal
// to examples/ and cannot be imported from here.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rpcgen-conformance-")
	if err == nil {
		err = build(dir, []target{
			{"./internal/specserver", &bin.specserver},
			{"../../examples/hermes/extension", &bin.extension},
			{"../../examples/supex/runtime", &bin.runtime},
			{"../../examples/autohand/agent", &bin.agent},
		})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		os.RemoveAll(dir)
		os.Exit(code)
	}))
}

type target struct {
	pkg string
	out *string
}

func build(dir string, targets []target) error {
	for _, tg := range targets {
		out := filepath.Join(dir, filepath.Base(tg.pkg))
		if b, err := exec.Command("go", "build", "-o", out, tg.pkg).CombinedOutput(); err != nil {
			return fmt.Errorf("building %s: %w\n%s", tg.pkg, err, b)
		}
		*tg.out = out
	}
	return nil
}
