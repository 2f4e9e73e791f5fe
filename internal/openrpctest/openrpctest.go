// Package openrpctest holds what the tests of OpenRPC documents share:
// which IDL files of the repository generate one, and generating it.
package openrpctest

import (
	"path/filepath"
	"testing"

	"github.com/rpcgen/rpcgen/gen/openrpc"
	"github.com/rpcgen/rpcgen/idl"
)

// IDLFiles lists every IDL file of the repository, whose top directory is
// root, that generates: the shipped protocols, the benchmark's and the
// IDL test data.
func IDLFiles(t testing.TB, root string) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"protocols/*.yaml", "bench/*.yaml", "idl/testdata/full.yaml", "idl/testdata/valid/*.yaml"} {
		m, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pattern)))
		if err != nil || len(m) == 0 {
			t.Fatalf("no IDL file matches %s (%v)", pattern, err)
		}
		files = append(files, m...)
	}
	return files
}

// Generate loads the IDL file at path and returns its OpenRPC document.
func Generate(t testing.TB, path string) []byte {
	t.Helper()
	p, err := idl.Load(path)
	if err != nil {
		t.Fatalf("loading %s: %v", path, err)
	}
	files, err := openrpc.Generate(p)
	if err != nil {
		t.Fatalf("generating %s: %v", path, err)
	}
	if len(files) != 1 || files[0].Path != openrpc.FileName {
		t.Fatalf("generating %s: got %d files, want one %s", path, len(files), openrpc.FileName)
	}
	return files[0].Content
}
