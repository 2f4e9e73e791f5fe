package transport

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// ErrServerClosed is returned by [Server.Serve] after [Server.Shutdown]
// or [Server.Close].
var ErrServerClosed = errors.New("transport: server closed")

// Accept retry backoff bounds, for temporary accept errors such as running
// out of file descriptors.
const (
	minAcceptBackoff = 5 * time.Millisecond
	maxAcceptBackoff = time.Second
)

// discardLogger is used wherever a nil *slog.Logger was configured.
var discardLogger = slog.New(slog.DiscardHandler)

// Default limits of a [Server], used when the matching field is zero. A
// negative field turns its limit off.
const (
	// DefaultIdleTimeout closes a connection silent for 5 minutes.
	DefaultIdleTimeout = 5 * time.Minute
	// DefaultMessageTimeout closes a connection whose message is not
	// complete 30 s after its first byte.
	DefaultMessageTimeout = 30 * time.Second
	// DefaultHandshakeTimeout closes a connection not established 10 s
	// after it was accepted.
	DefaultHandshakeTimeout = 10 * time.Second
	// DefaultMaxConns is the most connections served at once.
	DefaultMaxConns = 256
)

// Server accepts stream connections (TCP or Unix-domain sockets) and
// serves each one with Handler in its own goroutine. Set the fields before
// the first call to Serve and do not change them afterwards. A Server must
// not be copied after first use.
//
// Its limits are on by default, so that silent, slow or hostile clients
// cannot hold its connections: every connection must be established (see
// HandshakeTimeout) within DefaultHandshakeTimeout, each message must
// arrive within DefaultMessageTimeout of its first byte, a connection
// silent for DefaultIdleTimeout is closed, and at most DefaultMaxConns are
// served at once, where connections not yet established give way to new
// ones. A Handler that passes its connection to jsonrpc.NewConn gets all
// of this for free; any other Handler must call the connection's
// MessageRead method after each message it reads and its Established
// method (see [MarkEstablished]) once the peer has proved itself, or
// set the matching fields negative.
//
// A Server can serve several listeners at once. After Shutdown or Close it
// cannot be reused.
type Server struct {
	// Handler serves one connection. It runs in its own goroutine, and
	// the Server closes the connection when Handler returns. ctx is
	// cancelled at Shutdown or Close (and after Handler returns): pass
	// it, with any per-connection values added, as the connection's
	// jsonrpc.Options.BaseContext for Shutdown to cancel its request
	// handlers, whose answers are still sent. A panic in Handler is
	// logged and ends only that connection.
	Handler func(ctx context.Context, c net.Conn)
	// Start, set instead of Handler, starts serving one connection and
	// returns at once, so that no goroutine waits for each connection:
	// the connection is open, and holds its slot, until c is closed. A
	// jsonrpc.Conn closes its stream when it ends, so Start may simply
	// pass c to jsonrpc.NewConn. ctx is cancelled at Shutdown or Close,
	// and once c is closed: Start ties the connection's end to it with
	// context.AfterFunc (Shutdown then waits until every connection is
	// closed). That context carries no values or deadline, and
	// context.AfterFunc and context.WithCancel on it keep no map of
	// children. Start runs on the goroutine that accepts connections; a
	// panic in it is logged and closes c.
	Start func(ctx context.Context, c net.Conn)
	// IdleTimeout closes a connection that receives no bytes for this
	// long (default 5 minutes, DefaultIdleTimeout; negative: never):
	// Handler's blocked Read then fails with an error wrapping ErrIdle.
	// Writes do not count as activity.
	IdleTimeout time.Duration
	// MessageTimeout is the longest one message may take to arrive, from
	// its first byte to its last (default 30 s, DefaultMessageTimeout;
	// negative: no limit): Handler's Read then fails with an error
	// wrapping ErrMessageTimeout. This is what frees the slots of
	// slow-loris clients, which trickle bytes and so never go idle. The
	// connection learns where messages end from its MessageRead method,
	// which a jsonrpc.Conn calls after each message (through
	// jsonrpc.MessageReader) when Handler passes it the connection
	// unwrapped; a Handler that reads the connection otherwise must call
	// it too, or set MessageTimeout negative, or every connection is
	// closed MessageTimeout after its first byte. 30 s lets a message of
	// the default 32 MiB limit arrive at 9 Mbit/s; raise it for larger
	// messages or slower links.
	MessageTimeout time.Duration
	// HandshakeTimeout is how long a connection has, from accept, to
	// become established (default 10 s, DefaultHandshakeTimeout;
	// negative: no limit); past it the Server closes the connection and
	// Handler's Read fails with an error wrapping ErrHandshakeTimeout.
	// A connection is established when its Established method is called:
	// a jsonrpc.Conn calls it (through jsonrpc.Establisher) once it has
	// answered, or got an answer to, its Options.Handshake request, or,
	// with no Handshake, once it has read a first complete message that
	// is valid JSON; so the deadline also bounds the first message. A Handler that does
	// not use jsonrpc.Conn must call it itself ([MarkEstablished]), or
	// every connection is closed after HandshakeTimeout.
	HandshakeTimeout time.Duration
	// MaxConns is the most connections served at once (default 256,
	// DefaultMaxConns; negative: unlimited). Connections not yet
	// established cannot keep others out: when a connection arrives while
	// MaxConns are open, the Server closes the oldest connection not yet
	// established and gives its slot to the new one at once (the evicted
	// Handler's Read fails with an error wrapping ErrEvicted;
	// [Server.Evictions] counts them). Only while every slot holds an
	// established connection does the Server stop accepting, so further
	// clients wait in the listener's backlog until a connection ends.
	MaxConns int
	// Logger receives accept errors, handler panics and (at Debug
	// level) connections opening, closing and being closed by a limit.
	// Nil discards them.
	Logger *slog.Logger

	mu        sync.Mutex
	quit      chan struct{} // closed by Shutdown/Close; nil until first use
	lim       limits
	listeners map[net.Listener]struct{}
	conns     map[net.Conn]*serverConn
	active    int           // running Serve loops and handlers
	closing   bool          // Shutdown or Close has been called
	idle      chan struct{} // closed when closing and active == 0
	// slots counts the connections that hold one of MaxConns; one the
	// Server closes for a limit gives its slot up at once.
	slots int
	// unestablished lists the connections holding a slot that are not
	// established yet, oldest first.
	unestablished list.List
	// changed is closed and replaced when a slot frees or a connection
	// becomes evictable.
	changed   chan struct{}
	evictions atomic.Int64
	// waiting, if set, is called (with mu held) each time the Server
	// starts waiting for a slot; tests use it to know no connection can
	// be admitted until one frees.
	waiting func()
}

// limits are a Server's limits with the defaults applied; zero means
// off.
type limits struct {
	idle, message, handshake time.Duration
	maxConns                 int
}

// limits returns s's limits with the defaults applied.
func (s *Server) limits() limits {
	return limits{
		idle:      orDefault(s.IdleTimeout, DefaultIdleTimeout),
		message:   orDefault(s.MessageTimeout, DefaultMessageTimeout),
		handshake: orDefault(s.HandshakeTimeout, DefaultHandshakeTimeout),
		maxConns:  int(orDefault(int64(s.MaxConns), DefaultMaxConns)),
	}
}

// orDefault returns def for zero, zero (off) for a negative v, else v.
func orDefault[T time.Duration | int64](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// Evictions returns how many connections the Server has closed, not yet
// established, to make room under MaxConns for a new one.
func (s *Server) Evictions() int64 { return s.evictions.Load() }

// initLocked prepares the Server's state on first use. s.mu must be held.
func (s *Server) initLocked() {
	if s.quit != nil {
		return
	}
	s.quit = make(chan struct{})
	s.lim = s.limits()
	s.changed = make(chan struct{})
	s.listeners = make(map[net.Listener]struct{})
	s.conns = make(map[net.Conn]*serverConn)
}

func (s *Server) logger() *slog.Logger {
	if s.Logger == nil {
		return discardLogger
	}
	return s.Logger
}

// Serve accepts connections on ln and serves each with s.Handler until ln
// fails or the Server is shut down. It always closes ln before returning.
// After Shutdown or Close it returns [ErrServerClosed]; otherwise it
// returns the accept error that stopped it. Temporary accept errors (for
// example too many open files) are logged and retried after a short,
// growing pause.
func (s *Server) Serve(ln net.Listener) error {
	if (s.Handler == nil) == (s.Start == nil) {
		_ = ln.Close()
		return errors.New("transport: serve: set one of Server.Handler and Server.Start")
	}
	s.mu.Lock()
	s.initLocked()
	if s.closing {
		s.mu.Unlock()
		_ = ln.Close()
		return ErrServerClosed
	}
	s.listeners[ln] = struct{}{}
	s.active++
	s.mu.Unlock()
	defer func() {
		_ = ln.Close()
		s.mu.Lock()
		delete(s.listeners, ln)
		s.doneLocked()
		s.mu.Unlock()
	}()

	var backoff time.Duration
	for {
		if !s.waitRoom() {
			return ErrServerClosed
		}
		c, err := ln.Accept()
		if err != nil {
			select {
			case <-s.quit:
				return ErrServerClosed
			default:
			}
			if !isTemporary(err) {
				return wrapf(err, "accept on %v", ln.Addr())
			}
			backoff = min(max(2*backoff, minAcceptBackoff), maxAcceptBackoff)
			s.logger().Warn("transport: accept failed; retrying",
				"addr", ln.Addr().String(), "err", err.Error(), "retry_in", backoff)
			t := time.NewTimer(backoff)
			select {
			case <-t.C:
			case <-s.quit:
				t.Stop()
				return ErrServerClosed
			}
			continue
		}
		backoff = 0
		if !s.startConn(c) {
			_ = c.Close()
			return ErrServerClosed
		}
	}
}

// doneLocked records that a Serve loop or handler has ended. s.mu must be
// held.
func (s *Server) doneLocked() {
	s.active--
	if s.closing && s.active == 0 {
		close(s.idle)
	}
}

// startConn takes a slot for c (evicting the oldest connection not yet
// established if need be, or waiting for one to end), registers c and
// starts its handler, unless the Server is closing.
func (s *Server) startConn(c net.Conn) bool {
	s.mu.Lock()
	victim, ok := s.waitRoomLocked(true)
	if !ok {
		s.mu.Unlock()
		return false
	}
	sc := s.wrapLocked(c)
	s.conns[c] = sc
	s.active++
	ctx := connCtx{&sc.ctx}
	s.mu.Unlock()
	if victim != nil {
		s.evict(victim)
	}
	if s.Start != nil {
		s.startServing(ctx, sc)
		return true
	}
	go s.serveConn(ctx, sc)
	return true
}

// startServing runs Start for c; c's end is then up to whoever closes it.
func (s *Server) startServing(ctx context.Context, c *serverConn) {
	s.logger().Debug("transport: connection opened", "remote", c.remote())
	c.started = true
	defer func() {
		if r := recover(); r != nil {
			s.logger().Error("transport: connection start panicked",
				"remote", c.remote(), "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			_ = c.Close()
		}
	}()
	s.Start(ctx, c)
}

// finishConn cleans up after c has been served.
func (s *Server) finishConn(c *serverConn) {
	c.ctx.cancel()
	_ = c.raw.Close()
	s.mu.Lock()
	s.releaseLocked(c)
	delete(s.conns, c.raw)
	s.doneLocked()
	s.mu.Unlock()
	s.logger().Debug("transport: connection closed", "remote", c.remote())
}

// serveConn runs the handler for c and cleans up after it.
func (s *Server) serveConn(ctx context.Context, c *serverConn) {
	remote := c.remote()
	s.logger().Debug("transport: connection opened", "remote", remote)
	defer s.finishConn(c)
	defer func() {
		if r := recover(); r != nil {
			s.logger().Error("transport: connection handler panicked",
				"remote", remote, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		}
	}()
	s.Handler(ctx, c)
}

// beginClose stops accepting and cancels the handlers' context, once, and
// returns the channel closed when every Serve loop and handler has
// ended.
func (s *Server) beginClose() <-chan struct{} {
	s.mu.Lock()
	s.initLocked()
	var lns []net.Listener
	var conns []*serverConn
	if !s.closing {
		s.closing = true
		close(s.quit)
		for ln := range s.listeners {
			lns = append(lns, ln)
		}
		for _, c := range s.conns {
			conns = append(conns, c)
		}
		s.idle = make(chan struct{})
		if s.active == 0 {
			close(s.idle)
		}
	}
	idle := s.idle
	s.mu.Unlock()
	for _, ln := range lns {
		_ = ln.Close()
	}
	for _, c := range conns {
		c.ctx.cancel()
	}
	return idle
}

// closeConns closes every open connection.
func (s *Server) closeConns() {
	s.mu.Lock()
	conns := make([]net.Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
}

// Shutdown shuts the Server down gracefully: it closes the listeners,
// cancels the context passed to every handler and waits for the handlers
// (and Serve loops) to return. If ctx ends first, it closes the remaining
// connections and returns ctx.Err() without waiting further; handlers
// then see their connection fail. Calling Shutdown or Close again waits
// again.
func (s *Server) Shutdown(ctx context.Context) error {
	idle := s.beginClose()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		s.closeConns()
		return ctx.Err()
	}
}

// Close shuts the Server down at once: it closes the listeners and every
// connection, cancels the handlers' context and waits for the handlers to
// return. A handler that ignores both its context and its connection's
// failure keeps Close waiting.
func (s *Server) Close() error {
	idle := s.beginClose()
	s.closeConns()
	<-idle
	return nil
}

// isTemporary reports whether an accept error is worth retrying.
func isTemporary(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	for _, errno := range []syscall.Errno{
		syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM,
		syscall.ECONNABORTED, syscall.ECONNRESET, syscall.EINTR, syscall.EAGAIN,
	} {
		if errors.Is(err, errno) {
			return true
		}
	}
	return false
}
