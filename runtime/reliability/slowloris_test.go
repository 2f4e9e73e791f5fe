package reliability

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

func testSlowLoris(t *testing.T) {
	s := serveTCP(t, "127.0.0.1:0", &transport.Server{IdleTimeout: 500 * time.Millisecond},
		jsonrpc.Options{Framing: framing.ContentLength, Handler: handler{"sum": sum}})
	stop := make(chan struct{})
	var loris sync.WaitGroup
	var trickling []net.Conn
	stalledClosed := make(chan error, 25)
	for i := range 50 {
		nc, err := net.Dial("tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		if i%2 == 0 {
			trickling = append(trickling, nc)
			loris.Go(func() {
				header := "Content-Length: 100\r\nX-Slow: " + strings.Repeat("a", 1000)
				for k := 0; ; k++ {
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond):
					}
					if _, err := nc.Write([]byte{header[k%len(header)]}); err != nil {
						return
					}
				}
			})
			continue
		}
		if _, err := nc.Write([]byte("Content-Length: 100\r\n\r\n{\"jsonrpc\":")); err != nil {
			t.Fatal(err)
		}
		loris.Go(func() {
			_, err := io.Copy(io.Discard, nc) // returns when the server closes
			stalledClosed <- err
		})
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			nc, err := transport.Dial(ctx, "tcp", s.addr)
			if err != nil {
				t.Error(err)
				return
			}
			c := jsonrpc.NewConn(nc, jsonrpc.Options{Framing: framing.ContentLength})
			defer c.Close()
			for j := range 50 {
				var got int
				if err := c.Call(ctx, "sum", []int{i, j}, &got); err != nil || got != i+j {
					t.Errorf("client %d call %d = %d, %v", i, j, got, err)
					return
				}
			}
		})
	}
	wg.Wait()
	for range 25 {
		if err := within(t, stalledClosed, "a stalled connection being closed"); err != nil {
			t.Errorf("stalled connection read: %v, want EOF", err)
		}
	}
	// The tricklers are still being served: their reads have not ended.
	for _, nc := range trickling {
		nc.SetReadDeadline(time.Now().Add(time.Millisecond))
		if _, err := nc.Read(make([]byte, 1)); !isTimeout(err) {
			t.Errorf("trickling connection: read %v, want it still open", err)
		}
	}
	close(stop)
	loris.Wait()
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
