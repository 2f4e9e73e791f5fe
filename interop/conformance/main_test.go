package conformance_test

import (
	"testing"

	"github.com/rpcgen/rpcgen/internal/exampletest"
)

// bin holds the programs the tests talk to, built once by TestMain.
var bin struct {
	specserver, extension, runtime, agent string
}

// TestMain builds the programs, then runs the tests under goleak.
func TestMain(m *testing.M) {
	exampletest.Main(m, map[string]*string{
		"./internal/specserver":           &bin.specserver,
		"../../examples/hermes/extension": &bin.extension,
		"../../examples/supex/runtime":    &bin.runtime,
		"../../examples/autohand/agent":   &bin.agent,
	})
}
