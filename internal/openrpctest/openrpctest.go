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

// Generate loads the IDL file at path, below the repository's top
// directory root, and returns its OpenRPC document as rpcgen generate
// writes it from root (its header naming the file relative to root).
func Generate(t testing.TB, root, path string) []byte {
	t.Helper()
	p, err := idl.Load(path)
	if err != nil {
		t.Fatalf("loading %s: %v", path, err)
	}
	if rel, err := filepath.Rel(root, path); err == nil && len(p.Files) > 0 {
		p.Files[0] = filepath.ToSlash(rel)
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
