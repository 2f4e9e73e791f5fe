package reliability

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// The slow-loris case: slow connections, the slots they may take and the
// clients that need those slots.
const (
	lorisTrickling = 40 // send a header byte every lorisTick, forever
	lorisStalled   = 10 // send part of a message, then nothing
	lorisSpare     = 4  // MaxConns slots left over for the clients
	lorisClients   = 20 // real clients, all connected at once at the end
	lorisCalls     = 50 // calls each client makes at least
	lorisTick      = 20 * time.Millisecond
	lorisIdle      = 500 * time.Millisecond
	lorisBudget    = time.Second
)

// lorisCase is the slow-loris row of the table.
func lorisCase() rcase {
	held := lorisClients - lorisSpare - lorisStalled
	return rcase{
		name: "slow-loris",
		input: fmt.Sprintf("%d slow connections to a Content-Length transport.Server with MaxConns %d (%d slots spare), IdleTimeout %d ms and MessageTimeout %d ms: "+
			"%d send a header one byte every %d ms and never finish it, %d send a header and part of a body, then nothing; "+
			"then %d clients connect, make %d calls each and stay connected, calling every %d ms, until all %d have been answered",
			lorisTrickling+lorisStalled, lorisTrickling+lorisStalled+lorisSpare, lorisSpare, lorisIdle.Milliseconds(), lorisBudget.Milliseconds(),
			lorisTrickling, lorisTick.Milliseconds(), lorisStalled,
			lorisClients, lorisCalls, lorisTick.Milliseconds(), lorisClients),
		outcome: fmt.Sprintf("none of the slow connections ever completes a message, so none is established: clients finding the slots full evict the oldest of them "+
			"(transport.ErrEvicted, at most %d); the other trickling connections are closed by the message timeout (server-side Conn.Err() wraps transport.ErrMessageTimeout; "+
			"they are never idle, so the idle timeout alone would keep them) and the stalled ones by the idle timeout (transport.ErrIdle); "+
			"all %d clients are served at once, which needs at least %d slots a slow connection held, and every call succeeds",
			lorisClients-lorisSpare, lorisClients, held),
		run: testSlowLoris,
	}
}

func testSlowLoris(t *testing.T) {
	s := serveTCP(t, "127.0.0.1:0", &transport.Server{
		IdleTimeout:    lorisIdle,
		MessageTimeout: lorisBudget,
		MaxConns:       lorisTrickling + lorisStalled + lorisSpare,
	}, jsonrpc.Options{Framing: framing.ContentLength, Handler: handler{"sum": sum}})
	stop := make(chan struct{})
	var loris sync.WaitGroup
	defer func() {
		close(stop)
		loris.Wait()
	}()
	// closed receives the read error of each slow connection once the
	// server has closed it.
	closed := make(chan error, lorisTrickling+lorisStalled)
	for i := range lorisTrickling + lorisStalled {
		nc, err := net.Dial("tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		loris.Go(func() {
			_, err := io.Copy(io.Discard, nc) // returns when the server closes
			closed <- err
		})
		if i >= lorisTrickling {
			if _, err := nc.Write([]byte("Content-Length: 100\r\n\r\n{\"jsonrpc\":")); err != nil {
				t.Fatal(err)
			}
			continue
		}
		loris.Go(func() {
			header := "Content-Length: 100\r\nX-Slow: " + strings.Repeat("a", 1000)
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				case <-time.After(lorisTick):
				}
				if _, err := nc.Write([]byte{header[k%len(header)]}); err != nil {
					return
				}
			}
		})
	}

	// The clients: each makes its calls, then keeps calling (so it is not
	// idle) until every client has been answered once, and only then
	// disconnects; so at that moment all of them hold a slot.
	var answered atomic.Int32
	allIn := make(chan struct{})
	var wg sync.WaitGroup
	for i := range lorisClients {
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
			for j := 0; ; j++ {
				var got int
				if err := c.Call(ctx, "sum", []int{i, j}, &got); err != nil || got != i+j {
					t.Errorf("client %d call %d = %d, %v", i, j, got, err)
					return
				}
				if j == 0 && answered.Add(1) == lorisClients {
					close(allIn)
				}
				if j+1 < lorisCalls {
					continue
				}
				select {
				case <-allIn:
					return
				case <-ctx.Done():
					t.Errorf("client %d: only %d of %d clients answered within %v", i, answered.Load(), lorisClients, waitLimit)
					return
				case <-time.After(lorisTick):
				}
			}
		})
	}
	wg.Wait()
	select {
	case <-allIn:
	default:
		t.Fatalf("%d of %d clients were answered", answered.Load(), lorisClients)
	}

	for range lorisTrickling + lorisStalled {
		// Whether the close reaches a trickler as EOF or as a reset
		// depends on whether its last byte was read: either ends it.
		within(t, closed, "a slow connection being closed")
	}
	var late, idle, evicted int
	for late+idle+evicted < lorisTrickling+lorisStalled {
		err := within(t, s.ended, "the slow connections ending on the server").Err()
		switch {
		case errors.Is(err, transport.ErrMessageTimeout):
			late++
		case errors.Is(err, transport.ErrIdle):
			idle++
		case errors.Is(err, transport.ErrEvicted):
			evicted++
		case errors.Is(err, jsonrpc.ErrPeerClosed):
			// a client that disconnected
		default:
			t.Fatalf("a server-side connection ended with %v", err)
		}
	}
	// The evicted are the oldest: tricklers, dialled first, unless the
	// limits closed them before the clients came.
	if evicted > lorisClients-lorisSpare || int64(evicted) != s.srv.Evictions() ||
		late < lorisTrickling-evicted || late > lorisTrickling || idle+late+evicted != lorisTrickling+lorisStalled {
		t.Errorf("closed for a late message: %d, for idleness: %d, evicted: %d (Evictions() %d); want %d tricklers and %d stalled, at most %d evicted",
			late, idle, evicted, s.srv.Evictions(), lorisTrickling, lorisStalled, lorisClients-lorisSpare)
	}
}
