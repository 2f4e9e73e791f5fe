package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/rpcgen/rpcgen/gen/openrpc"
)

func runOpenRPC(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	out := fs.String("out", "-", "output `file`, by convention openrpc.json; - writes to standard output")
	p, err := loadOne(fs, args)
	if err != nil {
		return err
	}
	files, err := openrpc.Generate(p)
	if err != nil {
		return fmt.Errorf("generating the OpenRPC document: %w", err)
	}
	return writeOne(*out, files[0].Content, stdout)
}
