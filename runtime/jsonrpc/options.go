package jsonrpc

import (
	"context"
	"log/slog"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// Default limits of a connection, used when an [Options] field is zero.
const (
	DefaultMaxConcurrentRequests  = 64
	DefaultMaxQueuedRequests      = 1024
	DefaultMaxQueuedNotifications = 1024
	DefaultMaxBatchSize           = 1000
	DefaultMaxQueuedWrites        = 256
	DefaultDrainTimeout           = time.Second
	DefaultFinishTimeout          = 30 * time.Second
	DefaultMaxOutgoingCalls       = 1024
	DefaultMaxQueuedBytes         = 64 << 20
	DefaultMaxResponseBytes       = 32 << 20
)

// Cancellation selects how a protocol cancels requests in flight.
type Cancellation uint8

const (
	// CancelNone: the protocol has no cancellation message; a cancelled call
	// just stops waiting.
	CancelNone Cancellation = iota
	// CancelLSP: the notification "$/cancelRequest" with params {"id": id}.
	// The cancelled request is still answered, with -32800 when its handler
	// fails.
	CancelLSP
	// CancelMCP: the notification "notifications/cancelled" with params
	// {"requestId": id, "reason": "..."}. The cancelled request is not
	// answered.
	CancelMCP
)

// Method returns the wire name of the cancellation notification, or "".
func (c Cancellation) Method() string {
	switch c {
	case CancelLSP:
		return "$/cancelRequest"
	case CancelMCP:
		return "notifications/cancelled"
	}
	return ""
}

// IDStyle selects the kind of ids a connection gives its own requests.
type IDStyle uint8

const (
	// IntegerIDs numbers requests 1, 2, 3, ...
	IntegerIDs IDStyle = iota
	// StringIDs numbers requests "1", "2", "3", ...
	StringIDs
)

// Timeout is a method's default timeout and what happens when it elapses.
type Timeout struct {
	// After is how long a call waits for its response when the caller's
	// context has no deadline; zero means no default timeout.
	After time.Duration
	// Cancel sends the protocol's cancellation notification on timeout.
	Cancel bool
	// Action is what happens to the connection on timeout.
	Action TimeoutAction
}

// TimeoutAction is what a timed-out call does besides failing with a
// [*TimeoutError].
type TimeoutAction uint8

const (
	// TimeoutFail only fails the call; the connection carries on.
	TimeoutFail TimeoutAction = iota
	// TimeoutClose also closes the connection: the peer is taken as failed
	// and every other pending call fails with ErrClosed.
	TimeoutClose
	// TimeoutKill also kills the peer's process, when the stream has a
	// Kill() error method (as a spawned transport.Process has), then
	// closes the connection.
	TimeoutKill
)

// Options configure a [Conn]. The zero value is usable: NDJSON framing, no
// handler (every request is answered with -32601), default limits.
type Options struct {
	// Framing splits the stream into messages; nil means framing.NDJSON.
	Framing framing.Framing
	// Limits bound the size of incoming messages.
	Limits framing.Limits
	// Handler answers incoming requests and notifications.
	Handler Handler
	// Middleware wraps Handler; the first element is the outermost.
	Middleware []Middleware
	// BaseContext is the context every handler's context derives from
	// (nil: context.Background()): its values reach every handler through
	// ctx.Value, and cancelling it cancels the context of every handler
	// running and of every one started afterwards, for a server to stop
	// them all on shutdown. It does not close the connection: messages
	// are still read, and the answer a handler returns once cancelled is
	// sent as any other (a handler returning ctx.Err() is answered with
	// -32603, or -32800 under CancelLSP when the peer cancelled it).
	// Calls this side sends are not affected.
	BaseContext context.Context
	// Outgoing wraps outgoing calls and notifications; the first element is
	// the outermost. Each element of a [Conn.Batch] goes through it too
	// (see [Outgoing.Batch]).
	Outgoing []OutgoingMiddleware
	// MaxConcurrentRequests bounds how many incoming requests are handled
	// at once (default 64).
	MaxConcurrentRequests int
	// MaxQueuedRequests bounds how many incoming requests wait for a free
	// handler slot (default 1024); when full, reading from the peer pauses.
	MaxQueuedRequests int
	// MaxQueuedNotifications bounds how many incoming notifications wait to
	// be handled (default 1024); when full, reading from the peer pauses.
	MaxQueuedNotifications int
	// MaxBatchSize bounds the number of elements of an incoming batch
	// (default 1000); a larger batch is answered with a single -32600.
	MaxBatchSize int
	// MaxQueuedWrites bounds how many outgoing messages wait to be written
	// (default 256); when full, senders wait (or give up when their
	// context ends).
	MaxQueuedWrites int
	// MaxOutgoingCalls bounds the calls this side has sent and not yet had
	// answered: each [Conn.Call], and each request of a [Conn.Batch]
	// (default 1024; negative: unlimited). Past it a call fails at once
	// with an error wrapping [ErrTooManyCalls] and naming the method, so
	// a peer that never answers cannot make us hold an unbounded number
	// of calls, and a handler that calls the peer for every notification
	// cannot amplify a flood of them. Failing is the default because
	// waiting can deadlock: a notification handler waiting for a slot
	// stops the notification queue, reading pauses once it is full, and
	// the answers that would free the slot are never read.
	MaxOutgoingCalls int
	// WaitForCallSlots makes a call past MaxOutgoingCalls wait for a slot
	// (or for its context, or for the connection to end) instead of
	// failing. To stay clear of the deadlock above, a call whose context
	// is that of a handler of the same connection still fails at once;
	// a handler that calls with another context must not wait forever.
	WaitForCallSlots bool
	// MaxQueuedBytes bounds the bytes of incoming requests and
	// notifications read and waiting to be handled (default 64 MiB, twice
	// the default message limit, so that one message of the largest size
	// always fits; negative: unlimited). When a message would go past it,
	// reading from the peer pauses until handlers have taken enough from
	// the queues: the bytes stay with the peer. A message arriving when
	// nothing is queued is always taken, whatever its size.
	MaxQueuedBytes int
	// MaxResponseBytes bounds the encoded size of one answer, and of the
	// whole answer to a batch (default 32 MiB; negative: unlimited). A
	// response that encodes larger is replaced by a -32603 error saying
	// the result was too large, with its size and the limit as data; in a
	// batch, so is each answer that would take the batch's answer past
	// the limit, and one that does not fit even so is left out.
	MaxResponseBytes int
	// DrainTimeout bounds how long Close waits for queued messages to be
	// written before closing the stream (default 1s).
	DrainTimeout time.Duration
	// FinishTimeout bounds how long the requests and notifications the
	// peer sent before its end of input (EOF: a client that closes its
	// output after its last request, a pipe half-closed) get to be
	// handled and their answers written, while the stream still takes
	// writes (default 30s; negative: none, they are cancelled at once).
	// Past it the handlers still running are cancelled, their answers
	// dropped, and the connection ends. The wait also ends when a write
	// fails (the peer reads no more), on [Conn.Close], and when the
	// channel returned by the stream's Ended() <-chan struct{} method, if
	// it has one, is closed: nothing written reaches the peer any more (a
	// streamhttp session that ended). A peer that closed the whole stream
	// looks the same until a write fails, so handler contexts of a
	// vanished TCP client are cancelled only at this bound: lower it
	// where handlers should stop sooner.
	FinishTimeout time.Duration
	// RejectBatches refuses JSON-RPC batches, for protocols that never
	// accept them (an IDL's batches: false; for batches allowed in some
	// revisions only, see BatchVersions): an incoming batch is
	// answered with one -32600 (id null) and none of its elements is
	// handled, and [Conn.Batch] fails with [ErrBatchesRejected] without
	// sending anything.
	RejectBatches bool
	// OrderRequestsAfterNotifications makes an incoming request's handler
	// start only after every notification read before it has been handled
	// (as LSP requires: a request sees the didOpen sent before it).
	// Requests still run concurrently with each other and with later
	// notifications. A waiting request holds one of MaxConcurrentRequests,
	// and gives up when it is cancelled (answered as if its handler had
	// returned the context's error) or the connection ends. Beware a
	// notification handler that waits for a request of the peer that the
	// peer sends only after we answer a later request: that deadlocks.
	OrderRequestsAfterNotifications bool
	// Cancellation is the protocol's cancellation style.
	Cancellation Cancellation
	// IgnoreNotifications lists prefixes of method names: a notification
	// whose name starts with one of them and that the handler answers with
	// -32601 (it does not know or implement the method) is dropped without
	// a log line. "" matches every name.
	IgnoreNotifications []string
	// Handshake is the method of the protocol's handshake request, or "".
	// The connection counts as established (see [Establisher]) once a
	// request of this method has been answered with a result, in either
	// direction; with no Handshake, once a first valid message has been
	// read.
	Handshake string

	// VersionField is the member of the handshake's result that holds the
	// protocol version the handshake negotiated, such as MCP's
	// "protocolVersion"; "" for none. The connection reads it from the
	// first result of [Options.Handshake] it sends or receives; see
	// [Conn.ProtocolVersion].
	VersionField string
	// BatchVersions, when not nil, lists the negotiated protocol versions
	// (see VersionField) under which JSON-RPC batches are accepted, for
	// protocols whose batches depend on the version (MCP had them in
	// revision 2025-03-26 only). Until the handshake has negotiated a
	// version, so that the handshake is never part of a batch, and under
	// a version not listed, batches are refused as with RejectBatches.
	BatchVersions []string
	// IDs is the style of the ids this side gives its requests.
	IDs IDStyle
	// Timeout returns a method's default timeout; nil means none.
	Timeout func(method string) Timeout
	// Idempotent reports whether a request for method has the effect of
	// one when run twice; a [Redialer] sends such a call again on a new
	// connection when its connection ended before the answer came. nil:
	// none is.
	Idempotent func(method string) bool
	// Inline, if set, reports whether the handler of method may run on
	// the goroutine that reads the connection, instead of being handed to
	// a worker goroutine: a lone request or notification then costs no
	// goroutine switch, and the answer is written by the reader itself
	// when nothing else is being written. Say true only for handlers that
	// never block (no I/O, no call or notification to the peer, no
	// waiting on another request or on a lock held across one): the
	// connection reads nothing else until the handler returns, so the
	// peer cannot cancel it either. A message still goes to a worker when
	// the peer's next message arrived with it, when others wait to be
	// handled, while a notification is being handled, as part of a
	// batch, and over a stream that routes answers by request
	// ([RelatedWriter]). Middleware, panic recovery, statistics
	// and the refusal of a duplicate id apply as for any handler; the
	// handler's context ends when the connection does. nil: none runs
	// on the reader.
	Inline func(method string) bool
	// OnTimeout, if set, is called when a call runs out its default
	// timeout, after the call has failed with a *TimeoutError.
	OnTimeout func(method string, id ID)
	// OnPeerError, if set, is called on the read loop with every error
	// response whose id is null: an error the peer reported on its own,
	// such as why it is about to exit (see [PeerError]). It must not block.
	OnPeerError func(*Error)
	// Metrics, if set, also counts this connection into a [Metrics]
	// shared with other connections, such as every connection of a
	// server; [Conn.Stats] counts this one alone.
	Metrics *Metrics
	// Trace, if set, is called with every frame read (before it is
	// parsed: one that is not valid JSON is traced too; one over the
	// size limit is skipped unread and is not) and written (a batch and
	// its answer are one frame each); nil, the default, costs nothing.
	// It runs on the goroutines that read and write, so a slow Trace
	// slows the connection, and it must not keep or change frame, whose
	// memory is reused. [TraceWriter] writes readable lines.
	Trace func(dir Direction, frame []byte)
	// ExposeErrors sends the text of a handler's plain Go errors to the peer
	// instead of the generic "Internal error".
	ExposeErrors bool
	// DisallowUnknownFields makes [Request.DecodeParams] reject params with
	// fields the target type does not have.
	DisallowUnknownFields bool
	// Logger receives diagnostics; nil discards them. Nothing is ever
	// written to stdout. Warnings a peer can trigger are rate-limited per
	// connection (the first 10, then at most one a second carrying the
	// count suppressed since, and a total when the connection ends), and
	// the values from the peer they quote go through [Truncate].
	Logger *slog.Logger

	// now is the warning limiter's clock (time.Now when nil); tests set it.
	now func() time.Time
	// onQueueFull, when set, is called each time reading pauses because
	// MaxQueuedBytes is reached; tests set it.
	onQueueFull func()
}

// withDefaults returns o with zero fields replaced by defaults.
func (o Options) withDefaults() Options {
	if o.Framing == nil {
		o.Framing = framing.NDJSON
	}
	if o.MaxConcurrentRequests <= 0 {
		o.MaxConcurrentRequests = DefaultMaxConcurrentRequests
	}
	if o.MaxQueuedRequests <= 0 {
		o.MaxQueuedRequests = DefaultMaxQueuedRequests
	}
	if o.MaxQueuedNotifications <= 0 {
		o.MaxQueuedNotifications = DefaultMaxQueuedNotifications
	}
	if o.MaxBatchSize <= 0 {
		o.MaxBatchSize = DefaultMaxBatchSize
	}
	if o.MaxQueuedWrites <= 0 {
		o.MaxQueuedWrites = DefaultMaxQueuedWrites
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = DefaultDrainTimeout
	}
	if o.FinishTimeout == 0 {
		o.FinishTimeout = DefaultFinishTimeout
	}
	if o.MaxOutgoingCalls == 0 {
		o.MaxOutgoingCalls = DefaultMaxOutgoingCalls
	}
	if o.MaxQueuedBytes == 0 {
		o.MaxQueuedBytes = DefaultMaxQueuedBytes
	}
	if o.MaxResponseBytes == 0 {
		o.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if o.now == nil {
		o.now = time.Now
	}
	if o.Logger == nil {
		o.Logger = discardLogger
	}
	return o
}

// connOptions are the options a [Conn] reads after NewConn has started
// it, with their defaults; the others (framing, limits, handler,
// middleware, base context, queue bounds, logger) are spent in NewConn.
// A Conn keeps these, not the whole Options, so that it fits a smaller
// allocation size class (see TestConnSizeClass). Same names as in
// Options; the small fields last, to pack them.
type connOptions struct {
	Outgoing            []OutgoingMiddleware
	IgnoreNotifications []string
	BatchVersions       []string
	Handshake           string
	VersionField        string
	MaxBatchSize        int
	MaxOutgoingCalls    int
	MaxResponseBytes    int
	DrainTimeout        time.Duration
	FinishTimeout       time.Duration
	Timeout             func(method string) Timeout
	Inline              func(method string) bool
	OnTimeout           func(method string, id ID)
	OnPeerError         func(*Error)
	Metrics             *Metrics
	Trace               func(dir Direction, frame []byte)

	WaitForCallSlots                bool
	RejectBatches                   bool
	OrderRequestsAfterNotifications bool
	ExposeErrors                    bool
	DisallowUnknownFields           bool
	Cancellation                    Cancellation
	IDs                             IDStyle
}

// kept returns the options of o a Conn keeps after NewConn; o has its
// defaults.
func (o *Options) kept() connOptions {
	return connOptions{
		Outgoing:                        o.Outgoing,
		IgnoreNotifications:             o.IgnoreNotifications,
		BatchVersions:                   o.BatchVersions,
		Handshake:                       o.Handshake,
		VersionField:                    o.VersionField,
		MaxBatchSize:                    o.MaxBatchSize,
		MaxOutgoingCalls:                o.MaxOutgoingCalls,
		MaxResponseBytes:                o.MaxResponseBytes,
		DrainTimeout:                    o.DrainTimeout,
		FinishTimeout:                   o.FinishTimeout,
		Timeout:                         o.Timeout,
		Inline:                          o.Inline,
		OnTimeout:                       o.OnTimeout,
		OnPeerError:                     o.OnPeerError,
		Metrics:                         o.Metrics,
		Trace:                           o.Trace,
		WaitForCallSlots:                o.WaitForCallSlots,
		RejectBatches:                   o.RejectBatches,
		OrderRequestsAfterNotifications: o.OrderRequestsAfterNotifications,
		ExposeErrors:                    o.ExposeErrors,
		DisallowUnknownFields:           o.DisallowUnknownFields,
		Cancellation:                    o.Cancellation,
		IDs:                             o.IDs,
	}
}

// discardLogger is the Logger of connections given none: a Logger never
// changes, so all share one.
var discardLogger = slog.New(slog.DiscardHandler)
