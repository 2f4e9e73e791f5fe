package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/rpcgen/rpcgen/importer/lsp"
)

// importers are the formats rpcgen import reads.
var importers = map[string]func([]byte) ([]byte, error){
	"lsp": lsp.Import,
}

func runImport(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	out := fs.String("o", "-", "output `file`; - writes to standard output")
	schema := fs.String("schema", "", "write `# yaml-language-server: $schema=REF` first, so that editors check the IDL against rpcgen's IDL schema (idl/rpcgen-idl.schema.json)")
	// Flags may also follow the arguments: rpcgen import lsp m.json -o lsp.yaml.
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return errUsage
		}
		if fs.NArg() == 0 {
			break
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(rest) != 2 {
		fmt.Fprintf(fs.Output(), "%s: want a format and one input file, got %d arguments\n", fs.Name(), len(rest))
		fs.Usage()
		return errUsage
	}
	convert, ok := importers[rest[0]]
	if !ok {
		fmt.Fprintf(fs.Output(), "%s: unknown format %q (known: lsp)\n", fs.Name(), rest[0])
		fs.Usage()
		return errUsage
	}
	data, err := os.ReadFile(rest[1])
	if err != nil {
		return err
	}
	idl, err := convert(data)
	if err != nil {
		return fmt.Errorf("%s: %w", rest[1], err)
	}
	if *schema != "" {
		idl = append([]byte("# yaml-language-server: $schema="+*schema+"\n"), idl...)
	}
	return writeOne(*out, idl, stdout)
}
