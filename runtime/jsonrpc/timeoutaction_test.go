package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// killStream is a stream with a Kill method, like a spawned process.
type killStream struct {
	net.Conn
	killed atomic.Bool
}

func (k *killStream) Kill() error {
	k.killed.Store(true)
	return k.Close()
}

func TestTimeoutActions(t *testing.T) {
	for _, action := range []TimeoutAction{TimeoutClose, TimeoutKill} {
		t.Run(fmt.Sprint(action), func(t *testing.T) {
			a, b := net.Pipe()
			stream := &killStream{Conn: a}
			c := NewConn(stream, Options{Timeout: func(method string) Timeout {
				if method == "initialize" {
					return Timeout{After: 20 * time.Millisecond, Action: action}
				}
				return Timeout{}
			}})
			peer := NewConn(b, Options{Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
				<-ctx.Done() // never answers in time
				return nil, ctx.Err()
			})})
			defer peer.Close()
			defer c.Close()
			other := make(chan error, 1)
			go func() { other <- c.Call(ctxLimit(t), "other", nil, nil) }()
			if err := c.Call(context.Background(), "initialize", nil, nil); !errors.Is(err, ErrTimeout) {
				t.Fatalf("initialize: %v, want a timeout", err)
			}
			select {
			case <-c.Done():
			case <-time.After(waitLimit):
				t.Fatal("connection still open after a timeout with action close/kill")
			}
			if err := <-other; !errors.Is(err, ErrClosed) {
				t.Errorf("the other pending call ended with %v, want ErrClosed", err)
			}
			if got := stream.killed.Load(); got != (action == TimeoutKill) {
				t.Errorf("killed = %v for action %d", got, action)
			}
			if !errors.Is(c.Err(), ErrTimeout) {
				t.Errorf("Err() = %v, want the timeout", c.Err())
			}
		})
	}
}
