// Package exampletest runs the end-to-end tests of the example programs:
// it builds the programs once, runs the tests under goleak, and cleans up.
package exampletest

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// Main builds each example program of bins, a map from a package
// directory relative to the test's package (such as "./host") or an import
// path to the
// variable that receives the path of its binary, then runs the tests,
// fails them if a goroutine leaked, removes the binaries and exits with
// the tests' status. Call it from TestMain.
func Main(m *testing.M, bins map[string]*string) {
	dir, err := os.MkdirTemp("", "rpcgen-example-")
	if err == nil {
		err = build(dir, bins)
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

// build compiles the packages of bins into dir, in a fixed order.
func build(dir string, bins map[string]*string) error {
	for _, pkg := range slices.Sorted(maps.Keys(bins)) {
		// Named after the whole path: ../../examples/hermes/host and
		// ../../examples/reginald/host must not collide.
		out := filepath.Join(dir, strings.ReplaceAll(strings.TrimLeft(filepath.ToSlash(pkg), "./"), "/", "-"))
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			return fmt.Errorf("building the example %s: %w\n%s", pkg, err, b)
		}
		*bins[pkg] = out
	}
	return nil
}
