package transport

import (
	"container/list"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// ErrHandshakeTimeout is wrapped by the Read error of a [Server]
// connection closed because it was not established within the Server's
// HandshakeTimeout.
var ErrHandshakeTimeout = errors.New("transport: handshake timeout")

// ErrEvicted is wrapped by the Read error of a [Server] connection closed,
// before it was established, to make room under MaxConns for a new
// connection.
var ErrEvicted = errors.New("transport: evicted to make room for a new connection")

// MarkEstablished tells the [Server] that accepted c that c is
// established: its peer has completed the protocol's handshake, so the
// HandshakeTimeout no longer applies and c is never evicted to make room
// for a new connection. It calls c's Established method and does nothing
// if c has none. A jsonrpc.Conn does this by itself; other handlers call
// it once the peer has proved itself.
func MarkEstablished(c net.Conn) {
	if e, ok := c.(interface{ Established() }); ok {
		e.Established()
	}
}

// serverConn is the connection a Server hands its Handler: the accepted
// connection with the idle and message timeouts, which also tracks the
// handshake.
type serverConn struct {
	net.Conn // raw, wrapped with the idle and message timeouts: &msg, or an idle wrapper
	raw      net.Conn
	s        *Server
	// msg is the message-timeout wrapper when there is a message
	// timeout, part of the serverConn so that it is not allocated apart.
	msg   messageConn
	timer *time.Timer // closes the connection at the handshake deadline; nil without one or once stopped (guarded by s.mu after wrapLocked)
	ctx   ctxState    // of the context passed to Handler or Start
	// started: the Server's Start serves the connection, which ends when
	// it is closed; finished makes that end happen once.
	started  bool
	finished sync.Once

	// Guarded by s.mu.
	elem        *list.Element // in s.unestablished while it may be evicted
	slot        bool          // holds one of MaxConns
	established bool
	ended       bool  // the handler has returned
	closedBy    error // why the Server closed the connection, if it did
}

// wrapLocked wraps an accepted connection that holds a slot. s.mu must be
// held.
func (s *Server) wrapLocked(c net.Conn) *serverConn {
	sc := &serverConn{raw: c, s: s, slot: true}
	if s.lim.message > 0 {
		sc.msg = messageConn{Conn: c, idle: s.lim.idle, message: s.lim.message}
		sc.Conn = &sc.msg
	} else {
		sc.Conn = WithIdleTimeout(c, s.lim.idle)
	}
	sc.elem = s.unestablished.PushBack(sc)
	s.signalLocked() // a Serve loop waiting for room may now evict it
	if d := s.lim.handshake; d > 0 {
		sc.timer = time.AfterFunc(d, sc.handshakeExpired)
	}
	return sc
}

// remote is the peer's address, for logs and errors.
func (c *serverConn) remote() net.Addr { return c.raw.RemoteAddr() }

// Read reads from the connection; once the Server has closed it for a
// limit, the error says which.
func (c *serverConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	return n, c.readError(err)
}

// readError is err, or why the Server closed the connection if it did.
func (c *serverConn) readError(err error) error {
	if err != nil {
		c.s.mu.Lock()
		why := c.closedBy
		c.s.mu.Unlock()
		if why != nil {
			return why
		}
	}
	return err
}

// handOffAfter is how long a reader waits between messages before
// ReadIdle gives up (see framing.IdleInput); a variable for tests.
var handOffAfter = 100 * time.Millisecond

// ReadIdle is Read for a reader waiting for a message's first bytes: if
// none arrive within a short while (and the idle timeout has not run
// out) it returns 0 and framing.ErrStillIdle, and the connection can be
// read on. A jsonrpc.Conn's reader then leaves the wait to a goroutine
// with a small stack. With neither an idle nor a message timeout, it is
// Read. It implements framing.IdleInput.
func (c *serverConn) ReadIdle(b []byte) (int, error) {
	var n int
	var err error
	switch conn := c.Conn.(type) {
	case *messageConn:
		n, err = conn.read(b, handOffAfter)
	case *idleConn:
		n, err = conn.read(b, handOffAfter)
	default:
		return c.Read(b)
	}
	if err == framing.ErrStillIdle {
		return 0, err
	}
	return n, c.readError(err)
}

// Close closes the connection; one started by the Server's Start ends
// there.
func (c *serverConn) Close() error {
	err := c.Conn.Close()
	if c.started {
		c.finished.Do(func() { c.s.finishConn(c) })
	}
	return err
}

// MessageRead marks the end of a message for the message timeout. It
// implements jsonrpc.MessageReader.
func (c *serverConn) MessageRead() {
	if m, ok := c.Conn.(interface{ MessageRead() }); ok {
		m.MessageRead()
	}
}

// Established records that the connection's peer has completed the
// handshake: the handshake deadline stops and the connection can no
// longer be evicted. Later calls do nothing. It implements
// jsonrpc.Establisher.
func (c *serverConn) Established() {
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.established || c.closedBy != nil || c.ended {
		return
	}
	c.established = true
	c.forgetLocked()
}

// forgetLocked takes c off the list of evictable connections and stops
// its handshake deadline. s.mu must be held.
func (c *serverConn) forgetLocked() {
	if c.elem != nil {
		c.s.unestablished.Remove(c.elem)
		c.elem = nil
	}
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil // not kept for the connection's life
	}
}

// handshakeExpired closes the connection if it is still not established.
func (c *serverConn) handshakeExpired() {
	s := c.s
	s.mu.Lock()
	if c.established || c.closedBy != nil || c.ended {
		s.mu.Unlock()
		return
	}
	c.dropLocked(fmt.Errorf("%w: connection from %s: not established %v after it was accepted",
		ErrHandshakeTimeout, c.remote(), s.lim.handshake))
	s.mu.Unlock()
	s.logger().Debug("transport: closed a connection not established in time",
		"remote", c.remote(), "handshake_timeout", s.lim.handshake)
	_ = c.raw.Close()
}

// dropLocked marks c as closed by the Server for why and gives up its
// slot at once: its handler only has to notice. The caller closes c.raw
// after releasing s.mu.
func (c *serverConn) dropLocked(why error) {
	c.closedBy = why
	c.forgetLocked()
	c.s.releaseSlotLocked(c)
}

// releaseSlotLocked gives up c's slot, if it holds one. s.mu must be held.
func (s *Server) releaseSlotLocked(c *serverConn) {
	if c.slot {
		c.slot = false
		s.slots--
		s.signalLocked()
	}
}

// releaseLocked cleans up after c's handler has returned. s.mu must be
// held.
func (s *Server) releaseLocked(c *serverConn) {
	c.ended = true
	c.forgetLocked()
	s.releaseSlotLocked(c)
}

// signalLocked wakes the Serve loops waiting for room. s.mu must be held.
func (s *Server) signalLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// waitRoomLocked waits until a new connection can be served: a slot is
// free, or a connection not yet established can be evicted. With take it
// also takes the slot, evicting the oldest connection not yet established
// if need be, and returns that connection (to be closed by the caller
// once s.mu is released). It reports false when the Server is closing.
// s.mu must be held; it is released while waiting.
func (s *Server) waitRoomLocked(take bool) (victim *serverConn, ok bool) {
	for {
		if s.closing {
			return nil, false
		}
		max := s.lim.maxConns
		if max <= 0 || s.slots < max {
			if take {
				s.slots++
			}
			return nil, true
		}
		if front := s.unestablished.Front(); front != nil {
			if !take {
				return nil, true
			}
			victim = front.Value.(*serverConn)
			s.evictions.Add(1)
			victim.dropLocked(fmt.Errorf("%w: connection from %s: closed before it was established (MaxConns %d)",
				ErrEvicted, victim.remote(), max))
			s.slots++
			return victim, true
		}
		changed := s.changed
		if s.waiting != nil {
			s.waiting()
		}
		s.mu.Unlock()
		select {
		case <-changed:
		case <-s.quit:
		}
		s.mu.Lock()
	}
}

// waitRoom waits, before an accept, until a new connection could be
// served. It reports false when the Server is closing.
func (s *Server) waitRoom() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.waitRoomLocked(false)
	return ok
}

// evict closes a connection evicted by waitRoomLocked.
func (s *Server) evict(victim *serverConn) {
	s.logger().Debug("transport: closed the oldest connection not yet established to make room for a new one",
		"remote", victim.remote(), "max_conns", s.lim.maxConns)
	_ = victim.raw.Close()
}
