package jsonrpc_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// Logging middleware on the side that answers: every incoming request and
// notification passes through it on its way to the handler.
func ExampleMiddleware() {
	// A text logger without timestamps, so that the output is stable.
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{}
			}
			return a
		},
	}))
	logging := func(next jsonrpc.Handler) jsonrpc.Handler {
		return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			result, err := next.Handle(ctx, req)
			logger.Info("handled", "method", req.Method, "notification", req.IsNotification(), "err", err)
			return result, err
		})
	}

	a, b := transport.Pipe()
	server := jsonrpc.NewConn(b, jsonrpc.Options{
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method != "ping" {
				return nil, jsonrpc.ErrMethodNotFound
			}
			return "pong", nil
		}),
		Middleware: []jsonrpc.Middleware{logging},
	})
	defer server.Close()
	client := jsonrpc.NewConn(a, jsonrpc.Options{})
	defer client.Close()

	ctx := context.Background()
	_ = client.Call(ctx, "ping", nil, nil)
	_ = client.Call(ctx, "pong", nil, nil)
	// Output:
	// level=INFO msg=handled method=ping notification=false err=<nil>
	// level=INFO msg=handled method=pong notification=false err="jsonrpc error -32601: Method not found"
}

// Outgoing middleware on the side that calls: it sees every call and
// notification this side sends, and the error each call ends with.
func ExampleOutgoingMiddleware() {
	logCalls := func(next jsonrpc.SendFunc) jsonrpc.SendFunc {
		return func(ctx context.Context, out *jsonrpc.Outgoing) error {
			fmt.Println("sending", out.Method)
			err := next(ctx, out)
			if !out.Notification {
				fmt.Printf("%s answered: %v\n", out.Method, err)
			}
			return err
		}
	}

	a, b := transport.Pipe()
	server := jsonrpc.NewConn(b, jsonrpc.Options{
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method == "fail" {
				return nil, jsonrpc.NewError(-32000, "it failed", nil)
			}
			return "ok", nil
		}),
	})
	defer server.Close()
	client := jsonrpc.NewConn(a, jsonrpc.Options{Outgoing: []jsonrpc.OutgoingMiddleware{logCalls}})
	defer client.Close()

	ctx := context.Background()
	var result string
	_ = client.Call(ctx, "succeed", nil, &result)
	_ = client.Call(ctx, "fail", nil, nil)
	_ = client.Notify(ctx, "bye", nil)
	fmt.Println("result:", result)
	// Output:
	// sending succeed
	// succeed answered: <nil>
	// sending fail
	// fail answered: jsonrpc error -32000: it failed
	// sending bye
	// result: ok
}

// A method's default timeout (Options.Timeout) fails a call whose caller
// set no deadline with a *TimeoutError, and here also tells the peer to
// stop working on it. A deadline on the caller's context takes precedence
// and fails the call with the context's error.
func ExampleTimeout() {
	a, b := transport.Pipe()
	stopped := make(chan error, 1)
	server := jsonrpc.NewConn(b, jsonrpc.Options{
		Cancellation: jsonrpc.CancelLSP,
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			<-ctx.Done() // a handler that never finishes on its own
			if req.Method == "slow" {
				stopped <- ctx.Err()
			}
			return nil, ctx.Err()
		}),
	})
	defer server.Close()
	client := jsonrpc.NewConn(a, jsonrpc.Options{
		Cancellation: jsonrpc.CancelLSP,
		Timeout: func(method string) jsonrpc.Timeout {
			if method == "slow" {
				return jsonrpc.Timeout{After: 20 * time.Millisecond, Cancel: true}
			}
			return jsonrpc.Timeout{}
		},
	})
	defer client.Close()

	err := client.Call(context.Background(), "slow", nil, nil)
	fmt.Println(err)
	fmt.Println(errors.Is(err, jsonrpc.ErrTimeout), errors.Is(err, context.DeadlineExceeded))
	var te *jsonrpc.TimeoutError
	if errors.As(err, &te) {
		fmt.Println("method:", te.Method, "after:", te.Timeout)
	}
	fmt.Println("the server's handler saw:", <-stopped)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err = client.Call(ctx, "other", nil, nil)
	fmt.Println(errors.Is(err, context.DeadlineExceeded), errors.Is(err, jsonrpc.ErrTimeout))
	// Output:
	// jsonrpc: call "slow" (id 1) timed out after 20ms
	// true true
	// method: slow after: 20ms
	// the server's handler saw: context canceled
	// true false
}

// Cancelling the caller's context ends the call at once and, with a
// protocol that has a cancellation message, cancels the context of the
// peer's handler.
func ExampleCancellation() {
	a, b := transport.Pipe()
	started := make(chan struct{})
	stopped := make(chan error, 1)
	server := jsonrpc.NewConn(b, jsonrpc.Options{
		Cancellation: jsonrpc.CancelLSP,
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			close(started)
			<-ctx.Done()
			stopped <- ctx.Err()
			return nil, ctx.Err()
		}),
	})
	defer server.Close()
	client := jsonrpc.NewConn(a, jsonrpc.Options{Cancellation: jsonrpc.CancelLSP})
	defer client.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-started: // the server is working on the request
		case <-ctx.Done():
		}
		cancel()
	}()
	err := client.Call(ctx, "work", nil, nil)
	fmt.Println("caller:", err, errors.Is(err, context.Canceled))
	fmt.Println("handler:", <-stopped)
	// Output:
	// caller: jsonrpc: call "work" (id 1): context canceled true
	// handler: context canceled
}
