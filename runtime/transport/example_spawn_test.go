package transport_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// exampleChildEnv makes this test binary, run by ExampleSpawn, act as the
// child: a JSON-RPC server on its standard input and output.
const exampleChildEnv = "RPCGEN_TRANSPORT_EXAMPLE_CHILD"

// init runs the child before the tests' TestMain, so that it needs no
// mode of its own there.
func init() {
	if os.Getenv(exampleChildEnv) == "" {
		return
	}
	conn := jsonrpc.NewConn(transport.Stdio(), jsonrpc.Options{
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			var p struct {
				Text string `json:"text"`
			}
			if err := req.DecodeParams(&p); err != nil {
				return nil, err
			}
			return strings.ToUpper(p.Text), nil
		}),
	})
	<-conn.Done() // the parent closed our stdin
	os.Exit(0)
}

// exampleServerCommand returns the command of a child that answers every
// request with its params' "text" in upper case: this test binary itself.
func exampleServerCommand() *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	cmd := exec.Command(exe)
	// atexit_sleep_ms=0: under the race detector a child would otherwise
	// wait a second before exiting.
	cmd.Env = append(os.Environ(), exampleChildEnv+"=1",
		"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	return cmd
}

// Spawning a child process that speaks JSON-RPC on its standard input and
// output, calling it, and ending it.
func ExampleSpawn() {
	// In a program: exec.Command("some-language-server", "--stdio").
	cmd := exampleServerCommand()
	child, err := transport.Spawn(cmd, transport.SpawnOptions{})
	if err != nil {
		fmt.Println("error:", err) // a *transport.NotFoundError if there is no such executable
		return
	}
	conn := jsonrpc.NewConn(child, jsonrpc.Options{})

	var reply string
	err = conn.Call(context.Background(), "upper", map[string]string{"text": "hello"}, &reply)
	fmt.Println(reply, err)

	// Closing the connection closes the child's stdin and waits for it
	// to exit (killing it after SpawnOptions.Grace).
	conn.Close()
	<-child.Done()
	fmt.Println("exit:", child.ExitErr())
	// Output:
	// HELLO <nil>
	// exit: <nil>
}
