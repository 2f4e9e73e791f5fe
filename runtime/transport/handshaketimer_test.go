package transport

import (
	"context"
	"net"
	"testing"
	"time"
)

// TestEstablishedDropsHandshakeTimer checks that a connection holds its
// handshake timer until it is established, and none after: an idle
// established connection keeps no timer for its life.
func TestEstablishedDropsHandshakeTimer(t *testing.T) {
	held := make(chan [2]bool, 1)
	s := &Server{HandshakeTimeout: time.Hour}
	s.Handler = func(_ context.Context, c net.Conn) {
		sc := c.(*serverConn)
		timer := func() bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			return sc.timer != nil
		}
		before := timer()
		MarkEstablished(c)
		held <- [2]bool{before, timer()}
	}
	addr := serveOn(t, s, listen(t))
	c := dial(t, addr)
	defer c.Close()
	select {
	case got := <-held:
		if !got[0] {
			t.Error("no handshake timer before the connection is established")
		}
		if got[1] {
			t.Error("the handshake timer is still held after the connection is established")
		}
	case <-time.After(10 * time.Second): // turns a hang into a failure
		t.Fatal("the handler did not run")
	}
}
