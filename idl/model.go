package idl

import (
	"encoding/json"
	"math"
	"time"
)

// Protocol is one resolved and validated protocol: the only input of the
// generators. Every name it holds has been checked, every type reference
// points to its [TypeDef], and every Go name is unique where it must be.
type Protocol struct {
	Name      string // protocol name as written, e.g. "autohand"
	GoPackage string // Go package name derived from Name
	Version   string // protocol version, free text; may be empty
	Doc       string // description
	Lifecycle string // how a session starts, runs and ends; may be empty

	// Roles are the two peers. Roles[0] starts the connection: it spawns
	// the other as a subprocess or dials it; Roles[1] is spawned or
	// listens.
	Roles [2]Role

	Framing      Framing
	Transports   []Transport // in source order; may be empty
	IDStyle      IDStyle     // kind of request IDs this protocol's peers send
	Cancellation Cancellation
	Ordering     Ordering // whether requests wait for earlier notifications
	// Handshake is the request that opens a session (handshake:), nil
	// for none: until it has been answered with a result, a server may
	// treat the connection as not established.
	Handshake *Method
	// VersionField is the member of the handshake's result that holds
	// the protocol version the handshake negotiated (handshake:
	// {version_field: ...}), such as "protocolVersion"; "" when the
	// handshake negotiates none.
	VersionField string
	// NoBatches is set by batches: false: the protocol does not accept
	// JSON-RPC batches, and a peer's batch is refused with -32600.
	NoBatches bool
	// BatchVersions, from batches: {versions: [...]}, lists the
	// negotiated protocol versions (see VersionField) under which batches
	// are accepted; under any other, and before the handshake, a batch is
	// refused as under NoBatches. Nil when batches do not depend on the
	// version.
	BatchVersions []string

	// Timeout is the default timeout of requests (0 for none) and
	// OnTimeout what happens when it expires; methods may override both.
	Timeout   time.Duration
	OnTimeout OnTimeout

	// IgnoreUnknownNotifications lists the wire-name prefixes of the
	// notifications dropped silently when the receiver does not declare or
	// implement them ("" matches every name); nil when none are.
	IgnoreUnknownNotifications []string

	// Types holds every named type, included files first, then in source
	// order; the types synthesized for inline objects, enums and unions
	// follow the type, method or error that holds them.
	Types []*TypeDef
	// Methods holds the methods and notifications: those of included
	// files first, in include order, then the file's own, in source order.
	Methods []*Method
	// Errors holds the five standard JSON-RPC errors (by code, from
	// -32700), then the errors of included files, then the file's own.
	Errors []*ErrorDef

	// Files lists every file loaded: the root file first, then the
	// included files, each after the files it includes.
	Files []string
	Pos   Pos
}

// Role is one of the two peers of a protocol.
type Role struct {
	Name   string // as written, e.g. "extension"
	GoName string // from go_name, else made from Name, e.g. "Extension"
	Doc    string
	Pos    Pos
}

// Framing is how messages are delimited on the byte stream.
type Framing string

// Framings.
const (
	// FramingContentLength is "Content-Length: N\r\n\r\n" headers, as in LSP.
	FramingContentLength Framing = "content-length"
	// FramingNDJSON is one JSON message per line.
	FramingNDJSON Framing = "ndjson"
)

// IDStyle is the kind of JSON-RPC request IDs a peer sends. Peers accept
// both kinds whatever the style.
type IDStyle string

// ID styles.
const (
	IDInteger IDStyle = "integer" // 1, 2, 3, ...
	IDString  IDStyle = "string"  // "1", "2", ... or other unique strings
)

// Cancellation is how a caller tells the other peer to stop working on a
// request.
type Cancellation string

// Cancellation styles.
const (
	CancelNone Cancellation = "none" // no cancellation message
	// CancelLSP is the "$/cancelRequest" notification with params {id}.
	CancelLSP Cancellation = "lsp"
	// CancelMCP is the "notifications/cancelled" notification with params
	// {requestId, reason?}.
	CancelMCP Cancellation = "mcp"
)

// Ordering is the order in which a receiver handles incoming messages.
type Ordering string

// Orderings.
const (
	// OrderConcurrent handles notifications one at a time in arrival
	// order and requests concurrently, so a request may overtake the
	// notifications read before it.
	OrderConcurrent Ordering = "concurrent"
	// OrderNotificationsFirst also starts a request only once the
	// notifications read before it have been handled, as LSP requires.
	OrderNotificationsFirst Ordering = "notifications-first"
)

// Method returns the wire name of the cancellation notification, or "" for
// CancelNone.
func (c Cancellation) Method() string {
	switch c {
	case CancelLSP:
		return "$/cancelRequest"
	case CancelMCP:
		return "notifications/cancelled"
	}
	return ""
}

// TransportKind is a way to carry the byte stream.
type TransportKind string

// Transport kinds.
const (
	TransportStdio      TransportKind = "stdio"      // the process's own stdin/stdout
	TransportSubprocess TransportKind = "subprocess" // Roles[0] spawns Roles[1]
	TransportTCP        TransportKind = "tcp"        // Roles[1] listens, Roles[0] dials
	TransportUnix       TransportKind = "unix"       // a Unix domain socket
	// TransportHTTP is HTTP as MCP's Streamable HTTP uses it: Roles[1]
	// serves one endpoint, Roles[0] POSTs each message to it.
	TransportHTTP TransportKind = "http"
)

// Transport is one transport a protocol runs over, with its defaults.
type Transport struct {
	Kind    TransportKind
	Command string   // subprocess: default command to run; may be empty
	Args    []string // subprocess: default arguments
	Host    string   // tcp: default host ("localhost" when not written)
	Port    int      // tcp: default port; http: default port, 0 for none
	Path    string   // unix: default socket path; http: the endpoint's path
	// SessionHeader (http) carries the session id the server issues in
	// its answer to the handshake; "" for a protocol without sessions.
	SessionHeader string
	// VersionHeader (http) carries the negotiated protocol version on
	// every request after the handshake; "" for none.
	VersionHeader string
	// DefaultVersion (http) is the version a server assumes when a
	// request carries no VersionHeader; "" for none.
	DefaultVersion string
	Doc            string
	Pos            Pos
}

// TimeoutAction is what the caller does, besides returning a timeout error,
// when a request times out.
type TimeoutAction string

// Timeout actions.
const (
	ActionError TimeoutAction = "error" // only return the timeout error
	ActionClose TimeoutAction = "close" // also close the connection: the peer is marked failed
	ActionKill  TimeoutAction = "kill"  // also kill the peer's process (subprocess transport)
)

// OnTimeout is what happens when a request times out. The caller always
// gets a timeout error.
type OnTimeout struct {
	Cancel bool          // send the protocol's cancellation notification
	Action TimeoutAction // never empty in a loaded Protocol
	Doc    string
	Pos    Pos
}

// Kind is the kind of a [Type].
type Kind int

// Kinds of types.
const (
	KindInvalid Kind = iota
	KindString       // a JSON string
	KindInteger      // a JSON number without fraction (int64)
	KindNumber       // any JSON number (float64)
	KindBoolean      // true or false
	KindAny          // any JSON value
	KindArray        // a JSON array of Elem
	KindMap          // a JSON object with keys of type Key and Elem values
	KindObject       // a JSON object with the given Fields
	KindEnum         // one of the given Values
	KindUnion        // one of the given Variants
	KindRef          // a reference to the named type Ref
	KindTuple        // a JSON array of fixed length, each position of its own type (Items)
)

var kindNames = [...]string{"invalid", "string", "integer", "number", "boolean", "any", "array", "map", "object", "enum", "union", "ref", "tuple"}

// String returns the kind's IDL keyword, e.g. "integer".
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return "invalid"
	}
	return kindNames[k]
}

// Type is a resolved type. Objects, enums, unions and tuples only appear as the
// Type of a [TypeDef]; everywhere else they are referenced with KindRef, so
// generators can name every Go type they emit.
type Type struct {
	Kind     Kind
	Nullable bool   // null is also accepted
	Format   Format // KindString: the string's format, or ""
	// Const is the only value allowed, for a KindString, KindInteger,
	// KindNumber or KindBoolean type (e.g. a union's tag field); nil
	// otherwise.
	Const *Value
	Elem  *Type    // KindArray: the items; KindMap: the values
	Ref   *TypeDef // KindRef: the type referred to
	// Key is, for a KindMap, the type of its keys: integer, or a reference
	// to a string or integer type (an alias or an enum); nil for plain
	// string keys.
	Key *Type

	// Fields of a KindObject, inherited ones (from Extends) first, then in
	// source order.
	Fields  []*Field
	Extends []*TypeDef // KindObject: the object types whose fields it copies
	// Positional is, for a KindObject, true when the object is sent as a
	// JSON array of its Fields in order (JSON-RPC's params by position),
	// its optional fields last and left out from the end when absent.
	Positional bool
	// Items are the types of the positions of a KindTuple, in order.
	Items []*Type
	// Additional is, for a KindObject, the type of the members it holds
	// besides its Fields (TypeScript's [key: string]: T); nil when
	// undeclared members are ignored.
	Additional *Type

	EnumBase Kind         // KindEnum: KindString or KindInteger
	Values   []*EnumValue // KindEnum, in source order
	// Open is, for a KindEnum, true when any other value of its base type
	// is accepted too (and kept): Values lists the known ones.
	Open bool

	// Width is, for a KindInteger type or an enum whose EnumBase is
	// KindInteger, the range of its values and its Go type.
	Width IntWidth
	// Minimum and Maximum are, for a KindInteger or KindNumber type, the
	// inclusive bounds of its values as JSON numbers; nil when not written.
	// The range of Width bounds an integer too.
	Minimum, Maximum *Value

	// Discriminator is, for a KindUnion, the name of the string field whose
	// constant value tells the variants apart; empty when the variants are
	// told apart by their JSON kind (string, number, boolean, array,
	// object), object variants by their members, nested unions
	// flattened (see [Choices] and [ChooseObject]).
	Discriminator string
	Variants      []*Variant // KindUnion, in source order

	Pos Pos
}

// IntWidth is the range of an integer type, and its Go type.
type IntWidth uint8

// Integer widths.
const (
	Int64  IntWidth = iota // integer: Go int64
	Int32                  // int32: Go int32
	Uint32                 // uint32: Go uint32
)

// String returns the width's IDL keyword: integer, int32 or uint32.
func (w IntWidth) String() string {
	switch w {
	case Int32:
		return "int32"
	case Uint32:
		return "uint32"
	}
	return "integer"
}

// Range returns the smallest and largest values of the width.
func (w IntWidth) Range() (lo, hi int64) {
	switch w {
	case Int32:
		return math.MinInt32, math.MaxInt32
	case Uint32:
		return 0, math.MaxUint32
	}
	return math.MinInt64, math.MaxInt64
}

// Format is the format of a string type.
type Format string

// String formats.
const (
	FormatDateTime Format = "date-time" // RFC 3339 timestamp
	FormatDate     Format = "date"      // RFC 3339 full-date
	FormatTime     Format = "time"      // RFC 3339 full-time
	FormatDuration Format = "duration"  // ISO 8601 duration
	FormatURI      Format = "uri"       // absolute URI
	FormatURIRef   Format = "uri-reference"
	FormatEmail    Format = "email"
	FormatHostname Format = "hostname"
	FormatIPv4     Format = "ipv4"
	FormatIPv6     Format = "ipv6"
	FormatUUID     Format = "uuid"
	FormatBase64   Format = "base64" // standard base64 with padding
	FormatRegex    Format = "regex"
)

// Value is a JSON value written in the IDL: a default, a constant or an
// example.
type Value struct {
	JSON json.RawMessage // compact JSON; object keys in source order
	Pos  Pos
}

// TypeDef is a named type: declared under types:, or synthesized for an
// inline object, enum or union (Inline is then true and Name is made from
// where it appears, e.g. "PromptParamsContext").
type TypeDef struct {
	Name       string
	GoName     string
	Doc        string
	Deprecated string // why and what to use instead; empty when not deprecated
	Since      string // the protocol version that added it; may be empty
	Proposed   bool   // not yet part of the protocol's stable release
	Type       *Type  // never KindRef to itself; may be any kind
	Inline     bool
	Example    *Value
	Pos        Pos
}

// Field is one field of an object.
type Field struct {
	Name       string // JSON name
	GoName     string
	Doc        string
	Deprecated string
	Since      string
	Proposed   bool
	Type       *Type
	Optional   bool   // the field may be omitted
	Default    *Value // value assumed when omitted; only for optional fields
	Example    *Value
	// Raw is set by raw: true on a field of type map<string, any>: the
	// generated code keeps the member's JSON object as received, to be
	// decoded on demand, instead of a map of its members.
	Raw bool
	// DeclaredIn is the object type that declares the field: the
	// [TypeDef] that holds it, or one it extends.
	DeclaredIn *TypeDef
	Pos        Pos
}

// EnumValue is one value of an enum.
type EnumValue struct {
	Value any // string or int64, matching the enum's EnumBase
	// Name is the value's name: from name: when written, else the string
	// itself or the integer in decimal ("-1").
	Name string
	// GoName is the Go name of the value alone, e.g. "WaitingPermission";
	// an integer without name: gets N<value>, or Minus<value> when
	// negative ("N2", "Minus1").
	GoName     string
	Doc        string
	Deprecated string
	Since      string
	Proposed   bool
	Pos        Pos
}

// Variant is one variant of a union.
type Variant struct {
	// Tag is the discriminator value that selects this variant; empty for
	// unions without a discriminator.
	Tag  string
	Type *Type // a KindRef to an object for tagged unions
	Pos  Pos
}

// MethodKind tells requests from notifications.
type MethodKind string

// Method kinds.
const (
	Request      MethodKind = "request"      // expects a response
	Notification MethodKind = "notification" // expects none
)

// FromBoth is the value of [Method].From for a method either role sends.
const FromBoth = "both"

// Method is a request or a notification.
type Method struct {
	Name       string // wire name, e.g. "editor/getMessage"
	GoName     string // e.g. "EditorGetMessage"
	Doc        string
	Deprecated string
	Since      string // the protocol version that added it; may be empty
	Proposed   bool   // not yet part of the protocol's stable release
	From       string // name of the sending role, or FromBoth
	Kind       MethodKind
	// AlsoNotification is true for a request its sender may also send as
	// a notification (kind: [request, notification]); the result is then
	// dropped.
	AlsoNotification bool
	// Params is the type of the params: any type whose values are JSON
	// objects or arrays (an object sends them by name, an array or a
	// positional object by position); nil for no params.
	Params *Type
	// ParamsOptional is true when params may be absent (params?:).
	ParamsOptional bool
	Result         *Type // nil when the result is null or the method is a notification
	// NullResult is true for a request declared with result: "null": its
	// result is always null, and any other answer is an error.
	NullResult bool
	Errors     []*ErrorDef // errors it may return besides the standard ones
	// Timeout is how long the caller waits for the response, 0 for ever;
	// OnTimeout says what happens then. Both are zero for notifications.
	Timeout   time.Duration
	OnTimeout OnTimeout
	// Idempotent is true for a request that has the same effect run twice
	// as once (idempotent: true), so a caller may send it again when its
	// connection ended before the answer came.
	Idempotent bool
	Examples   []*Example
	// NotificationForm is the same wire name sent as a notification by
	// the other role, with its own params (notification:); nil for none.
	// Its Kind is Notification, its Name the method's, and its GoName,
	// <GoName>Notification unless set with go_name:, names the handler
	// method of the role receiving it. It is not in [Protocol.Methods].
	NotificationForm *Method
	// RequestForm is, on a NotificationForm, the request it belongs to;
	// nil on every method of [Protocol.Methods].
	RequestForm *Method
	Pos         Pos
}

// SentBy reports whether the role named role sends m.
func (m *Method) SentBy(role string) bool {
	return m.From == FromBoth || m.From == role
}

// Example is one example exchange of a method.
type Example struct {
	Doc    string
	Params *Value        // nil when the method has no params
	Result *Value        // the result of a successful request
	Error  *ExampleError // the error of a failed request
	Pos    Pos
}

// ExampleError is the error response of an [Example].
type ExampleError struct {
	Error   *ErrorDef
	Message string // the message sent; the error's own when not written
	Data    *Value
}

// ErrorDef is an error a method may return.
type ErrorDef struct {
	Name    string // e.g. "AgentBusy"
	GoName  string
	Code    int64
	Message string // default message
	Doc     string
	Data    *Type // type of the error's data member; nil for none
	// Standard is true for the five errors defined by JSON-RPC 2.0.
	Standard bool
	// AllowReserved is true when the IDL marked the code as knowingly taken
	// from JSON-RPC's reserved range -32768..-32100.
	AllowReserved bool
	Since         string // the protocol version that added it; may be empty
	Proposed      bool   // not yet part of the protocol's stable release
	Pos           Pos
}
