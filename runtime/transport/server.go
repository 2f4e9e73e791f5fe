package transport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
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

// Server accepts stream connections (TCP or Unix-domain sockets) and
// serves each one with Handler in its own goroutine. Set the fields before
// the first call to Serve and do not change them afterwards. A Server must
// not be copied after first use.
//
// A Server can serve several listeners at once. After Shutdown or Close it
// cannot be reused.
type Server struct {
	// Handler serves one connection. It runs in its own goroutine, and
	// the Server closes the connection when Handler returns. ctx is
	// cancelled at Shutdown or Close (and after Handler returns). A
	// panic in Handler is logged and ends only that connection.
	Handler func(ctx context.Context, c net.Conn)
	// IdleTimeout, if > 0, closes a connection that receives no bytes
	// for this long: the connection Handler gets is wrapped with
	// WithIdleTimeout (or WithMessageTimeout, see MessageTimeout), so
	// Handler's blocked Read then fails with an error wrapping ErrIdle.
	IdleTimeout time.Duration
	// MessageTimeout, if > 0, is the longest one message may take to
	// arrive, from its first byte to its last: the connection Handler
	// gets is wrapped with WithMessageTimeout (with IdleTimeout between
	// messages), so Handler's Read fails with an error wrapping
	// ErrMessageTimeout once a message is late. This is what frees the
	// MaxConns slots of slow-loris clients, which trickle bytes and so
	// never go idle. Handler must pass the connection it gets, unwrapped,
	// to jsonrpc.NewConn (or otherwise call its MessageRead method after
	// each message); otherwise every connection is closed MessageTimeout
	// after its first byte. For that reason no default applies, not even
	// with MaxConns. Recommended: set it whenever MaxConns is set, above
	// the time the largest message a client may send takes on the
	// slowest link served; 30 s, for example, lets a message of the
	// default 32 MiB limit arrive at 9 Mbit/s.
	MessageTimeout time.Duration
	// MaxConns, if > 0, is the most connections served at once. While
	// that many are open the Server stops accepting, so further clients
	// wait in the listener's backlog until a connection ends. Set
	// MessageTimeout with it, or clients that trickle bytes can hold
	// every slot.
	MaxConns int
	// Logger receives accept errors, handler panics and (at Debug
	// level) connections opening and closing. Nil discards them.
	Logger *slog.Logger

	mu        sync.Mutex
	quit      chan struct{} // closed by Shutdown/Close; nil until first use
	ctx       context.Context
	cancel    context.CancelFunc
	sem       chan struct{} // MaxConns slots; nil when unlimited
	listeners map[net.Listener]struct{}
	conns     map[net.Conn]struct{}
	active    int           // running Serve loops and handlers
	closing   bool          // Shutdown or Close has been called
	idle      chan struct{} // closed when closing and active == 0
}

// initLocked prepares the Server's state on first use. s.mu must be held.
func (s *Server) initLocked() {
	if s.quit != nil {
		return
	}
	s.quit = make(chan struct{})
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if s.MaxConns > 0 {
		s.sem = make(chan struct{}, s.MaxConns)
	}
	s.listeners = make(map[net.Listener]struct{})
	s.conns = make(map[net.Conn]struct{})
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
	if s.Handler == nil {
		_ = ln.Close()
		return errors.New("transport: serve: Server.Handler is nil")
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
		if s.sem != nil {
			select {
			case s.sem <- struct{}{}:
			case <-s.quit:
				return ErrServerClosed
			}
		}
		c, err := ln.Accept()
		if err != nil {
			s.release()
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
			s.release()
			return ErrServerClosed
		}
	}
}

// release frees a MaxConns slot.
func (s *Server) release() {
	if s.sem != nil {
		<-s.sem
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

// startConn registers c and starts its handler, unless the Server is
// closing.
func (s *Server) startConn(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.conns[c] = struct{}{}
	s.active++
	ctx, cancel := context.WithCancel(s.ctx)
	go s.serveConn(ctx, cancel, c)
	return true
}

// serveConn runs the handler for c and cleans up after it.
func (s *Server) serveConn(ctx context.Context, cancel context.CancelFunc, c net.Conn) {
	remote := fmt.Sprint(c.RemoteAddr())
	s.logger().Debug("transport: connection opened", "remote", remote)
	defer func() {
		cancel()
		_ = c.Close()
		s.release()
		s.mu.Lock()
		delete(s.conns, c)
		s.doneLocked()
		s.mu.Unlock()
		s.logger().Debug("transport: connection closed", "remote", remote)
	}()
	defer func() {
		if r := recover(); r != nil {
			s.logger().Error("transport: connection handler panicked",
				"remote", remote, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		}
	}()
	s.Handler(ctx, WithMessageTimeout(c, s.IdleTimeout, s.MessageTimeout))
}

// beginClose stops accepting and cancels the handlers' context, once, and
// returns the channel closed when every Serve loop and handler has
// ended.
func (s *Server) beginClose() <-chan struct{} {
	s.mu.Lock()
	s.initLocked()
	var lns []net.Listener
	if !s.closing {
		s.closing = true
		close(s.quit)
		s.cancel()
		for ln := range s.listeners {
			lns = append(lns, ln)
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
