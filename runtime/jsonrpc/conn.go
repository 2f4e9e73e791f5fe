package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// Conn is one JSON-RPC 2.0 connection. Both peers may send requests and
// notifications at any time: Conn serves incoming messages with its
// [Handler] while its [Conn.Call], [Conn.Notify] and [Conn.Batch] methods
// send to the peer. Many calls may be in flight both ways; responses are
// matched by id and may arrive in any order.
//
// A Conn starts reading as soon as it is created and ends when the peer
// closes the stream, the stream fails, or [Conn.Close] is called. Its
// methods are safe for concurrent use.
type Conn struct {
	opts    connOptions
	handler Handler
	send    SendFunc // the Outgoing middleware around sendOne; nil without (Call and Notify then call sendOne)
	log     *slog.Logger
	stream  io.ReadWriteCloser
	reader  framing.Reader
	// recycler takes back the frames of decoded responses, or is nil.
	recycler framing.Recycler
	writer   framing.Writer
	// startWriter is c.writeLoop, made once: a go statement with a method
	// value allocates, one with a func value does not.
	startWriter func()
	flusher     sink          // the writer's destination while a writer runs
	names       nameCache     // method names read, for the read loop only
	warnings    warnLimiter   // the warnings a peer can trigger
	queued      byteBudget    // bytes of incoming messages waiting for a handler
	out         outQueue      // messages waiting for the write loop
	related     RelatedWriter // the stream, when it routes messages by request
	// inputDone is closed when reading has ended (EOF or a read error):
	// made by inputEnded when a writer first waits for it, closedChan
	// when reading ended before (guarded by mu).
	inputDone chan struct{}

	// version is the protocol version the handshake negotiated, or nil
	// (see Options.VersionField).
	version atomic.Pointer[string]

	nextID atomic.Int64
	stats  counters // see Conn.Stats

	// The small fields together, packed (see TestConnSizeClass).
	established    atomic.Bool
	closeAfterNote atomic.Bool // a notification handler called CloseAfterReply
	killOnClose    atomic.Bool // kill the peer process instead of closing the stream gently
	inputEnd       bool        // the peer sent its last message (guarded by mu)
	// waits: the reader is a framing.Waiter that can hand the wait for
	// input to a new goroutine (see readLoop).
	waits bool
	// framesTold: the stream is a MessageReader; establishes: it is an
	// Establisher (flags rather than method values, which would be an
	// allocation each).
	framesTold, establishes bool

	mu       sync.Mutex
	pending  map[int64]*pendingCall // our calls awaiting a response, by request number; made by the first call
	inflight inflightSet            // peer requests being handled, by id text
	err      error                  // why the connection ended; nil while open
	peerErr  *PeerError             // the last error response with id null
	// cancelled holds our calls given up with a cancellation sent (guarded
	// by mu): their answers may still come.
	cancelled map[int64]struct{}
	// slotFreed is closed when a pending call goes away while calls wait
	// for a slot (guarded by mu; nil when none waits).
	slotFreed chan struct{}

	done       chan struct{}   // closed when the connection ends
	handlerCtx context.Context // the Conn's context, or one of Options.BaseContext cancelled with it
	// requestBase is what each peer request's context derives from:
	// handlerCtx without its cancellation, so that a request does not
	// leave a map of children behind on an idle connection (the
	// connection cancels its requests in flight itself, cancelInflight),
	// or handlerCtx itself when that has a deadline.
	requestBase context.Context
	// release, with Options.BaseContext, unhooks cancelInflight from it
	// and cancels handlerCtx; nil without.
	release func()
	// after holds what is registered with the Conn's context's AfterFunc (guarded by
	// mu; nil when nothing is).
	after  *afterFuncs
	order  noteOrder      // with Options.OrderRequestsAfterNotifications
	inline inlineReader   // with Options.Inline
	wg     sync.WaitGroup // the read and write loops and tracked goroutines
	// handlers counts the request and notification workers.
	handlers sync.WaitGroup
	// The work queues are part of the Conn: an idle connection holds no
	// allocation of theirs (see workQueue.first).
	requests      workQueue[*incoming]
	notifications workQueue[*incoming]
}

// requestRunner is a Conn as the runner of its request queue.
type requestRunner Conn

func (r *requestRunner) runTask(in *incoming)      { (*Conn)(r).runRequest(in) }
func (r *requestRunner) workers() *sync.WaitGroup  { return &r.handlers }
func (r *requestRunner) ended() <-chan struct{}    { return r.done }
func (r *requestRunner) lingerTime() time.Duration { return linger }

// noteRunner is a Conn as the runner of its notification queue.
type noteRunner Conn

func (r *noteRunner) runTask(in *incoming)      { (*Conn)(r).runNotification(in) }
func (r *noteRunner) workers() *sync.WaitGroup  { return &r.handlers }
func (r *noteRunner) ended() <-chan struct{}    { return r.done }
func (r *noteRunner) lingerTime() time.Duration { return linger }

// context returns the connection's context, the Conn itself
// (connContext): done when the connection ends.
func (c *Conn) context() context.Context { return (*connContext)(c) }

// ErrPeerClosed is the reason a connection ended when the peer closed its
// end of the stream.
var ErrPeerClosed = errors.New("jsonrpc: peer closed the connection")

// errLocalClose is the reason a connection ended when Close was called.
var errLocalClose = errors.New("jsonrpc: closed locally")

type connKey struct{}

// NewConn starts a connection over stream, which it owns and closes when
// the connection ends.
func NewConn(stream io.ReadWriteCloser, opts Options) *Conn {
	opts = opts.withDefaults()
	c := &Conn{
		opts:     opts.kept(),
		log:      opts.Logger,
		stream:   stream,
		reader:   opts.Framing.NewReader(stream, opts.Limits),
		out:      outQueue{max: int32(min(opts.MaxQueuedWrites, math.MaxInt32))},
		done:     make(chan struct{}),
		warnings: warnLimiter{now: opts.now},
		queued:   byteBudget{max: int64(opts.MaxQueuedBytes), onFull: opts.onQueueFull},
	}
	c.writer = opts.Framing.NewWriter(&c.flusher)
	c.flusher.stream = stream
	c.startWriter = c.writeLoop
	_, c.framesTold = stream.(MessageReader)
	_, c.establishes = stream.(Establisher)
	c.recycler, _ = c.reader.(framing.Recycler)
	if _, ok := stream.(framing.IdleInput); ok {
		_, c.waits = c.reader.(framing.Waiter)
	}
	c.related, _ = stream.(RelatedWriter)
	c.handlerCtx, c.requestBase = c.context(), (*connValues)(c)
	if opts.BaseContext != nil {
		hctx, hcancel := context.WithCancel(opts.BaseContext)
		c.handlerCtx = context.WithValue(hctx, connKey{}, c)
		c.requestBase = c.handlerCtx
		c.release = hcancel
		if _, ok := c.handlerCtx.Deadline(); !ok {
			c.requestBase = context.WithoutCancel(c.handlerCtx)
			stop := context.AfterFunc(c.handlerCtx, c.cancelInflight)
			c.release = func() { stop(); hcancel() }
		}
	}

	var h Handler = HandlerFunc(methodNotFound)
	if opts.Handler != nil {
		h = opts.Handler
	}
	for i := len(opts.Middleware) - 1; i >= 0; i-- {
		h = opts.Middleware[i](h)
	}
	c.handler = h
	if len(opts.Outgoing) > 0 {
		send := c.sendOne
		for i := len(opts.Outgoing) - 1; i >= 0; i-- {
			send = opts.Outgoing[i](send)
		}
		c.send = send
	}

	c.requests.init(opts.MaxConcurrentRequests, opts.MaxQueuedRequests, (*requestRunner)(c))
	c.notifications.init(1, opts.MaxQueuedNotifications, (*noteRunner)(c))
	opts.Metrics.attach(c)
	c.wg.Add(1)
	go c.readLoop()
	return c
}

// MessageReader is implemented by streams that want to know where
// messages end, such as a transport that limits how long one message may
// take to arrive. A [Conn] calls MessageRead after reading each complete
// frame from the stream, before handling it.
type MessageReader interface {
	MessageRead()
}

// Establisher is implemented by streams that want to know when the
// connection is established, such as a transport.Server connection, which
// is closed if that takes too long and may be evicted to make room until
// then. A [Conn] calls Established once: when it answers a request of
// method [Options.Handshake] with a result (not an error), or when its
// own call of that method gets a result; with no Handshake, after it
// reads its first complete message that is valid JSON.
type Establisher interface {
	Established()
}

// markEstablished calls the stream's Established, the first time only.
func (c *Conn) markEstablished() {
	if c.establishes && !c.established.Swap(true) {
		c.stream.(Establisher).Established()
	}
}

// spareMessages holds the buffers of written messages for reuse, shared
// by all connections so that an idle connection keeps none.
var spareMessages = make(chan []byte, 8*spareBuffers)

// writeBufferSize is the size of the buffers that gather the messages
// queued at one time into one write (see writeBuffers).
const writeBufferSize = 32 << 10

// ConnFromContext returns the connection serving the request whose handler
// received ctx, or nil.
func ConnFromContext(ctx context.Context) *Conn {
	c, _ := ctx.Value(connKey{}).(*Conn)
	return c
}

func methodNotFound(_ context.Context, req *Request) (any, error) {
	return nil, MethodNotFound(req.Method)
}

// Done returns a channel closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the connection ended ([ErrPeerClosed], a read or write
// error, ...), or nil while it is open. When the peer ended it after
// reporting an error with id null, the result also wraps that
// [*PeerError].
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == errLocalClose || c.err == errClosedAfterReply {
		return ErrClosed
	}
	if c.err == nil {
		return nil
	}
	return c.withPeerError(c.err)
}

// Close ends the connection: it closes the stream, fails every pending call
// with an error wrapping [ErrClosed], cancels the contexts of running
// handlers, and returns once every goroutine the connection started has
// ended (so it waits for handlers to return). Close must not be called from
// a handler of the same connection; return from the handler first.
func (c *Conn) Close() error {
	err := c.shutdown(errLocalClose)
	c.waitAll()
	return err
}

// waitAll waits for every goroutine the connection started. The loops go
// first: once the read loop has ended, no worker is started any more.
func (c *Conn) waitAll() {
	c.wg.Wait()
	c.handlers.Wait()
}

// Shutdown is Close bounded by ctx: if handlers have not returned when ctx
// ends, it returns ctx's error while they finish in the background.
func (c *Conn) Shutdown(ctx context.Context) error {
	err := c.shutdown(errLocalClose)
	waited := make(chan struct{})
	go func() { c.waitAll(); close(waited) }()
	select {
	case <-waited:
		return err
	case <-ctx.Done():
		return errorf("jsonrpc: shutdown: handlers still running: %w", ctx.Err())
	}
}

// Wait blocks until the connection has ended and all its goroutines have
// returned, and returns the reason it ended, like Err.
func (c *Conn) Wait() error {
	<-c.done
	c.waitAll()
	return c.Err()
}

// shutdown ends the connection once, for the given reason, and returns the
// error from closing the stream (nil on later calls).
func (c *Conn) shutdown(reason error) error {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil
	}
	c.err = reason
	pending := c.pending
	c.pending = nil
	c.wakeCallers()
	// Sealed together with err: no writer starts once Wait may run.
	drain := reason == errLocalClose || reason == ErrPeerClosed
	drained, start := c.out.seal(drain)
	if start {
		c.wg.Add(1)
	}
	c.mu.Unlock()
	if start {
		go c.startWriter()
	}

	close(c.done)
	c.endContexts()
	c.cancelInflight()
	c.opts.Metrics.detach(c)
	// Let the write loop send what was queued (our answers to a peer that
	// has finished sending), unless the peer does not read it in time.
	if drain && !awaitDrained(drained, c.opts.DrainTimeout) {
		c.log.Warn("jsonrpc: peer did not read the last messages before close")
	}
	if k, ok := c.stream.(interface{ Kill() error }); ok && c.killOnClose.Load() {
		if kerr := k.Kill(); kerr != nil {
			c.log.Warn("jsonrpc: killing the peer", "error", kerr)
		}
	}
	err := c.stream.Close()
	if reason != errLocalClose {
		c.log.Debug("jsonrpc: connection ended", "reason", reason)
	}
	c.warnings.summary(c.log)
	failure := c.closedError()
	for _, p := range pending {
		p.ch <- callResult{err: failure}
	}
	if err != nil && !errors.Is(err, io.ErrClosedPipe) {
		return errorf("jsonrpc: closing stream: %w", err)
	}
	return nil
}

// closedError is the error of a call that failed because the connection
// ended.
func (c *Conn) closedError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	reason := c.err
	if reason == nil && c.inputEnd {
		return closedBy(c.withPeerError(ErrPeerClosed))
	}
	if reason == nil || reason == errLocalClose || reason == errClosedAfterReply {
		return ErrClosed
	}
	return closedBy(c.withPeerError(reason))
}

// readLoop reads and dispatches messages until the stream ends. On a
// stream that says when it has been idle a while (framing.IdleInput), the
// reader ends then, and a new goroutine waits for the next message's
// first bytes (awaitInput) and becomes the reader: an idle connection's
// one goroutine keeps a goroutine's first, small stack, not the one the
// reader grew while handling messages. A busy connection keeps its
// reader. A reader replaced while it wrote an inline answer (see
// inline.go) just ends.
func (c *Conn) readLoop() {
	switch c.readMessages() {
	case readIdle:
		go c.awaitInput()
		return
	case readReplaced:
		c.wg.Done()
		return
	}
	c.closeQueues()
	c.wg.Done()
}

// awaitInput waits for the next message's first bytes, then reads on as
// the connection's reader. It starts from readLoop, as the reader, when
// the connection has been idle a while.
func (c *Conn) awaitInput() {
	c.reader.(framing.Waiter).Wait()
	c.readLoop()
}

// closeQueues closes the work queues (again is harmless).
func (c *Conn) closeQueues() {
	c.requests.close()
	c.notifications.close()
}

// readMessages reads and dispatches messages until the stream ends, until
// it has been idle a while, or until another goroutine has taken over
// reading.
func (c *Conn) readMessages() readEnd {
	gen := c.readerGeneration()
	for {
		var msg []byte
		var err error
		if c.waits {
			msg, err = c.reader.(framing.Waiter).ReadBusy()
		} else {
			msg, err = c.reader.Read()
		}
		if err != nil {
			if err == framing.ErrStillIdle {
				return readIdle
			}
			if fe := recoverable(err); fe != nil {
				c.frameRead()
				if isTooLarge(fe) {
					c.skippedTooLarge(fe)
					continue
				}
				c.warn("jsonrpc: skipped a bad frame", "reason", Truncate(fe.Error()))
				c.replyFromReader(c.errorResponse(NullID, invalidRequest(Truncate(fe.Error()))))
				continue
			}
			c.endInput()
			if errors.Is(err, io.EOF) {
				c.closeQueues()
				c.peerFinished()
				return readDone
			}
			select {
			case <-c.done: // ended already (Close): the read failed for that
			default:
				c.shutdown(&readError{err})
			}
			return readDone
		}
		c.frameIn(msg)
		c.frameRead()
		if c.establishes && c.opts.Handshake == "" && !c.established.Load() && json.Valid(msg) {
			c.markEstablished()
		}
		c.handleFrame(msg)
		if c.replaced(gen) {
			return readReplaced
		}
		select {
		case <-c.done:
			return readDone
		default:
		}
	}
}

// frameRead tells the stream, if it asks, that a frame has been read.
func (c *Conn) frameRead() {
	if c.framesTold {
		c.stream.(MessageReader).MessageRead()
	}
}

// endInput records that reading has ended, closing inputDone if a writer
// waits for it.
func (c *Conn) endInput() {
	c.mu.Lock()
	if c.inputDone == nil {
		c.inputDone = closedChan
	} else {
		close(c.inputDone)
	}
	c.mu.Unlock()
}

// inputEnded returns a channel closed when reading has ended.
func (c *Conn) inputEnded() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inputDone == nil {
		c.inputDone = make(chan struct{})
	}
	return c.inputDone
}

// goTracked runs f on a goroutine the connection waits for, unless the
// connection has already ended.
func (c *Conn) goTracked(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.wg.Go(f)
}
