package openrpc_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rpcgen/rpcgen/gen/openrpc"
	"github.com/rpcgen/rpcgen/internal/openrpctest"
)

var update = flag.Bool("update", false, "rewrite testdata/full.json and generated/<name>/openrpc.json")

// document is one IDL file and where its document is committed.
type document struct {
	name, idl, committed string
}

// documents lists the shipped protocols, whose documents make generate
// writes to generated/<name>/openrpc.json, and full.yaml, which uses
// every IDL feature, with its document in testdata/.
func documents(t *testing.T) []document {
	t.Helper()
	root := filepath.Join("..", "..")
	shipped, err := filepath.Glob(filepath.Join(root, "protocols", "*.yaml"))
	if err != nil || len(shipped) == 0 {
		t.Fatalf("no protocols/*.yaml (%v)", err)
	}
	list := []document{{"full", filepath.Join(root, "idl", "testdata", "full.yaml"), filepath.Join("testdata", "full.json")}}
	for _, path := range shipped {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		list = append(list, document{name, path, filepath.Join(root, "generated", name, openrpc.FileName)})
	}
	return list
}

// generated holds the document of each IDL file once generated, for the
// tests that only read it.
var generated = struct {
	sync.Mutex
	docs map[string][]byte
}{docs: map[string][]byte{}}

// cached returns the document of the IDL file at path, generating it
// the first time.
func cached(t *testing.T, path string) []byte {
	t.Helper()
	generated.Lock()
	defer generated.Unlock()
	doc, ok := generated.docs[path]
	if !ok {
		doc = openrpctest.Generate(t, filepath.Join("..", ".."), path)
		generated.docs[path] = doc
	}
	return doc
}

func TestCommittedDocumentsAreFresh(t *testing.T) {
	for _, d := range documents(t) {
		t.Run(d.name, func(t *testing.T) {
			got := cached(t, d.idl)
			if *update {
				if err := os.WriteFile(d.committed, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(d.committed)
			if err != nil {
				t.Fatalf("%v (run make generate, or go test ./gen/openrpc -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is stale: run make generate, or go test ./gen/openrpc -update", d.committed)
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	for _, d := range documents(t) {
		t.Run(d.name, func(t *testing.T) {
			if !bytes.Equal(openrpctest.Generate(t, filepath.Join("..", ".."), d.idl), openrpctest.Generate(t, filepath.Join("..", ".."), d.idl)) {
				t.Error("two runs generate different documents")
			}
		})
	}
}

func TestGenerateRefusesNil(t *testing.T) {
	if _, err := openrpc.Generate(nil); err == nil {
		t.Error("Generate(nil) returned no error")
	}
}
