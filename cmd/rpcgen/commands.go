package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/rpcgen/rpcgen/gen"
	"github.com/rpcgen/rpcgen/gen/golang"
	"github.com/rpcgen/rpcgen/gen/jsonschema"
	"github.com/rpcgen/rpcgen/gen/markdown"
	"github.com/rpcgen/rpcgen/gen/openrpc"
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
	config := fs.String("config", "", "project `file` listing the protocols to generate (default: ./"+configName+" when no protocol file is given)")
	check := fs.Bool("check", false, "write nothing; print a diff and exit 1 when the output on disk is not what generate would write")
	var sel outputs
	fs.BoolVar(&sel.goCode, "go", false, "write the Go package (the default is every output)")
	fs.BoolVar(&sel.schema, "schema", false, "write the JSON Schemas under schema/ (the default is every output)")
	fs.BoolVar(&sel.docs, "docs", false, "write the Markdown reference README.md (the default is every output)")
	fs.BoolVar(&sel.openRPC, "openrpc", false, "write the OpenRPC document openrpc.json (the default is every output)")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var jobs []job
	switch {
	case len(files) > 1:
		fmt.Fprintf(fs.Output(), "%s: want one protocol file, got %d arguments%s\n", fs.Name(), len(files), extraHint(fs, files))
		return errUsage
	case len(files) == 1 && set["config"]:
		fmt.Fprintf(fs.Output(), "%s: give a protocol file or -config, not both\n", fs.Name())
		return errUsage
	case len(files) == 1:
		jobs = []job{{idl: files[0], out: *out, pkg: *pkg, outs: allOutputs}}
	default:
		if set["out"] || set["package"] {
			fmt.Fprintf(fs.Output(), "%s: -out and -package apply to one protocol file; with a project file, set out and package in it\n", fs.Name())
			return errUsage
		}
		path := *config
		if path == "" {
			path = configName
			if _, err := os.Stat(path); errors.Is(err, iofs.ErrNotExist) {
				fmt.Fprintf(fs.Output(), "%s: want one protocol file, or a %s in the current directory (or -config FILE)\n", fs.Name(), configName)
				return errUsage
			}
		}
		jobs, err = loadConfig(path)
		if err != nil {
			return err
		}
	}
	if sel != (outputs{}) {
		for i := range jobs {
			jobs[i].outs = jobs[i].outs.and(sel)
		}
	}
	var stale []string
	for _, j := range jobs {
		s, err := generateJob(j, *check, stdout)
		if err != nil {
			return err
		}
		stale = append(stale, s...)
	}
	if len(stale) > 0 {
		return fmt.Errorf("rpcgen generate -check: the output on disk is stale; run rpcgen generate:\n%s", strings.Join(stale, "\n"))
	}
	return nil
}

// job is one protocol to generate: its IDL file, output directory, Go
// package name ("" for the default) and outputs.
type job struct {
	idl, out, pkg string
	// source, when set, is how generated headers name the IDL file: its
	// path relative to the project file, whatever the working directory.
	source string
	outs   outputs
}

// outputs selects what generate writes.
type outputs struct {
	goCode, schema, docs, openRPC bool
}

// allOutputs is every output, the default.
var allOutputs = outputs{goCode: true, schema: true, docs: true, openRPC: true}

// and returns the outputs selected by both o and p.
func (o outputs) and(p outputs) outputs {
	return outputs{o.goCode && p.goCode, o.schema && p.schema, o.docs && p.docs, o.openRPC && p.openRPC}
}

// has reports whether o selects the output a generated file at path (slash
// separated, relative to the output directory) belongs to.
func (o outputs) has(path string) bool {
	switch {
	case strings.HasSuffix(path, ".go") && !strings.Contains(path, "/"):
		return o.goCode
	case strings.HasPrefix(path, "schema/"):
		return o.schema
	case path == openrpc.FileName:
		return o.openRPC
	}
	return o.docs
}

// generateJob runs the generators j selects and writes their files below
// j.out, removing the files an earlier run wrote that this one does not.
// With check it writes nothing: it prints a unified diff of what it would
// change to stdout and returns one line per stale file.
func generateJob(j job, check bool, stdout io.Writer) ([]string, error) {
	p, err := idl.Load(j.idl)
	if err != nil {
		return nil, err
	}
	if j.source != "" && len(p.Files) > 0 {
		p.Files[0] = j.source
	}
	// The generators only read p: they run at the same time, and their
	// files and errors are taken in the same order as ever. Each one's
	// files are written as soon as they are made, once the Go generator's
	// checks have passed.
	var (
		wg                                sync.WaitGroup
		goFiles, schemas, docs, orpc      []gen.File
		goErr, schemaErr, docErr, orpcErr error
		early                             = newEarlyWriter(j.out, check, j.outs.goCode)
	)
	if j.outs.schema || j.outs.openRPC {
		// The OpenRPC document is made from the JSON Schemas.
		wg.Go(func() {
			all, err := jsonschema.Generate(p)
			switch {
			case err != nil && j.outs.schema:
				schemaErr = err
			case err != nil:
				orpcErr = err
			case j.outs.openRPC:
				orpc, orpcErr = openrpc.FromSchemas(p, all)
			}
			if err == nil && j.outs.schema {
				schemas = all
				early.write(schemas)
			}
			if orpcErr == nil {
				early.write(orpc)
			}
		})
	}
	if j.outs.docs {
		wg.Go(func() {
			if docs, docErr = markdown.Generate(p); docErr == nil {
				early.write(docs)
			}
		})
	}
	if j.outs.goCode {
		goFiles, goErr = golang.Generate(p, golang.Options{Package: j.pkg, Checked: early.pass})
		early.settle()
		if goErr == nil {
			early.write(goFiles)
		}
	}
	wg.Wait()
	switch {
	case goErr != nil:
		err = fmt.Errorf("generating Go: %w", goErr)
	case schemaErr != nil:
		err = fmt.Errorf("generating JSON Schemas: %w", schemaErr)
	case docErr != nil:
		err = fmt.Errorf("generating docs: %w", docErr)
	case orpcErr != nil:
		err = fmt.Errorf("generating OpenRPC: %w", orpcErr)
	}
	if err != nil {
		return nil, early.abandon(err)
	}
	pl, err := makePlan(j.out, slices.Concat(goFiles, schemas, docs, orpc), j.outs)
	if err != nil {
		return nil, early.abandon(err)
	}
	if check {
		return pl.diff(stdout)
	}
	return nil, pl.finish(early)
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
	out := fs.String("out", "", "output `path`: the directory for every schema file, or with -bundle the bundle's file; without it the bundle goes to standard output")
	bundleOnly := fs.Bool("bundle", false, "write only the bundle, one schema with every type under $defs, to the -out file or standard output")
	p, err := loadOne(fs, args)
	if err != nil {
		return err
	}
	schemas, err := jsonschema.Generate(p)
	if err != nil {
		return fmt.Errorf("generating JSON Schemas: %w", err)
	}
	if *out != "" && !*bundleOnly {
		return gen.Write(*out, schemas)
	}
	bundle := "schema/" + p.Name + ".schema.json"
	for _, f := range schemas {
		if f.Path == bundle {
			if *out == "" {
				*out = "-"
			}
			return writeOne(*out, f.Content, stdout)
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
