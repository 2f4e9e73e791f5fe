package mcpconformance_test

import (
	"testing"

	"github.com/rpcgen/rpcgen/internal/exampletest"
)

// The versions package.json pins: the suite, and the Node.js that runs it
// (the suite needs Node 22; the machine's may be older).
const (
	suiteVersion = "0.1.16"
	nodeVersion  = "22.23.3"
)

// serverBin is examples/mcp/conformance, built by TestMain.
var serverBin string

// bins are the programs TestMain builds before the tests run, by package
// (an import path or a directory relative to this one); other test files
// add theirs in an init function.
var bins = map[string]*string{
	"../../examples/mcp/conformance": &serverBin,
}

// TestMain builds the programs, then runs the tests under goleak.
func TestMain(m *testing.M) {
	exampletest.Main(m, bins)
}
