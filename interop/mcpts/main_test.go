// Package mcpts_test runs rpcgen's MCP examples against the official MCP
// TypeScript SDK and its reference server, installed with npm ci from this
// directory's package-lock.json. See README.md.
package mcpts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rpcgen/rpcgen/internal/exampletest"
)

// proxyFlag, as the test binary's first argument, makes it the recording
// proxy of proxy_test.go instead of running the tests.
const proxyFlag = "-mcpts.proxy"

// The example binaries, built once by TestMain.
var serverBin, clientBin string

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == proxyFlag {
		os.Exit(proxyMain(os.Args[2:]))
	}
	exampletest.Main(m, map[string]*string{
		"github.com/rpcgen/rpcgen/examples/mcp/server": &serverBin,
		"github.com/rpcgen/rpcgen/examples/mcp/client": &clientBin,
	})
}

// needNode fails the test unless node and this directory's npm packages
// are installed; it returns the absolute path of node_modules.
func needNode(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is not on PATH (%v): install Node.js 20 or newer, then run npm ci in interop/mcpts", err)
	}
	dir, err := filepath.Abs("node_modules")
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"@modelcontextprotocol/sdk", "@modelcontextprotocol/server-everything"} {
		if _, err := os.Stat(filepath.Join(dir, pkg, "package.json")); err != nil {
			t.Fatalf("the npm package %s is not installed (%v): run npm ci in interop/mcpts", pkg, err)
		}
	}
	return dir
}

// proxyCommand returns the command line that runs command behind the
// recording proxy, which writes the traffic to logPath.
func proxyCommand(t *testing.T, logPath string, command ...string) []string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatalf("finding the test binary: %v", err)
	}
	return append([]string{self, proxyFlag, logPath}, command...)
}
