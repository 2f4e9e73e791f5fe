package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkGenerateProtocols times `rpcgen generate` (load, Go, JSON
// Schemas, Markdown, write) of every protocol rpcgen ships; an op is all of
// them.
func BenchmarkGenerateProtocols(b *testing.B) {
	files, err := filepath.Glob("../../protocols/*.yaml")
	if err != nil || len(files) == 0 {
		b.Fatalf("no protocols found: %v", err)
	}
	out := b.TempDir()
	for b.Loop() {
		for _, f := range files {
			generate(b, f, filepath.Join(out, strings.TrimSuffix(filepath.Base(f), ".yaml")))
		}
	}
}

// BenchmarkGenerateSynthetic times `rpcgen generate` of a synthetic protocol
// of 500 types and 200 methods.
func BenchmarkGenerateSynthetic(b *testing.B) {
	dir := b.TempDir()
	idlPath := filepath.Join(dir, "synthetic.yaml")
	if err := os.WriteFile(idlPath, syntheticIDL(500, 200), 0o644); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	generate(b, idlPath, out) // fails early if the IDL is invalid
	goFiles, _ := filepath.Glob(filepath.Join(out, "*.go"))
	if len(goFiles) == 0 {
		b.Fatal("the synthetic protocol generated no Go files")
	}
	for b.Loop() {
		generate(b, idlPath, out)
	}
}

// generate runs `rpcgen generate -out out idl` and fails b if it fails.
func generate(b *testing.B, idl, out string) {
	var stdout, stderr bytes.Buffer
	if status := run([]string{"generate", "-out", out, idl}, &stdout, &stderr); status != exitOK {
		b.Fatalf("rpcgen generate %s = %d: %s", idl, status, stderr.String())
	}
}

// syntheticIDL returns a protocol of types named types and methods requests
// and notifications in both directions. Types mix scalars, lists, maps,
// optional and nullable fields, references to earlier types and enums.
func syntheticIDL(types, methods int) []byte {
	var s strings.Builder
	s.WriteString(`protocol:
  name: synthetic
  version: 1.0.0
  doc: A large generated protocol to time the generator.
  roles:
    client: Starts the connection.
    server: Answers it.
  framing: content-length
  timeout: 5s
types:
`)
	for i := range types {
		if i%10 == 9 {
			fmt.Fprintf(&s, "  T%d: \"'red%d' | 'green%d' | 'blue%d'\"\n", i, i, i, i)
			continue
		}
		fmt.Fprintf(&s, "  T%d:\n    doc: Synthetic type %d.\n    fields:\n", i, i)
		fmt.Fprintf(&s, "      id: integer\n      name: {type: string, doc: The name of %d.}\n", i)
		fmt.Fprintf(&s, "      tags: \"[]string\"\n      score?: number\n      note: string?\n")
		fmt.Fprintf(&s, "      attrs?: \"map<string, integer>\"\n")
		if i > 0 {
			fmt.Fprintf(&s, "      prev?: T%d\n      many?: \"[]T%d\"\n", i-1, (i-1)/2)
		}
	}
	s.WriteString("methods:\n")
	for i := range methods {
		from := "client"
		if i%2 == 1 {
			from = "server"
		}
		param := fmt.Sprintf("T%d", (i*7)%types)
		if (i*7)%types%10 == 9 { // an enum cannot be params: wrap it
			param = fmt.Sprintf("{fields: {value: T%d}}", (i*7)%types)
		}
		if i%5 == 4 {
			fmt.Fprintf(&s, "  event/m%d:\n    from: %s\n    kind: notification\n    doc: Notification %d.\n    params: %s\n", i, from, i, param)
			continue
		}
		fmt.Fprintf(&s, "  call/m%d:\n    from: %s\n    kind: request\n    doc: Request %d.\n    params: %s\n", i, from, i, param)
		fmt.Fprintf(&s, "    result: {fields: {item: T%d, items: \"[]T%d\", ok: boolean}}\n", (i*11)%types, (i*13)%types)
	}
	return []byte(s.String())
}
