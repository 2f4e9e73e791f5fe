package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/rpcgen/rpcgen/gen"
	"github.com/rpcgen/rpcgen/gen/golang"
	"github.com/rpcgen/rpcgen/gen/jsonschema"
	"github.com/rpcgen/rpcgen/gen/markdown"
	"github.com/rpcgen/rpcgen/idl"
)

func runCheck(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	files, err := parse(fs, args, false)
	if err != nil {
		return err
	}
	var failed []string
	for _, f := range files {
		p, err := idl.Load(f)
		if err == nil {
			// The Go generator adds its own checks (names that would
			// clash in the generated package): an IDL that passes check
			// generates code that compiles.
			_, err = golang.Generate(p, golang.Options{})
		}
		if err != nil {
			failed = append(failed, err.Error())
			continue
		}
		fmt.Fprintf(stdout, "%s: ok\n", f)
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s", strings.Join(failed, "\n"))
	}
	return nil
}

func runGenerate(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	out := fs.String("out", ".", "output `directory`: the Go package, schema/ and README.md go here")
	pkg := fs.String("package", "", "Go package `name` (default: derived from the protocol name)")
	p, err := loadOne(fs, args)
	if err != nil {
		return err
	}
	// The three generators only read p: they run at the same time, and
	// their files and errors are taken in the same order as ever.
	var (
		wg                sync.WaitGroup
		schemas, docs     []gen.File
		schemaErr, docErr error
	)
	wg.Go(func() { schemas, schemaErr = jsonschema.Generate(p) })
	wg.Go(func() { docs, docErr = markdown.Generate(p) })
	goFiles, err := golang.Generate(p, golang.Options{Package: *pkg})
	wg.Wait()
	if err != nil {
		return fmt.Errorf("generating Go: %w", err)
	}
	if schemaErr != nil {
		return fmt.Errorf("generating JSON Schemas: %w", schemaErr)
	}
	if docErr != nil {
		return fmt.Errorf("generating docs: %w", docErr)
	}
	all := slices.Concat(goFiles, schemas, docs)
	if err := removeStale(*out, all); err != nil {
		return err
	}
	return gen.Write(*out, all)
}

func runDocs(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	out := fs.String("out", "-", "output `file`; - writes to standard output")
	p, err := loadOne(fs, args)
	if err != nil {
		return err
	}
	docs, err := markdown.Generate(p)
	if err != nil {
		return fmt.Errorf("generating docs: %w", err)
	}
	return writeOne(*out, docs[0].Content, stdout)
}

func runSchema(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	out := fs.String("out", "", "output `directory` for every schema file; without it the bundle goes to standard output")
	p, err := loadOne(fs, args)
	if err != nil {
		return err
	}
	schemas, err := jsonschema.Generate(p)
	if err != nil {
		return fmt.Errorf("generating JSON Schemas: %w", err)
	}
	if *out != "" {
		return gen.Write(*out, schemas)
	}
	bundle := "schema/" + p.Name + ".schema.json"
	for _, f := range schemas {
		if f.Path == bundle {
			return writeOne("-", f.Content, stdout)
		}
	}
	return fmt.Errorf("no bundle %s among the generated schemas", bundle)
}

// loadOne parses the flags and loads the one protocol file named.
func loadOne(fs *flag.FlagSet, args []string) (*idl.Protocol, error) {
	files, err := parse(fs, args, true)
	if err != nil {
		return nil, err
	}
	return idl.Load(files[0])
}

// writeOne writes content to path, or to stdout when path is "-".
func writeOne(path string, content []byte, stdout io.Writer) error {
	if path == "-" {
		_, err := stdout.Write(content)
		return err
	}
	if err := os.WriteFile(path, content, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// removeStale deletes what an earlier run generated in dir that this run
// does not: Go files carrying the rpcgen header, and files under schema/.
func removeStale(dir string, files []gen.File) error {
	keep := make(map[string]bool, len(files))
	for _, f := range files {
		keep[filepath.Join(dir, filepath.FromSlash(f.Path))] = true
	}
	var candidates []string
	goFiles, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, path := range goFiles {
		if generatedByUs(path) {
			candidates = append(candidates, path)
		}
	}
	_ = filepath.WalkDir(filepath.Join(dir, "schema"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".json") {
			candidates = append(candidates, path)
		}
		return nil
	})
	for _, path := range candidates {
		if !keep[path] {
			if err := os.Remove(path); err != nil {
				return fmt.Errorf("removing stale %s: %w", path, err)
			}
		}
	}
	return nil
}

// generatedByUs reports whether the Go file at path starts with the rpcgen
// header.
func generatedByUs(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(gen.Header))
	n, _ := io.ReadFull(f, head)
	return bytes.Equal(head[:n], []byte(gen.Header))
}
