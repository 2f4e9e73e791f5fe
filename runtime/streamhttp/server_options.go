package streamhttp

import (
	"log/slog"
	"time"
)

// Default limits of a [Handler], used when a [ServerOptions] field is zero.
const (
	DefaultMaxBodyBytes  = 4 << 20
	DefaultMaxSessions   = 1000
	DefaultMaxStreams    = 64
	DefaultMaxEventBytes = 1 << 20
	DefaultIdleTimeout   = 10 * time.Minute
	DefaultWriteTimeout  = 10 * time.Second
	DefaultRetry         = time.Second
	DefaultKeepAlive     = 15 * time.Second
	DefaultAnswerWait    = 5 * time.Millisecond
)

// ServerOptions configures a [Handler]. The zero value serves sessions
// with the default limits.
type ServerOptions struct {
	// Stateless serves every POST by a session of its own (serve is
	// called per POST and the session ends with the answer): no session
	// ids, no GET stream (GET and DELETE get 405), and the server cannot
	// call the client. A Protocol without a SessionHeader is always
	// stateless. MaxSessions and IdleTimeout do not apply: each session
	// lives as long as its POST, so the http.Server's own limits bound
	// them.
	Stateless bool
	// JSONResponse answers requests with application/json even when the
	// client accepts an event stream; messages a handler sends while
	// serving the request then go to the GET stream.
	JSONResponse bool
	// AnswerWait is how long the answer to a POST holding one request
	// (not a batch) is held before the server settles how to send it,
	// when the client accepts both application/json and an event stream.
	// If the request's answer is the first message for it within
	// AnswerWait, it goes as one application/json body. A message
	// related to the request coming first, CloseStream, or AnswerWait
	// passing start the event stream instead, with its priming event
	// (an event id and the retry delay) first, as a stream always has:
	// so a request answered at once costs no event stream, and one that
	// runs longer gets the priming event, keep-alive comments and
	// resumption after AnswerWait at most. Default
	// [DefaultAnswerWait]; negative: such a POST gets an event stream at
	// once. JSONResponse, or an Accept header without one of the two
	// types, decides without waiting.
	AnswerWait time.Duration
	// Versions lists the revisions the server speaks. A request after the
	// handshake whose VersionHeader names another one gets 400; as in
	// the official SDKs, it is not compared with the revision the
	// handshake negotiated, and a request without the header stands for
	// Protocol.DefaultVersion and passes. Empty: any value passes.
	Versions []string
	// AllowedOrigins lists Origin header values (such as
	// "https://app.example") accepted from browsers. A request arriving on
	// a loopback address accepts loopback origins (http or https on
	// localhost, 127.0.0.1 or [::1], any port) besides these; any other
	// Origin gets 403. On other addresses an empty list accepts every
	// origin.
	AllowedOrigins []string
	// AllowedHosts lists Host header values accepted besides loopback
	// ones on a request arriving on a loopback address, where any other
	// Host gets 403 (DNS-rebinding protection).
	AllowedHosts []string
	// MaxBodyBytes bounds a POST body; past it the answer is 413
	// (default [DefaultMaxBodyBytes]).
	MaxBodyBytes int64
	// MaxSessions bounds the open sessions. A new session past it evicts
	// the session idle for longest (its client gets 404 and, per the
	// MCP rules, starts a new one); with no idle session the answer is
	// 503 (default [DefaultMaxSessions]).
	MaxSessions int
	// MaxStreams bounds the HTTP requests a session serves at once (its
	// event streams, the POSTs waiting for their answer or for the
	// connection to take their message); past it the answer is 429
	// (default [DefaultMaxStreams]).
	MaxStreams int
	// MaxEventBytes bounds the messages a session keeps for resumption;
	// the oldest go first, delivered or not. A GET whose Last-Event-ID
	// is followed by events no longer stored gets 400, as the official Go
	// SDK answers (404 would tell the client its session is gone, and it
	// would start a new one). Default [DefaultMaxEventBytes]; a single
	// message larger than it is kept until the next one.
	MaxEventBytes int
	// IdleTimeout ends a session that has had no HTTP request open and no
	// request awaiting its answer for this long (default
	// [DefaultIdleTimeout]; negative: never).
	IdleTimeout time.Duration
	// WriteTimeout bounds each write to an event stream. A client that
	// does not read within it loses the connection, and the stream's
	// messages stay stored for it to resume (default
	// [DefaultWriteTimeout]).
	WriteTimeout time.Duration
	// Retry is the reconnection delay announced in the first event of
	// every stream, and in the last one when CloseStream passes none
	// (default [DefaultRetry]: the specification sets none, and a client
	// polling a stream its server closes should not wait long).
	Retry time.Duration
	// KeepAlive is how often an event stream gets an SSE comment, so that
	// proxies keep it open while it has nothing to send, as the official
	// TypeScript SDK does (default [DefaultKeepAlive]; negative: never).
	KeepAlive time.Duration
	// Logger receives the transport's warnings; nil: slog.Default().
	Logger *slog.Logger
}

func (o ServerOptions) withDefaults() ServerOptions {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.MaxStreams <= 0 {
		o.MaxStreams = DefaultMaxStreams
	}
	if o.MaxEventBytes <= 0 {
		o.MaxEventBytes = DefaultMaxEventBytes
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.Retry <= 0 {
		o.Retry = DefaultRetry
	}
	if o.AnswerWait == 0 {
		o.AnswerWait = DefaultAnswerWait
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}
