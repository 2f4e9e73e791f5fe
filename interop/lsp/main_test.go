// Package lsp_test runs LSP 3.17 peers nobody on this project wrote
// against the runtime: the real gopls, driven over stdio, and a Node client
// on vscode-languageserver-protocol (installed with npm ci from this
// directory's package-lock.json). See README.md.
package lsp_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/exampletest"
)

// goplsVersion is the gopls `make gopls` installs (GOPLS_VERSION in the
// Makefile; TestMakefilePinsGopls keeps the two equal).
const goplsVersion = "v0.23.0"

// wait bounds every wait for a peer; gopls, which loads and type-checks
// packages first, gets goplsWait.
const (
	wait      = 10 * time.Second
	goplsWait = 60 * time.Second
)

// gopls is the path of the gopls binary; here is this directory;
// notesServer is the example notes server, built by TestMain.
var gopls, here, notesServer string

func TestMain(m *testing.M) {
	if err := setup(); err != nil {
		fmt.Fprintln(os.Stderr, "interop/lsp:", err)
		os.Exit(1)
	}
	exampletest.Main(m, map[string]*string{"../../examples/lsp/server": &notesServer})
}

// setup finds node, the npm packages and gopls; a missing one is a
// failure, never a skip.
func setup() error {
	var err error
	if here, err = filepath.Abs("."); err != nil {
		return err
	}
	if _, err := exec.LookPath("node"); err != nil {
		return fmt.Errorf("node is not installed (Node 20 or later is needed): %w", err)
	}
	if _, err := os.Stat(filepath.Join(here, "node_modules", "vscode-languageserver-protocol", "package.json")); err != nil {
		return fmt.Errorf("vscode-languageserver-protocol is not installed: run npm ci in %s (%v)", here, err)
	}
	gopls = os.Getenv("RPCGEN_GOPLS")
	if gopls == "" {
		gopls = filepath.Join(here, "..", "..", "bin", "gopls-"+goplsVersion, "gopls")
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	out, err := exec.CommandContext(ctx, gopls, "version").CombinedOutput()
	if err != nil {
		return fmt.Errorf("gopls %s is not installed at %s: run make gopls (%v %s)", goplsVersion, gopls, err, bytes.TrimSpace(out))
	}
	if !bytes.Contains(out, []byte("golang.org/x/tools/gopls "+goplsVersion)) {
		return fmt.Errorf("%s is not gopls %s: run make gopls (gopls version says %q)", gopls, goplsVersion, out)
	}
	return nil
}

// The Makefile installs the gopls these tests look for.
func TestMakefilePinsGopls(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join(here, "..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\nGOPLS_VERSION := " + goplsVersion + "\n",
		"\nGOPLS         := bin/gopls-$(GOPLS_VERSION)/gopls\n",
		"\nunit: deps gopls\n",
	} {
		if !bytes.Contains(mk, []byte(want)) {
			t.Errorf("the Makefile has no line %q: interop/lsp looks for gopls %s in bin/gopls-%[2]s/, built before the tests run", strings.TrimSpace(want), goplsVersion)
		}
	}
}
