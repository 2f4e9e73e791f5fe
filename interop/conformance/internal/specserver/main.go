// Command specserver serves the generated specsvc package (the methods of
// the JSON-RPC 2.0 specification's examples) on stdin and stdout, so that
// the conformance tests can send it raw bytes across real OS pipes.
//
//	specserver [-framing ndjson|content-length]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/rpcgen/rpcgen/interop/conformance/internal/specsvc"
	"github.com/rpcgen/rpcgen/runtime/framing"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// server implements the specification's example methods.
type server struct{}

func (server) Subtract(_ context.Context, p *specsvc.SubtractParams) (int64, error) {
	return p.Minuend - p.Subtrahend, nil
}

func (server) Sum(_ context.Context, p *specsvc.SumParams) (int64, error) {
	var total int64
	for _, v := range p.Values {
		total += v
	}
	return total, nil
}

func (server) GetData(context.Context) ([]specsvc.GetDataResultItem, error) {
	return []specsvc.GetDataResultItem{
		specsvc.NewGetDataResultItem("hello"),
		specsvc.NewGetDataResultItem(int64(5)),
	}, nil
}

func (server) Update(context.Context, *specsvc.UpdateParams) error           { return nil }
func (server) NotifyHello(context.Context, *specsvc.NotifyHelloParams) error { return nil }
func (server) NotifySum(context.Context, *specsvc.NotifySumParams) error     { return nil }

func main() {
	name := flag.String("framing", "ndjson", "message framing: ndjson or content-length")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: specserver [-framing ndjson|content-length]\n\nServes the JSON-RPC 2.0 specification's example methods on stdin and stdout.")
		flag.PrintDefaults()
	}
	flag.Parse()
	var f framing.Framing
	switch *name {
	case "ndjson":
		f = framing.NDJSON
	case "content-length":
		f = framing.ContentLength
	default:
		fmt.Fprintf(os.Stderr, "specserver: unknown framing %q\n", *name)
		os.Exit(2)
	}
	opts := jsonrpc.Options{
		Framing: f,
		Logger:  slog.New(slog.NewTextHandler(os.Stderr, nil)),
	}
	conn := specsvc.ConnectServer(transport.Stdio(), server{}, opts)
	if err := conn.Wait(); err != nil && !errors.Is(err, jsonrpc.ErrPeerClosed) {
		fmt.Fprintln(os.Stderr, "specserver:", err)
		os.Exit(1)
	}
}
