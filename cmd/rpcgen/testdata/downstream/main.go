// Command downstream is the README's tutorial as a program: a module that
// generates the calc protocol with go:generate and runs both roles, the
// server as a child process over stdio.
package main

//go:generate go run github.com/rpcgen/rpcgen/cmd/rpcgen generate -out calc calc.yaml

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"time"

	"example.com/downstream/calc"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

type server struct{ calc.UnimplementedServer }

func (server) Add(ctx context.Context, p *calc.Operands) (*calc.AddResult, error) {
	client := calc.NewClientRemote(jsonrpc.ConnFromContext(ctx))
	if err := client.Log(ctx, &calc.LogParams{Message: fmt.Sprintf("adding %d and %d", p.A, p.B)}); err != nil {
		return nil, err
	}
	if (p.B > 0 && p.A > math.MaxInt64-p.B) || (p.B < 0 && p.A < math.MinInt64-p.B) {
		return nil, calc.NewOverflowError()
	}
	return &calc.AddResult{Sum: p.A + p.B}, nil
}

type client struct {
	calc.UnimplementedClient
	logs chan string
}

func (c client) Log(ctx context.Context, p *calc.LogParams) error {
	c.logs <- p.Message
	return nil
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		conn, _ := calc.ConnectServer(transport.Stdio(), server{}, jsonrpc.Options{})
		conn.Wait()
		return
	}
	if err := runClient(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func runClient() error {
	proc, err := transport.Spawn(exec.Command(os.Args[0], "serve"), transport.SpawnOptions{})
	if err != nil {
		return err
	}
	c := client{logs: make(chan string, 10)}
	conn, srv := calc.ConnectClient(proc, c, jsonrpc.Options{})
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	res, err := srv.Add(ctx, &calc.Operands{A: 2, B: 3})
	if err != nil {
		return err
	}
	fmt.Println("log:", <-c.logs)
	fmt.Println("2 + 3 =", res.Sum)

	_, err = srv.Add(ctx, &calc.Operands{A: math.MaxInt64, B: 1})
	<-c.logs
	if !errors.Is(err, calc.ErrOverflow) {
		return fmt.Errorf("overflow: got %v, want calc.ErrOverflow", err)
	}
	fmt.Println("overflow:", err)
	return nil
}
